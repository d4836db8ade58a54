"""The session recap (issue 25): ``GET campaigns/{id}/recap/`` over in-game time (minutes or
the calendar's dates) or real time, per character what happened in order, the dice that
mattered and where the clock went; a player's holds their own characters and no hidden
roll; Markdown with ``?format=md`` or ``Accept: text/markdown``."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import Campaign
from rules.clock.tests.clock_helpers import effect_resolutions, run_job, wounded
from rules.log.models import Resolution
from rules.logbook.recap import RecapWindow, campaign_recap, recap_markdown
from rules.play.services import character_create, resolution_create_action, resolution_reveal
from rules.play.undo import resolution_undo

pytestmark = pytest.mark.django_db
DAY = 24 * 60
TWO_MONTHS = {
    "months": [{"name": "Frost", "days": 10}, {"name": "Bloom", "days": 10}],
    "weekdays": ["Sunday", "Moonday", "Tiwsday"],
    "epoch": {"year": 1000, "month": 1, "day": 1},
}


def recap_url(campaign: Campaign) -> str:
    return f"/api/v1/campaigns/{campaign.pk}/recap/"


def session(campaign: Campaign, referee, player, other_player):
    """Aldo (the player's) and Bea (the other player's), each with a wound worsening every
    hour."""
    aldo = wounded(campaign, player, "Aldo", every=60)
    bea = wounded(campaign, other_player, "Bea", every=60)
    return aldo, bea


def test_the_referee_reads_each_character_in_order_with_the_clock(
    campaign, referee, player, other_player, client_for
):
    aldo, bea = session(campaign, referee, player, other_player)
    api = client_for(referee)
    run_job(campaign, 120, requested_by=referee)  # the referee's advance: a clock entry
    resolution_undo(character_id=aldo.pk, actor=referee)

    body = api.get(recap_url(campaign), {"from": 0, "to": 2 * 60}).json()

    assert [c["name"] for c in body["characters"]] == ["Aldo", "Bea"]
    entries = body["characters"][0]["entries"]
    log = list(Resolution.objects.filter(character=aldo).order_by("version"))
    assert [e["id"] for e in entries] == [r.pk for r in log]  # everything, in order
    kinds = [e["kind"] for e in entries]
    assert kinds[-1] == "undo" and kinds.count("effect") == 2
    effects = [e for e in entries if e["kind"] == "effect"]
    assert all(e["by"] == "the clock" and e["actor"] is None for e in effects)
    assert [e["date"] for e in effects] == ["Day 1, 01:00", "Day 1, 02:00"]
    # the worsening's saves decided a new minor wound: dice that mattered
    assert all(e["dice"] for e in effects)
    assert {"label", "expression", "dice", "kept", "total"} <= set(effects[0]["dice"][0])
    # where the clock went, and who moved it
    clock = body["clock"]
    assert (clock["from"], clock["to"], clock["passed"]) == (0, 120, 120)
    assert clock["to_date"]["text"] == "Day 1, 02:00"
    (advance,) = clock["entries"]
    assert advance["kind"] == "advance" and (advance["from"], advance["to"]) == (0, 120)
    assert "advanced the clock by 2 hours" in advance["summary"]

    # an in-game span leaves out what falls outside it
    later = api.get(recap_url(campaign), {"from": 61}).json()
    for character in later["characters"]:
        assert all(e["clock"] >= 61 for e in character["entries"])
    assert later["clock"]["entries"] == []


def test_a_player_reads_their_own_characters_and_no_hidden_roll(
    make_campaign, referee, player, other_player, client_for
):
    # a secret disease (G-4): its saves are hidden effects with hidden rolls
    campaign = make_campaign("old_school", track_sleep=False)
    patient = character_create(
        membership=campaign.memberships.get(user=player),
        name="Patient",
        sheet={"resting": True, "intelligence": 18},
    )
    character_create(membership=campaign.memberships.get(user=other_player), name="Other")
    resolution_create_action(
        character_id=patient.pk,
        actor=referee,
        by_referee=True,
        action="contract_disease",
        params={"disease": "Green River Fever", "hidden": True},
    )
    run_job(campaign, 7 * DAY + 5)
    first = Resolution.objects.get(character=patient, action="disease_save")

    def entry_ids(user) -> list[int]:
        body = client_for(user).get(recap_url(campaign)).json()
        return [e["id"] for c in body["characters"] for e in c["entries"]]

    mine = client_for(player).get(recap_url(campaign)).json()
    assert [c["name"] for c in mine["characters"]] == ["Patient"]
    assert first.pk in entry_ids(referee)
    assert first.pk not in entry_ids(player)
    markdown = client_for(player).get(recap_url(campaign), {"format": "md"}).content.decode()
    assert "Other" not in markdown and first.summary not in markdown
    hidden_rolls = [r for r in Resolution.objects.filter(campaign=campaign) if r.rolls]
    for row in hidden_rolls:
        if any(roll.get("hidden") for roll in row.rolls):
            assert row.pk not in entry_ids(player)
    resolution_reveal(resolution=first)
    assert first.pk in entry_ids(player)


def test_real_time_bounds_the_recap(campaign, referee, player, other_player, client_for):
    aldo, bea = session(campaign, referee, player, other_player)
    run_job(campaign, 60)
    last_week = timezone.now() - timedelta(days=7)
    Resolution.objects.filter(character=bea).update(created_at=last_week)
    since = (timezone.now() - timedelta(days=1)).isoformat()
    body = client_for(referee).get(recap_url(campaign), {"real_from": since}).json()
    assert [c["name"] for c in body["characters"]] == ["Aldo"]
    assert body["window"]["real_from"] is not None
    old = client_for(referee).get(
        recap_url(campaign), {"real_to": (last_week + timedelta(hours=1)).isoformat()}
    )
    assert [c["name"] for c in old.json()["characters"]] == ["Bea"]
    bad = client_for(referee).get(recap_url(campaign), {"real_from": "last tuesday"})
    assert bad.status_code == 400
    assert bad.json()["real_from"] == [
        "A real time is an ISO date and time, such as 2025-03-01T19:00."
    ]


def test_dates_of_the_campaigns_calendar_bound_the_recap(campaign, referee, player, client_for):
    Campaign.objects.filter(pk=campaign.pk).update(calendar=TWO_MONTHS)
    wounded(campaign, player, "Aldo", every=DAY)
    run_job(campaign, 15 * DAY)
    api = client_for(referee)

    body = api.get(recap_url(campaign), {"from_date": "1000-Bloom-2", "to_date": "1000-2-3"}).json()
    (aldo,) = body["characters"]
    assert [e["date"] for e in aldo["entries"]] == [
        "Tiwsday 2 Bloom 1000, 00:00",
        "Sunday 3 Bloom 1000, 00:00",
    ]
    assert body["window"] == {
        "from": 11 * DAY,
        "to": 13 * DAY - 1,
        "real_from": None,
        "real_to": None,
    }
    assert body["clock"]["from_date"]["text"] == "Tiwsday 2 Bloom 1000, 00:00"
    with_time = api.get(recap_url(campaign), {"from_date": "1000-Bloom-3 08:30"}).json()
    assert with_time["window"]["from"] == 12 * DAY + 8 * 60 + 30

    for params, field, words in (
        ({"from_date": "1000-Thaw-2"}, "from_date", "There is no month called Thaw."),
        ({"to_date": "1000-1-11"}, "to_date", "Frost has days 1 to 10."),
        ({"from_date": "Day 3"}, "from_date", "A date reads year-month-day"),
        ({"from": "30", "from_date": "1000-1-1"}, "from_date", "Give from or from_date"),
        ({"from": "600", "to": "60"}, "to", "The end of the span comes before its start."),
    ):
        answer = api.get(recap_url(campaign), params)
        assert answer.status_code == 400, params
        assert answer.json()[field][0].startswith(words), answer.json()


def test_the_recap_as_markdown(campaign, referee, player, other_player, client_for):
    Campaign.objects.filter(pk=campaign.pk).update(name="Harrow Keep: *the* [first]")
    session(campaign, referee, player, other_player)
    run_job(campaign, 60)
    (aldo_worse, _) = effect_resolutions(campaign)
    api = client_for(referee)

    by_format = api.get(recap_url(campaign), {"format": "md", "from": 0, "to": 60})
    by_accept = api.get(recap_url(campaign), {"from": 0, "to": 60}, HTTP_ACCEPT="text/markdown")
    assert by_format.status_code == by_accept.status_code == 200
    assert by_format["Content-Type"] == "text/markdown; charset=utf-8"
    assert by_format.content == by_accept.content
    assert (
        by_format["Content-Disposition"]
        == 'inline; filename="harrow-keep-the-first-recap-day-1.md"'
    )
    text = by_format.content.decode()
    assert text.startswith("# Harrow Keep: \\*the\\* \\[first\\]: session recap\n")
    assert "## Where the clock went" in text
    assert "From Day 1, 00:00 to Day 1, 01:00: 1 hour." in text
    assert "## Aldo (" in text and "## Bea (" in text
    assert "(by the clock)" in text
    assert "  - Dice: " in text
    # a refusal stays JSON
    refused = api.get(recap_url(campaign), {"format": "md", "from": "soon"})
    assert refused.status_code == 400 and refused["Content-Type"] == "application/json"
    assert aldo_worse.pk


def test_nothing_in_the_span(campaign, referee, player):
    membership = campaign.memberships.get(user=referee)
    recap = campaign_recap(membership, RecapWindow(clock_from=0, clock_to=10))
    assert recap["characters"] == [] and recap["clock"]["entries"] == []
    text = recap_markdown(recap)
    assert "Nothing happened to anyone's characters in this span." in text


def test_outsiders_get_a_404(campaign, outsider, client_for):
    assert client_for(outsider).get(recap_url(campaign)).status_code == 404


@pytest.mark.parametrize("value", ["", " 3", "3.0", "-1", "x"])
def test_the_apis_minutes_are_whole_numbers_as_the_schema_says(
    campaign, referee, client_for, web, value
):
    """The API takes ``from`` and ``to`` as its schema's integers (issue 36: a blank
    ``from`` was taken as no bound); the page's form, which sends its boxes blank, still
    reads a blank one as no bound."""
    for path in (recap_url(campaign), recap_url(campaign).replace("recap/", "recap.md")):
        refused = client_for(referee).get(path, {"from": value})
        assert refused.status_code == 400, (path, refused.content)
        assert "from" in refused.json()
    if value == "":
        assert web(referee).get(f"/campaigns/{campaign.pk}/recap/", {"from": ""}).status_code == 200
