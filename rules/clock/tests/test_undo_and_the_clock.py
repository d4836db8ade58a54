"""Undo restores the future (issue 24, ruling G-6): effects an undone entry cancelled or
applied are pending again as they were, those due already apply at once through a
catch-up job of the clock, and a redo takes them away again."""

from __future__ import annotations

from typing import Any

import pytest

from characters.models import Character
from rules.clock.models import ClockJob, ClockJobKind
from rules.clock.report import report_characters
from rules.clock.tests.clock_helpers import run_job, wounded
from rules.log.models import Resolution, ResolutionKind, ScheduledEffect
from rules.play.services import resolution_create_action
from rules.play.undo import resolution_redo, resolution_undo

pytestmark = pytest.mark.django_db


def pending(character: Character) -> list[tuple[str, str, int, Any]]:
    rows = ScheduledEffect.objects.filter(character=character, state="pending")
    return sorted((e.kind, e.key, e.due_at, e.payload) for e in rows)


def test_undoing_a_treatment_brings_the_worsening_back_and_redo_takes_it_away(
    campaign, player, referee
):
    aldo = wounded(campaign, player, "Aldo", every=60)
    before = pending(aldo)
    assert [kind for kind, *_ in before] == ["wound_worsens"]
    resolution_create_action(
        character_id=aldo.pk,
        actor=referee,
        by_referee=True,
        action="treat_wound",
        params={"wound": 1},
    )
    assert pending(aldo) == []
    resolution_undo(character_id=aldo.pk, actor=referee)
    assert pending(aldo) == before  # the same kind, key, minute and payload
    resolution_redo(character_id=aldo.pk, actor=referee)
    assert pending(aldo) == []
    # and undoing the redo brings it back once more
    resolution_undo(character_id=aldo.pk, actor=referee)
    assert pending(aldo) == before
    run_job(campaign, 60)
    assert Resolution.objects.filter(character=aldo, kind=ResolutionKind.EFFECT).count() == 1


def test_an_undone_effect_that_is_overdue_applies_again_at_once_through_the_clock(
    campaign, player, referee, django_capture_on_commit_callbacks
):
    aldo = wounded(campaign, player, "Aldo", every=60)
    with django_capture_on_commit_callbacks(execute=True):
        run_job(campaign, 90)  # the wound worsens at minute 60
    applied = Resolution.objects.get(character=aldo, kind=ResolutionKind.EFFECT)
    aldo.refresh_from_db()
    after_worsening = pending(aldo)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        (undo,) = resolution_undo(character_id=aldo.pk, actor=referee)
    # right after the undo: the worsening is pending again at its minute, the next one gone
    assert [(kind, due) for kind, _, due, _ in pending(aldo)] == [("wound_worsens", 60)]
    assert undo.params["revived_effects"] == [applied.params["scheduled_effect"]]
    catch_up = ClockJob.objects.get(campaign=campaign, kind=ClockJobKind.CATCH_UP)
    assert catch_up.minutes == 0
    for callback in callbacks:  # the job's task, as the commit would send it
        callback()
    catch_up.refresh_from_db()
    campaign.refresh_from_db()
    assert (catch_up.state, catch_up.target, campaign.clock) == ("done", 90, 90)
    again = Resolution.objects.filter(character=aldo, kind=ResolutionKind.EFFECT).latest("id")
    assert again.pk != applied.pk and again.clock == 60  # at its own minute, with new dice
    assert pending(aldo) == after_worsening  # its next worsening is scheduled as before


def test_an_undo_with_nothing_overdue_queues_no_catch_up(campaign, player, referee):
    aldo = wounded(campaign, player, "Aldo", every=60)
    resolution_create_action(
        character_id=aldo.pk,
        actor=referee,
        by_referee=True,
        action="treat_wound",
        params={"wound": 1},
    )
    resolution_undo(character_id=aldo.pk, actor=referee)
    assert not ClockJob.objects.filter(kind=ClockJobKind.CATCH_UP).exists()


def test_the_catch_up_report_spans_the_minutes_of_its_events(
    campaign, player, referee, django_capture_on_commit_callbacks, web
):
    """Issue 34: a catch-up moves no clock, so its report's from and to are the minutes of
    the effects it applied, not the clock's minute twice."""
    aldo = wounded(campaign, player, "Aldo", every=60)  # worsens at 60, 120, 180
    with django_capture_on_commit_callbacks(execute=True):
        run_job(campaign, 200)
    first = Resolution.objects.filter(character=aldo, kind=ResolutionKind.EFFECT).earliest("id")
    with django_capture_on_commit_callbacks(execute=True):
        resolution_undo(character_id=aldo.pk, actor=referee, to=first.pk)
    catch_up = ClockJob.objects.select_related("report").get(kind=ClockJobKind.CATCH_UP)
    assert catch_up.state == "done"
    report = catch_up.report
    assert report is not None
    events = [e["clock"] for c in report_characters(report) for e in c["events"]]
    assert events == [60, 120, 180]
    assert (report.clock_from, report.clock_to) == (60, 180)
    page = web(referee).get(f"/campaigns/{campaign.pk}/clock/jobs/{catch_up.pk}/")
    assert "Day 1, 01:00 to Day 1, 03:00" in page.content.decode()
