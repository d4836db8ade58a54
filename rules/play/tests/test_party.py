"""Party actions (issue 13): one action for many characters, each its own log entry in
one batch; a pending choice on one does not block the others; the clock moves once."""

from __future__ import annotations

import pytest

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.clock.models import ClockJob, ClockJobKind
from rules.log.models import Resolution
from rules.play.services import character_create, resolution_create_action


def url(campaign):
    return f"/api/v1/campaigns/{campaign.pk}/party-actions/"


@pytest.fixture
def school(make_campaign):
    return make_campaign("old_school")


@pytest.fixture
def party(school, player, other_player, referee):
    made = []
    for user, name in ((player, "Dorn"), (other_player, "Pell"), (referee, "Guide")):
        membership = Membership.objects.get(campaign=school, user=user)
        made.append(character_create(membership=membership, name=name, sheet={"max_wounds": 8}))
    return made


def test_all_by_default_each_its_own_entry_one_batch_and_the_clock_moves_once(
    school, party, referee, client_for, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(referee).post(
            url(school), {"action": "search", "params": {"squares": 3}}, format="json"
        )
    assert response.status_code == 201, response.content
    body = response.json()
    assert [r["character"] for r in body["resolutions"]] == [c.pk for c in party]
    assert {r["batch"] for r in body["resolutions"]} == {body["batch"]}
    assert Resolution.objects.filter(batch=body["batch"]).count() == 3
    assert body["skipped"] == []
    # once, not three times; nothing falls due in 30 minutes: at once, with no job
    assert Campaign.objects.get(pk=school.pk).clock == 30
    assert not ClockJob.objects.filter(campaign=school).exists()
    assert body["clock_job"] is None


def test_the_party_s_time_crossing_an_effect_moves_the_clock_once_through_a_job(
    school, party, referee, client_for, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(referee).post(
            f"/api/v1/characters/{party[0].pk}/actions/",
            {"action": "drink", "params": {"hours": 4}},  # sober_up due at 04:00 (OS-9)
            format="json",
        )
        assert answer.status_code == 201, answer.content
        response = client_for(referee).post(
            url(school), {"action": "search", "params": {"squares": 30}}, format="json"
        )
    assert response.status_code == 201, response.content
    jobs = ClockJob.objects.filter(campaign=school, kind=ClockJobKind.ACTION)
    assert [(job.minutes, job.state) for job in jobs] == [(300, "done")]
    assert response.json()["clock_job"] == jobs[0].pk
    assert Campaign.objects.get(pk=school.pk).clock == 300
    sober = Resolution.objects.get(character=party[0], kind="effect", action="sober_up")
    assert sober.clock == 240


def test_a_pending_choice_on_one_does_not_block_the_others(
    campaign, referee, player, other_player, client_for, scripted_dice
):
    aldo = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player),
        name="Aldo",
        sheet={"level": 2, "hit_dice": 2, "hp": 10},
    )
    bo = character_create(
        membership=Membership.objects.get(campaign=campaign, user=other_player),
        name="Bo",
        sheet={"level": 2, "hit_dice": 2, "hp": 10},
    )
    scripted_dice([1, 20])  # Aldo's saves: the player must choose (HD-4, G-3)
    resolution_create_action(
        character_id=aldo.pk, actor=player, by_referee=False, action="damage", params={"amount": 12}
    )
    aldo.refresh_from_db()
    assert aldo.pending_choice is not None
    response = client_for(referee).post(
        url(campaign), {"action": "damage", "params": {"amount": 2}}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert [r["character"] for r in body["resolutions"]] == [bo.pk]
    assert body["skipped"][0]["character"] == aldo.pk
    assert "waits on a choice" in body["skipped"][0]["reason"]
    bo.refresh_from_db()
    assert bo.sheet["hp"] == 8


def test_picked_characters_only_and_bad_input(school, party, referee, client_for):
    client = client_for(referee)
    dorn, pell, _ = party
    response = client.post(
        url(school),
        {"action": "heal", "params": {"amount": 1}, "characters": [pell.pk]},
        format="json",
    )
    assert response.status_code == 201
    assert [r["character"] for r in response.json()["resolutions"]] == [pell.pk]
    before = Resolution.objects.count()
    for body in (
        {"action": "heal", "params": {"amount": 0}},  # every character refuses the params
        {"action": "no_such_action", "params": {}},
        {"action": "heal", "params": {"amount": 1}, "characters": [10**6]},
        {"action": "heal", "params": {"amount": 1}, "characters": []},
        {"action": "heal", "params": {"amount": 1}, "characters": ["x"]},
    ):
        assert client.post(url(school), body, format="json").status_code == 400, body
    assert Resolution.objects.count() == before
    assert Character.objects.filter(campaign=school).count() == 3


def test_the_party_page_one_form_for_the_chosen_characters(school, party, referee, player, web):
    dorn, pell, guide = party
    client = web(referee)
    page = client.get(f"/campaigns/{school.pk}/party/?action=heal")
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count('name="characters"') == 3 and html.count("checked") >= 3
    response = client.post(
        f"/campaigns/{school.pk}/party/",
        {"action": "heal", "characters": [dorn.pk, pell.pk], "p.amount": "1"},
    )
    assert response.status_code == 200, response.content
    batches = set(Resolution.objects.filter(action="heal").values_list("batch", flat=True))
    assert len(batches) == 1 and None not in batches
    assert Resolution.objects.filter(action="heal").count() == 2
    bad = client.post(f"/campaigns/{school.pk}/party/", {"action": "heal", "p.amount": "1"})
    assert bad.status_code == 400
    assert "Pick at least one character" in bad.content.decode()
    assert web(player).get(f"/campaigns/{school.pk}/party/").status_code == 403
    dashboard = client.get(f"/campaigns/{school.pk}/").content.decode()
    assert f'name="characters" value="{pell.pk}" checked' in dashboard  # select there
    picked = client.get(f"/campaigns/{school.pk}/party/?action=heal&characters={pell.pk}")
    assert picked.content.decode().count("checked") == 1
