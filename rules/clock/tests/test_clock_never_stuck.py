"""The clock is never stuck (issue 34): whatever the order of advances, choices,
cancels, undos, resumes, live-clock switches and archiving, the dashboard shows the way
on (the choice to answer, the job to resume, the jobs waiting behind it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_unarchive
from characters.models import Character
from core.errors import NotAllowed, ResolutionConflict
from rules.clock.live import clock_live_set, clock_live_tick
from rules.clock.models import (
    UNFINISHED_JOB_STATES,
    ClockEntry,
    ClockEntryKind,
    ClockJob,
    ClockJobState,
)
from rules.clock.services import clock_advance_start, clock_job_resume
from rules.engine.interface import ActionBlocked, RuleError
from rules.play.dice_rotation import campaign_archive
from rules.play.services import (
    character_create,
    resolution_answer_choice,
    resolution_cancel_choice,
    resolution_create_action,
)
from rules.play.undo import resolution_undo

pytestmark = pytest.mark.django_db
WEEK = 7 * 24 * 60


def dying(campaign, owner, name: str = "Ines") -> Character:
    """A condition_monitor character dying: her dying hour ends at minute 60 (CM-4)."""
    membership = Membership.objects.get(campaign=campaign, user=owner)
    character = character_create(membership=membership, name=name, sheet={})
    referee = campaign.memberships.get(role="referee").user
    resolution_create_action(
        character_id=character.pk,
        actor=referee,
        by_referee=True,
        action="damage",
        params={"amount": 4, "kind": "lethal", "soak_dice": 0},
    )
    character.refresh_from_db()
    assert character.sheet["state"] == "dying"
    return character


def test_a_second_advance_behind_a_stopped_one_keeps_the_way_on_shown(
    make_campaign, referee, player, web, django_capture_on_commit_callbacks
):
    campaign = make_campaign("condition_monitor")
    ines = dying(campaign, player)
    page = web(referee)
    with django_capture_on_commit_callbacks(execute=True):
        first = clock_advance_start(campaign_id=campaign.pk, minutes=WEEK, requested_by=referee)
    first.refresh_from_db()
    assert first.state == ClockJobState.WAITING
    with django_capture_on_commit_callbacks(execute=True):
        second = clock_advance_start(campaign_id=campaign.pk, minutes=WEEK, requested_by=referee)
    second.refresh_from_db()
    assert second.state == ClockJobState.QUEUED
    text = page.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "The clock stopped at" in text
    assert "Answer the choice" in text
    ines.refresh_from_db()
    choice = ines.pending_choice
    assert choice is not None
    with django_capture_on_commit_callbacks(execute=True):
        resolution_answer_choice(
            character_id=ines.pk,
            actor=referee,
            by_referee=True,
            choice_id=choice["id"],
            option=choice["options"][0]["key"],
        )
    text = page.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "Resume the clock" in text
    assert ClockJob.objects.filter(campaign=campaign).count() == 2


# -- the state machine ------------------------------------------------------------------------
REFUSED = (RuleError, ActionBlocked, ResolutionConflict, NotAllowed, ValidationError)
RESUME_URL = re.compile(r'data-clock-resume="(?P<url>[^"]+)" data-job="(?P<job>\d+)"')
ANSWER_LINK = re.compile(r'href="/characters/(?P<character>\d+)/#choice">Answer the choice<')
HOLD = re.compile(r'data-clock-hold="(?P<job>\d+)" data-state="(?P<state>\w+)"')
QUEUED = re.compile(r'data-queued-job="(?P<job>\d+)"')


@dataclass(frozen=True)
class WayOn:
    """What the referee's dashboard offers to move the clock on (its clock status)."""

    hold: int | None  # the job the status is about
    state: str | None
    resume: tuple[str, int] | None  # the Resume button's address and job
    answer: int | None  # the character whose choice the "Answer the choice" link opens
    queued: list[int]  # the jobs listed as waiting behind it, in order
    clock_buttons: bool  # the advance buttons are offered


def way_on(client: Client, campaign: Campaign) -> WayOn:
    page = client.get(f"/campaigns/{campaign.pk}/")
    assert page.status_code == 200
    text = page.content.decode()
    hold, resume, answer = HOLD.search(text), RESUME_URL.search(text), ANSWER_LINK.search(text)
    return WayOn(
        hold=int(hold["job"]) if hold else None,
        state=hold["state"] if hold else None,
        resume=(resume["url"], int(resume["job"])) if resume else None,
        answer=int(answer["character"]) if answer else None,
        queued=[int(m["job"]) for m in QUEUED.finditer(text)],
        clock_buttons='name="step" value="60"' in text,
    )


@pytest.mark.slow
def test_the_page_always_shows_the_way_on(
    make_campaign, referee, player, web, client_for, django_capture_on_commit_callbacks
):
    """Random runs of advances, wounds (a dying character's hour ends on the referee's
    choice, CM-4), choices answered and cancelled, undos, resumes, live-clock switches
    and ticks, archiving: after every step no job is stopped or queued without the
    dashboard offering what moves it on, and once every choice is answered and the clock
    resumed from what the page offers, every job is done and the clock is where the
    advances asked (their minutes added up)."""
    page, api = web(referee), client_for(referee)
    runs = {"steps": 0}

    def act(call: Any, *args: Any, **kwargs: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            try:
                return call(*args, **kwargs)
            except REFUSED:
                return None

    class ClockStory(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.campaign = make_campaign("condition_monitor")
            membership = Membership.objects.get(campaign=self.campaign, user=player)
            self.party = [
                character_create(membership=membership, name=name, sheet={})
                for name in ("Ines", "Bo")
            ]
            self.now = timezone.now()

        @initialize(amount=st.sampled_from([0, 4]))
        def make_dying(self, amount: int) -> None:
            """Most runs start as the demo's story does: a character dying (CM-4)."""
            if amount:
                self.wound(0, amount, "lethal")

        def _who(self, index: int) -> Character:
            character = self.party[index % len(self.party)]
            character.refresh_from_db()
            return character

        @rule(minutes=st.sampled_from([10, 60, 240, 24 * 60, WEEK]))
        def advance(self, minutes: int) -> None:
            act(
                clock_advance_start,
                campaign_id=self.campaign.pk,
                minutes=minutes,
                requested_by=referee,
            )

        @rule(minutes=st.sampled_from([60, WEEK]))
        def advance_again(self, minutes: int) -> None:
            """A second way to advance: the referee advances more often than anything."""
            self.advance(minutes)

        @rule(
            who=st.integers(0, 1),
            amount=st.sampled_from([1, 2, 4, 4, 5, 9]),
            kind=st.sampled_from(["lethal", "aggravated", "normal"]),
        )
        def wound(self, who: int, amount: int, kind: str) -> None:
            act(
                resolution_create_action,
                character_id=self._who(who).pk,
                actor=referee,
                by_referee=True,
                action="damage",
                params={"amount": amount, "kind": kind, "soak_dice": 0},
            )

        @rule(who=st.integers(0, 1))
        def stabilize(self, who: int) -> None:
            act(
                resolution_create_action,
                character_id=self._who(who).pk,
                actor=referee,
                by_referee=True,
                action="stabilize",
                params={},
            )

        @rule(who=st.integers(0, 1), option=st.integers(0, 1))
        def answer(self, who: int, option: int) -> None:
            character = self._who(who)
            choice = character.pending_choice
            if choice is not None:
                act(
                    resolution_answer_choice,
                    character_id=character.pk,
                    actor=referee,
                    by_referee=True,
                    choice_id=choice["id"],
                    option=choice["options"][option % len(choice["options"])]["key"],
                )

        @rule(who=st.integers(0, 1))
        def cancel_choice(self, who: int) -> None:
            act(resolution_cancel_choice, character_id=self._who(who).pk, actor=referee)

        @rule(who=st.integers(0, 1), steps=st.integers(1, 3))
        def undo(self, who: int, steps: int) -> None:
            act(resolution_undo, character_id=self._who(who).pk, actor=referee, steps=steps)

        @rule(pick=st.integers(0, 5))
        def resume(self, pick: int) -> None:
            jobs = list(ClockJob.objects.filter(campaign=self.campaign).order_by("-id")[:6])
            if jobs:
                act(clock_job_resume, job_id=jobs[pick % len(jobs)].pk, actor=referee)

        @rule(ratio=st.sampled_from(["0", "1", "60"]))
        def live(self, ratio: str) -> None:
            act(
                clock_live_set,
                campaign_id=self.campaign.pk,
                ratio=Decimal(ratio),
                now=self.now,
                actor=referee,
            )

        @rule(minutes=st.sampled_from([1, 30, 90]))
        def tick(self, minutes: int) -> None:
            self.now += timedelta(minutes=minutes)
            act(clock_live_tick, now=self.now)

        @rule(back=st.booleans())
        def archive(self, back: bool) -> None:
            act(campaign_unarchive if back else campaign_archive, campaign_id=self.campaign.pk)

        @invariant()
        def the_page_offers_what_moves_the_clock(self) -> None:
            runs["steps"] += 1
            shown = way_on(page, self.campaign)
            self.campaign.refresh_from_db()
            # an archived campaign offers no advance its server would refuse (issue 34)
            assert shown.clock_buttons == (self.campaign.archived_at is None), shown
            unfinished = list(
                ClockJob.objects.filter(
                    campaign=self.campaign, state__in=UNFINISHED_JOB_STATES
                ).order_by("id")
            )
            if not unfinished:
                assert shown.hold is None or shown.state == "failed", shown
                return
            head, *behind = unfinished
            # in-process every job sent runs at once: what is left waits on a choice,
            # or is queued behind the job that does
            assert head.state == ClockJobState.WAITING, (head, head.state)
            assert all(job.state == ClockJobState.QUEUED for job in behind), behind
            assert (shown.hold, shown.state) == (head.pk, "waiting"), shown
            assert shown.queued == [job.pk for job in behind], shown
            waiting_on = head.waiting_on
            if waiting_on is not None and waiting_on.pending_choice is not None:
                assert shown.answer == waiting_on.pk, shown  # the choice to answer
                assert shown.resume is None, shown  # resuming would be refused
            else:
                assert shown.resume is not None and shown.resume[1] == head.pk, shown
            for job in behind:  # the API says what each waits for
                view = api.get(f"/api/v1/campaigns/{self.campaign.pk}/clock/jobs/{job.pk}/")
                assert view.json()["waits_for"] == head.pk

        def teardown(self) -> None:
            # answer every choice and resume the clock from what the page offers, alone
            for _ in range(40):
                shown = way_on(page, self.campaign)
                if shown.answer is not None:
                    character = Character.objects.get(pk=shown.answer)
                    choice = character.pending_choice
                    assert choice is not None
                    with django_capture_on_commit_callbacks(execute=True):
                        resolution_answer_choice(
                            character_id=character.pk,
                            actor=referee,
                            by_referee=True,
                            choice_id=choice["id"],
                            option=choice["options"][0]["key"],
                        )
                elif shown.resume is not None:
                    with django_capture_on_commit_callbacks(execute=True):
                        answer = api.post(shown.resume[0])
                    assert answer.status_code == 202, answer.content
                else:
                    break
            jobs = ClockJob.objects.filter(campaign=self.campaign)
            assert not jobs.exclude(state=ClockJobState.DONE).exists(), list(
                jobs.values_list("pk", "kind", "state", "reason")
            )
            self.campaign.refresh_from_db()
            assert self.campaign.clock == sum(jobs.values_list("minutes", flat=True))
            act(clock_live_set, campaign_id=self.campaign.pk, ratio=Decimal(0), now=self.now)

    run_state_machine_as_test(
        ClockStory,
        settings=settings(
            max_examples=20,
            stateful_step_count=10,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )
    assert runs["steps"] > 0


def test_resuming_a_job_queued_behind_a_stopped_one_says_which_to_resume(
    make_campaign, referee, player, client_for, django_capture_on_commit_callbacks
):
    """The job to resume is the stopped one; the one queued behind it follows (409, in
    words, and nothing is logged)."""
    campaign = make_campaign("condition_monitor")
    dying(campaign, player)
    with django_capture_on_commit_callbacks(execute=True):
        first = clock_advance_start(campaign_id=campaign.pk, minutes=WEEK, requested_by=referee)
        second = clock_advance_start(campaign_id=campaign.pk, minutes=WEEK, requested_by=referee)
    api = client_for(referee)
    jobs = f"/api/v1/campaigns/{campaign.pk}/clock/jobs/"
    assert api.get(f"{jobs}{second.pk}/").json()["waits_for"] == first.pk
    assert [j["waits_for"] for j in api.get(jobs).json()] == [first.pk, None]
    refused = api.post(f"{jobs}{second.pk}/resume/")
    assert refused.status_code == 409
    assert f"behind clock job {first.pk}, which stopped on a choice" in refused.json()["detail"]
    assert not ClockEntry.objects.filter(campaign=campaign, kind=ClockEntryKind.RESUME).exists()
