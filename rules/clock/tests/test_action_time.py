"""Time that actions take (issue 13; docs/clock.md "Time that actions take").

An action's ``elapsed_minutes`` moves the campaign clock when it ends, through a clock
job of kind ``action``, applying what falls due in between in time order; the campaign
option "actions move the clock" turns it off; the resolution shows the time it took.
"""

from __future__ import annotations

import pytest

from campaigns.models import Campaign
from characters.models import Character
from rules.clock.models import ClockJob, ClockJobKind, ClockJobState
from rules.log.models import Resolution, ResolutionKind


@pytest.fixture
def school(make_campaign):
    return make_campaign("old_school")


def make_pell(client, school, player):
    response = client.post(
        f"/api/v1/campaigns/{school.pk}/characters/",
        {"name": "Pell", "owner": player.pk},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def act(client, character_id, action, params=None):
    response = client.post(
        f"/api/v1/characters/{character_id}/actions/",
        {"action": action, "params": params or {}},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_a_nights_rest_moves_the_clock_and_what_falls_due_applies_on_its_minute(
    school, referee, player, client_for, django_capture_on_commit_callbacks
):
    client = client_for(referee)
    pell = make_pell(client, school, player)
    with django_capture_on_commit_callbacks(execute=True):
        act(client, pell, "drink", {"hours": 4})  # sober_up due at 04:00 (OS-9)
    assert Campaign.objects.get(pk=school.pk).clock == 0  # drinking takes no time
    with django_capture_on_commit_callbacks(execute=True):
        rest = act(client_for(player), pell, "night_rest")
    assert rest["elapsed_minutes"] == 8 * 60
    assert rest["clock"] == 0  # logged when it began
    school.refresh_from_db()
    assert school.clock == 8 * 60
    job = ClockJob.objects.get(campaign=school, kind=ClockJobKind.ACTION)
    assert (job.minutes, job.state, job.clock_start) == (480, ClockJobState.DONE, 0)
    sober = Resolution.objects.get(character_id=pell, kind=ResolutionKind.EFFECT)
    assert (sober.action, sober.clock) == ("sober_up", 240)
    assert sober.version > Resolution.objects.get(character_id=pell, action="night_rest").version
    sheet = Character.objects.get(pk=pell).sheet
    assert sheet["conditions"]["drunk"] is False


def test_with_actions_move_the_clock_off_the_clock_stays(
    school, referee, player, client_for, django_capture_on_commit_callbacks
):
    client = client_for(referee)
    response = client.patch(
        f"/api/v1/campaigns/{school.pk}/",
        {"ruleset": "old_school", "actions_move_clock": False},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["actions_move_clock"] is False
    pell = make_pell(client, school, player)
    with django_capture_on_commit_callbacks(execute=True):
        search = act(client, pell, "search", {"squares": 3})
    assert search["elapsed_minutes"] == 30  # still shown (OS-9)
    assert Campaign.objects.get(pk=school.pk).clock == 0
    assert not ClockJob.objects.filter(campaign=school).exists()


def test_the_log_page_shows_the_time_an_action_took(
    school, referee, player, client_for, web, django_capture_on_commit_callbacks
):
    client = client_for(referee)
    pell = make_pell(client, school, player)
    with django_capture_on_commit_callbacks(execute=True):
        act(client, pell, "search", {"squares": 3})
    page = web(referee).get(f"/characters/{pell}/")
    assert page.status_code == 200
    assert "took 30 minutes" in page.content.decode()
    assert Campaign.objects.get(pk=school.pk).clock == 30


def test_a_bad_actions_move_the_clock_is_a_400(school, referee, client_for):
    response = client_for(referee).patch(
        f"/api/v1/campaigns/{school.pk}/",
        {"ruleset": "old_school", "actions_move_clock": "sometimes"},
        format="json",
    )
    assert response.status_code == 400
    assert Campaign.objects.get(pk=school.pk).actions_move_clock is True
