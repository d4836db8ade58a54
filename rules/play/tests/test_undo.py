"""Undo any number of steps back to a point, redo while nothing newer exists (issue 13).

Each undo and redo is a resolution of its own; undone entries are marked in the log;
the notice names the character once.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Membership
from characters.models import Character
from rules.log.models import Resolution, ResolutionKind, ScheduledEffect
from rules.play.services import character_create, resolution_create_action


@pytest.fixture
def aldo(campaign, player) -> Character:
    membership = Membership.objects.get(campaign=campaign, user=player)
    return character_create(
        membership=membership, name="Aldo the Bold", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )


def damage(aldo, player, amount):
    return resolution_create_action(
        character_id=aldo.pk,
        actor=player,
        by_referee=False,
        action="damage",
        params={"amount": amount},
    )


def hp(aldo):
    aldo.refresh_from_db()
    return aldo.sheet["hp"]


def undo(client, aldo, **body):
    return client.post(reverse("api-undo", kwargs={"character_id": aldo.pk}), body, format="json")


def redo(client, aldo):
    return client.post(reverse("api-redo", kwargs={"character_id": aldo.pk}))


def test_undo_back_to_a_point_writes_one_undo_per_step(aldo, player, referee, client_for):
    first = damage(aldo, player, 1)
    damage(aldo, player, 2)
    damage(aldo, player, 3)
    assert hp(aldo) == 4
    response = undo(client_for(referee), aldo, to=first.pk)
    assert response.status_code == 201, response.content
    assert hp(aldo) == 10
    undos = list(Resolution.objects.filter(character=aldo, kind=ResolutionKind.UNDO))
    assert len(undos) == 3
    assert sorted(u.undoes.params["amount"] for u in undos if u.undoes) == [1, 2, 3]
    assert response.json()["undoes"] == first.pk
    assert Resolution.objects.filter(character=aldo).count() == 7  # nothing deleted


def test_undo_steps_then_again_and_again(aldo, player, referee, client_for):
    for amount in (1, 2, 3):
        damage(aldo, player, amount)
    client = client_for(referee)
    assert undo(client, aldo, steps=2).status_code == 201
    assert hp(aldo) == 9
    assert undo(client, aldo).status_code == 201  # a third time: no "once only"
    assert hp(aldo) == 10
    response = undo(client, aldo)
    assert response.status_code == 409
    assert "nothing to undo" in response.json()["detail"]


def test_redo_while_nothing_newer_exists(aldo, player, referee, client_for):
    for amount in (1, 2):
        damage(aldo, player, amount)
    client = client_for(referee)
    undo(client, aldo, steps=2)
    assert hp(aldo) == 10
    assert redo(client, aldo).status_code == 201
    assert hp(aldo) == 9
    assert redo(client, aldo).status_code == 201
    assert hp(aldo) == 7
    assert redo(client, aldo).status_code == 409  # nothing left to redo
    # undo the redone entry again, then act: the undo can no longer be redone
    assert undo(client, aldo).status_code == 201
    assert hp(aldo) == 9
    damage(aldo, player, 4)
    response = redo(client, aldo)
    assert response.status_code == 409
    assert "something happened since" in response.json()["detail"]
    assert hp(aldo) == 5


def test_undo_to_an_entry_not_in_force_is_a_409(aldo, player, referee, client_for):
    hit = damage(aldo, player, 1)
    client = client_for(referee)
    undo(client, aldo)
    created = Resolution.objects.get(character=aldo, kind=ResolutionKind.CREATE)
    # an entry of the log no longer in force: 409; no entry of this log at all: 404
    for target, status in ((hit.pk, 409), (created.pk, 409), (10**9, 404)):
        before = Resolution.objects.count()
        response = undo(client, aldo, to=target)
        assert response.status_code == status, target
        assert Resolution.objects.count() == before
    assert undo(client, aldo, to="x").status_code == 400
    assert undo(client, aldo, to=1, steps=2).status_code == 400


def test_redo_schedules_again_what_the_undo_cancelled(make_campaign, referee, player, client_for):
    school = make_campaign("old_school")
    membership = Membership.objects.get(campaign=school, user=player)
    pell = character_create(membership=membership, name="Pell", sheet={})
    resolution_create_action(
        character_id=pell.pk, actor=player, by_referee=True, action="drink", params={"hours": 4}
    )
    client = client_for(referee)
    assert undo(client, pell).status_code == 201
    assert not ScheduledEffect.objects.filter(character=pell, kind="sober_up", state="pending")
    assert redo(client, pell).status_code == 201
    (sober,) = ScheduledEffect.objects.filter(character=pell, kind="sober_up", state="pending")
    assert sober.due_at == 240
    pell.refresh_from_db()
    assert pell.sheet["conditions"]["drunk"] is True


def test_the_page_marks_undone_entries_and_names_the_character_once(aldo, player, referee, web):
    first = damage(aldo, player, 1)
    damage(aldo, player, 2)
    client = web(referee)
    page = client.get(f"/characters/{aldo.pk}/").content.decode()
    assert page.count(">Undo this<") == 1 and page.count(">Undo back to here<") == 1
    htmx = {"HTTP_HX_REQUEST": "true"}
    response = client.post(f"/characters/{aldo.pk}/undo/", {"to": first.pk}, **htmx)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Referee undid 2 entries" in html
    assert html.count("log-entry log-action log-undone") == 2
    assert html.count(">Undone<") == 2
    assert "Redo what was undone last" in html
    response = client.post(f"/characters/{aldo.pk}/redo/", **htmx)
    html = response.content.decode()
    assert "Aldo the Bold: Referee redid:" in html
    assert html.count("Aldo the Bold") >= 1
    assert "Aldo the Bold: Referee redid: Aldo the Bold" not in html
    one = client.post(f"/characters/{aldo.pk}/undo/", **htmx).content.decode()
    assert "Aldo the Bold: Referee undid:" in one
    assert "Referee undid: Aldo the Bold" not in one


def test_players_may_not_undo_or_redo_on_the_page(aldo, player, web):
    damage(aldo, player, 1)
    assert web(player).post(f"/characters/{aldo.pk}/undo/").status_code == 403
    assert web(player).post(f"/characters/{aldo.pk}/redo/").status_code == 403
    assert hp(aldo) == 9


def effects_of(character) -> list[tuple[str, int, dict]]:
    """The character's pending effects as the invariant compares them (ruling G-6)."""
    rows = ScheduledEffect.objects.filter(character=character, state="pending")
    return sorted((e.kind, e.due_at, e.payload) for e in rows)


def act_as(client, character, action, params):
    response = client.post(
        reverse("api-actions", kwargs={"character_id": character.pk}),
        {"action": action, "params": params},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_undo_of_a_death_restores_the_exact_pending_effects_and_redo_takes_them_away(
    make_campaign, referee, player, client_for, django_capture_on_commit_callbacks
):
    """Issue 24: contract a disease, fall unconscious (waking scheduled), die; undo."""
    school = make_campaign("old_school")
    membership = Membership.objects.get(campaign=school, user=player)
    pell = character_create(membership=membership, name="Pell", sheet={"max_wounds": 8})
    client = client_for(referee)
    act_as(client, pell, "contract_disease", {"disease": "Green River Fever", "hidden": False})
    act_as(client, pell, "damage", {"amount": 8})
    before = effects_of(pell)
    kinds = {kind for kind, _, _ in before}
    assert kinds == {"birthday", "disease_save", "sleep_window", "wake_up"}, before
    pell.refresh_from_db()
    sheet, version = pell.sheet, pell.version
    death = act_as(client, pell, "fall", {"feet": 1000})
    pell.refresh_from_db()
    assert pell.sheet["state"] == "dead", pell.sheet
    assert effects_of(pell) == []
    with django_capture_on_commit_callbacks(execute=True):
        response = undo(client, pell, to=death["id"])
    assert response.status_code == 201, response.content
    pell.refresh_from_db()
    assert (pell.sheet, pell.version) == (sheet, version + 2)
    assert effects_of(pell) == before  # kind, due minute and payload, as they were
    assert response.json()["params"]["revived_effects"]
    assert redo(client, pell).status_code == 201
    assert effects_of(pell) == []
    pell.refresh_from_db()
    assert pell.sheet["state"] == "dead"
