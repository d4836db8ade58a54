"""Sleep and supplies are assumed (project ruling OS-P17, issue 13).

Characters sleep each night and eat unless the referee marks them otherwise; only a
marked night counts its logged sleep, and a logged sleep is credited to each 24-hour
window it spans.
"""

from __future__ import annotations

import pytest

from characters.models import Character
from rules.engine.dice import ScriptedGenerator
from rules.engine.rulesets.old_school.data import DAY, HOUR, WEEK
from rules.engine.tests.test_old_school import OS, Table, make_sheet
from rules.log.models import Resolution, ResolutionKind


def test_a_week_unmarked_brings_no_deprivation_and_no_hunger():
    table = Table(make_sheet(), ScriptedGenerator([]))
    table.schedule(OS.initial_effects(table.sheet))
    table.advance(WEEK)
    windows = table.applied("sleep_window")
    assert len(windows) == 7
    assert all(result.summary == "Slept through the night." for _, result in windows)
    conditions = table.sheet["conditions"]
    assert conditions["sleep_deprived_days"] == 0
    assert (conditions["starving"], conditions["thirsty"]) == (False, False)
    assert table.applied("starvation_check") == []


def test_only_marked_nights_count_and_the_mark_runs_out():
    table = Table(make_sheet(), ScriptedGenerator([]))
    table.schedule(OS.initial_effects(table.sheet))
    table.act("go_without_sleep", {"reason": "forced_march", "nights": 2})
    table.advance(4 * DAY)
    days = [r.sheet["conditions"]["sleep_deprived_days"] for _, r in table.applied("sleep_window")]
    assert days == [1, 2, 0, 0]
    summaries = [r.summary for _, r in table.applied("sleep_window")]
    assert summaries[0].startswith("On a forced march, slept only 0 hours")
    assert summaries[2] == "Slept through the night: sleep deprivation ends."


def test_a_sleep_across_the_window_boundary_is_credited_to_both_windows():
    """8 hours from an hour before the boundary: 1 hour to the first window, 7 to the next."""
    table = Table(make_sheet(), ScriptedGenerator([]))
    table.schedule(OS.initial_effects(table.sheet))
    table.act("go_without_sleep", {"reason": "on_watch", "nights": 2})
    table.advance(DAY - HOUR)
    table.act("sleep", {"hours": 8}, referee=False)
    table.advance(2 * DAY + HOUR)
    first, second, third = (r for _, r in table.applied("sleep_window"))
    assert first.summary.startswith("On watch all night, slept only 1 hour ")
    assert first.sheet["sleep"]["hours"] == 7  # carried into the next window
    assert second.summary == "Slept 7 hours in the last 24: rested."
    assert third.summary == "Slept through the night."


def test_zero_nights_clears_the_mark():
    table = Table(make_sheet(), ScriptedGenerator([]))
    table.act("go_without_sleep", {"nights": 3})
    cleared = table.act("go_without_sleep", {"nights": 0})
    assert cleared.sheet["sleep"]["without"] == 0
    assert cleared.summary == "Sleeps each night again."


# -- through the API, on the campaign clock ----------------------------------------------------


@pytest.fixture
def school(make_campaign):
    return make_campaign("old_school")


def post(client, url, body):
    response = client.post(url, body, format="json")
    assert response.status_code in (201, 202), response.content
    return response.json()


def test_api_a_week_advanced_leaves_the_party_rested_and_fed(
    school, referee, player, client_for, django_capture_on_commit_callbacks
):
    client = client_for(referee)
    pell = post(client, f"/api/v1/campaigns/{school.pk}/characters/", {"name": "Pell"})["id"]
    with django_capture_on_commit_callbacks(execute=True):
        post(client, f"/api/v1/campaigns/{school.pk}/clock/advance/", {"minutes": WEEK})
    sheet = Character.objects.get(pk=pell).sheet
    assert sheet["conditions"]["sleep_deprived_days"] == 0
    assert sheet["penalties"] == {"rolls": 0, "percentile": 0, "saves": 0}
    assert sheet["conditions"]["starving"] is False
    assert Resolution.objects.filter(character_id=pell, action="sleep_window").count() == 7


def test_api_a_marked_sleep_across_midnight_is_split_between_the_windows(
    school, referee, player, client_for, django_capture_on_commit_callbacks
):
    client = client_for(referee)
    pell = post(
        client, f"/api/v1/campaigns/{school.pk}/characters/", {"name": "Pell", "owner": player.pk}
    )["id"]
    actions = f"/api/v1/characters/{pell}/actions/"
    with django_capture_on_commit_callbacks(execute=True):
        post(client, f"/api/v1/campaigns/{school.pk}/clock/advance/", {"minutes": DAY - HOUR})
    post(client, actions, {"action": "go_without_sleep", "params": {"nights": 2}})
    with django_capture_on_commit_callbacks(execute=True):
        post(client_for(player), actions, {"action": "sleep", "params": {"hours": 8}})
    with django_capture_on_commit_callbacks(execute=True):
        post(client, f"/api/v1/campaigns/{school.pk}/clock/advance/", {"minutes": DAY})
    windows = Resolution.objects.filter(
        character_id=pell, kind=ResolutionKind.EFFECT, action="sleep_window"
    ).order_by("clock")
    assert [w.clock for w in windows] == [DAY, 2 * DAY]
    assert "slept only 1 hour " in windows[0].summary  # the clock moved by the sleep
    assert "Slept 7 hours in the last 24: rested" in windows[1].summary
    assert Character.objects.get(pk=pell).sheet["conditions"]["sleep_deprived_days"] == 0


def test_api_go_without_sleep_is_the_referees(school, referee, player, client_for):
    pell = post(
        client_for(referee),
        f"/api/v1/campaigns/{school.pk}/characters/",
        {"name": "Pell", "owner": player.pk},
    )["id"]
    response = client_for(player).post(
        f"/api/v1/characters/{pell}/actions/",
        {"action": "go_without_sleep", "params": {"nights": 1}},
        format="json",
    )
    assert response.status_code == 403
    bad = client_for(referee).post(
        f"/api/v1/characters/{pell}/actions/",
        {"action": "go_without_sleep", "params": {"reason": "napping"}},
        format="json",
    )
    assert bad.status_code == 400
