"""Condition monitor's clocks on the real campaign clock (rulings CM-4, CM-5, G-1, G-3).

A terminal wound kills five in-game minutes after it was taken unless stabilized
first; a dying character not stabilized within the hour leaves the referee a choice.
The characters are wounded through the resolution service with no soak (``soak_dice``
0, so the net damage is the amount and no die is rolled), then the clock is advanced
by the clock service as the Celery task runs it. Given / when / then, exact values.
"""

from __future__ import annotations

import pytest

from campaigns.models import Campaign, Membership
from characters.models import Character
from core.errors import NotAllowed
from rules.clock.services import clock_advance_run, clock_job_resume
from rules.clock.tests.clock_helpers import assert_whole, effect_resolutions, run_job
from rules.log.models import ScheduledEffect
from rules.play.services import character_create, resolution_answer_choice, resolution_create_action

pytestmark = pytest.mark.django_db


@pytest.fixture
def cm_campaign(make_campaign):
    return make_campaign("condition_monitor")


def character(campaign: Campaign, owner, name: str) -> Character:
    membership = Membership.objects.get(campaign=campaign, user=owner)
    return character_create(membership=membership, name=name, sheet={})


def act(campaign: Campaign, who: Character, action: str, params: dict, *, referee=True):
    user = campaign.memberships.get(role="referee").user if referee else who.owner
    resolution = resolution_create_action(
        character_id=who.pk, actor=user, by_referee=referee, action=action, params=params
    )
    who.refresh_from_db()
    return resolution


def wound(campaign: Campaign, who: Character, net: int, kind: str) -> None:
    act(campaign, who, "damage", {"amount": net, "kind": kind, "soak_dice": 0})


def applied(campaign: Campaign) -> list[tuple[int, str, str]]:
    return [(r.clock, r.character.name, r.action) for r in effect_resolutions(campaign)]


def effect_states(who: Character) -> list[tuple[str, int, str]]:
    return [
        (e.kind, e.due_at, e.state)
        for e in ScheduledEffect.objects.filter(character=who).order_by("id")
    ]


def test_cm5_a_terminal_wound_stabilized_at_four_minutes_is_spared(cm_campaign, player):
    # given Ada takes a terminal wound (net 5) at minute 0
    ada = character(cm_campaign, player, "Ada")
    wound(cm_campaign, ada, 5, "normal")
    assert (ada.sheet["state"], ada.sheet["terminal_until"]) == ("terminal", 5)
    assert effect_states(ada) == [("terminal_wound", 5, "pending")]

    # when four minutes pass and her player stabilizes her
    run_job(cm_campaign, 4)
    ada.refresh_from_db()
    assert ada.sheet["state"] == "terminal"
    stabilized = act(cm_campaign, ada, "stabilize", {}, referee=False)
    assert stabilized.clock == 4

    # then the terminal clock is cancelled and an hour later she is still incapacitated
    assert ada.sheet["state"] == "incapacitated"
    assert effect_states(ada) == [("terminal_wound", 5, "cancelled")]
    run_job(cm_campaign, 60)
    ada.refresh_from_db()
    assert ada.sheet["state"] == "incapacitated"
    assert applied(cm_campaign) == []
    assert_whole(cm_campaign)


def test_cm5_a_terminal_wound_kills_at_five_minutes_once(cm_campaign, player):
    # given Bo takes a terminal wound at minute 10
    bo = character(cm_campaign, player, "Bo")
    run_job(cm_campaign, 10)
    wound(cm_campaign, bo, 6, "lethal")

    # when the clock passes minute 15 in one long advance
    run_job(cm_campaign, 50)

    # then he died at minute 15, exactly once, and the clock ran on to 60
    bo.refresh_from_db()
    cm_campaign.refresh_from_db()
    assert bo.sheet["state"] == "dead"
    assert applied(cm_campaign) == [(15, "Bo", "terminal_wound")]
    (death,) = effect_resolutions(cm_campaign)
    assert death.summary == "Bo: Dies: the terminal wound was not stabilized in time."
    assert cm_campaign.clock == 60
    run_job(cm_campaign, 60)
    assert len(applied(cm_campaign)) == 1
    assert_whole(cm_campaign)


def test_cm4_stabilized_within_the_hour_the_dying_clock_never_applies(cm_campaign, player):
    cy = character(cm_campaign, player, "Cy")
    wound(cm_campaign, cy, 4, "lethal")  # every box lethal: dying until minute 60
    assert (cy.sheet["state"], cy.sheet["dying_until"]) == ("dying", 60)
    run_job(cm_campaign, 59)
    act(cm_campaign, cy, "stabilize", {})
    run_job(cm_campaign, 120)
    cy.refresh_from_db()
    assert cy.sheet["state"] == "incapacitated"
    assert effect_states(cy) == [("dying_hour", 60, "cancelled")]
    assert applied(cm_campaign) == []


@pytest.mark.parametrize(("option", "state"), [("stabilizes", "incapacitated"), ("dies", "dead")])
def test_cm4_the_hour_passes_in_time_order_and_the_referee_answers(
    cm_campaign, player, other_player, referee, option, state
):
    # given Dee starts dying at minute 0 and Eli takes a terminal wound at minute 30
    dee = character(cm_campaign, player, "Dee")
    eli = character(cm_campaign, other_player, "Eli")
    wound(cm_campaign, dee, 4, "aggravated")
    run_job(cm_campaign, 30)
    wound(cm_campaign, eli, 5, "normal")

    # when the referee advances three hours
    job = run_job(cm_campaign, 180)

    # then Eli dies at 35, and at 60 the clock stops on the referee's choice for Dee
    cm_campaign.refresh_from_db()
    dee.refresh_from_db()
    assert applied(cm_campaign) == [(35, "Eli", "terminal_wound"), (60, "Dee", "dying_hour")]
    assert (job.state, job.waiting_on, cm_campaign.clock) == ("waiting", dee, 60)
    assert dee.sheet["state"] == "dying"
    choice = dee.pending_choice
    assert choice is not None
    assert (choice["kind"], choice["who"]) == ("dying_hour", "referee")
    assert [o["key"] for o in choice["options"]] == ["stabilizes", "dies"]

    # when her player tries to answer: only the referee may (ruling CM-4)
    with pytest.raises(NotAllowed):
        resolution_answer_choice(
            character_id=dee.pk,
            actor=player,
            by_referee=False,
            choice_id=choice["id"],
            option="stabilizes",
        )

    # when the referee answers and resumes the clock
    answer = resolution_answer_choice(
        character_id=dee.pk, actor=referee, by_referee=True, choice_id=choice["id"], option=option
    )
    assert answer.clock == 60
    clock_job_resume(job_id=job.pk)
    clock_advance_run(job_id=job.pk)

    # then Dee is as the referee said and the clock reaches its target, nothing re-applied
    job.refresh_from_db()
    dee.refresh_from_db()
    cm_campaign.refresh_from_db()
    assert dee.sheet["state"] == state
    assert dee.pending_choice is None
    assert (job.state, cm_campaign.clock) == ("done", 210)
    assert len(applied(cm_campaign)) == 2
    assert_whole(cm_campaign)
