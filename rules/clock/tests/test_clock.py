"""The campaign clock's advance (rules.clock.services): time order, exactly once, choices,
determinism.

Hit dice wounds that worsen (ruling HD-7) are the scheduled effects: with DC 1 and +50
saves each worsening passes both saves and adds a minor wound; with DC 100 the strength
save always fails, which offers a choice (G-3) or, at full major wound marks, kills
(HD-5). Given / when / then, exact values.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from campaigns.models import Campaign
from characters.models import Character
from core.errors import ResolutionConflict
from rules.clock.models import ClockJob
from rules.clock.services import (
    _advance_batch,
    clock_advance_run,
    clock_advance_start,
    clock_job_resume,
)
from rules.clock.tasks import advance_clock
from rules.clock.tests.clock_helpers import (
    FIXED_SEED,
    assert_whole,
    effect_resolutions,
    effect_rows,
    log_of,
    run_job,
    twin_campaign,
    wounded,
)
from rules.engine.registry import get_ruleset
from rules.log.models import Resolution, ResolutionKind, ScheduledEffect
from rules.log.selectors import effects_for_viewer
from rules.play.services import (
    Step,
    character_create,
    resolution_answer_choice,
    resolution_create_action,
    run_step,
)

pytestmark = pytest.mark.django_db


def minutes_and_names(campaign: Campaign) -> list[tuple[int, str]]:
    return [(r.clock, r.character.name) for r in effect_resolutions(campaign)]


def effect_step(effect: ScheduledEffect) -> Step:
    """The engine step that applies ``effect``, as the clock does."""
    return lambda rs, sheet, dice, ctx: rs.apply_effect(
        sheet, effect.kind, effect.payload, dice, ctx
    )


def pending(campaign: Campaign) -> list[tuple[str, int]]:
    return [
        (e.character.name, e.due_at)
        for e in ScheduledEffect.objects.filter(campaign=campaign, state="pending")
        .select_related("character")
        .order_by("due_at", "id")
    ]


# -- time order, the queue, the log ----------------------------------------------------------
def test_effects_apply_in_due_order_across_the_party_and_new_ones_join_the_queue(
    campaign, player, other_player
):
    # given Aldo's wound worsens every hour, Bea's every 45 minutes (ruling HD-7)
    wounded(campaign, player, "Aldo", every=60)
    wounded(campaign, other_player, "Bea", every=45)

    # when the referee advances three hours
    job = run_job(campaign, 180)

    # then every worsening due by 180 applies once, in time order across the party,
    # including those the earlier worsenings scheduled; at 180 Aldo's (scheduled first) leads
    assert minutes_and_names(campaign) == [
        (45, "Bea"),
        (60, "Aldo"),
        (90, "Bea"),
        (120, "Aldo"),
        (135, "Bea"),
        (180, "Aldo"),
        (180, "Bea"),
    ]
    assert pending(campaign) == [("Bea", 225), ("Aldo", 240)]
    campaign.refresh_from_db()
    assert campaign.clock == 180
    assert (job.state, job.done, job.total) == ("done", 7, 7)
    assert (job.clock_start, job.target, job.clock_reached) == (0, 180, 180)
    assert job.finished_at is not None
    assert_whole(campaign)


def test_each_effect_is_a_logged_resolution_stamped_with_its_own_minute(campaign, player):
    aldo = wounded(campaign, player, "Aldo", every=60)
    first = ScheduledEffect.objects.get(character=aldo, state="pending")

    run_job(campaign, 130)

    first.refresh_from_db()
    one, two = effect_resolutions(campaign)
    assert first.state == "done"
    assert first.resolution == one
    assert one.kind == ResolutionKind.EFFECT
    assert one.action == "wound_worsens"
    assert one.params == {"scheduled_effect": first.pk, "payload": {"wound": 1}}
    assert one.actor is None  # the clock applied it
    assert (one.clock, two.clock) == (60, 120)
    assert (one.version, two.version) == (3, 4)  # created, described, then the worsenings
    assert [roll["label"] for roll in one.rolls] == [
        "Strength injury save vs DC 1",
        "Will injury save vs DC 1",
    ]
    strength, will = (roll["dice"][0] for roll in one.rolls)
    assert one.summary == (
        f"Aldo: Wound 1 worsens: strength injury save {strength}+50={strength + 50} vs DC 1 "
        f"passes; will injury save {will}+50={will + 50} vs DC 1 passes; minor wound 2: Wound "
        "1 worsened: -2 to heavy physical tasks until the next long rest; it worsens again in "
        "60 minutes unless treated."
    )
    assert [w["id"] for w in one.sheet_after["wounds"]] == [1, 2]
    assert [w["id"] for w in two.sheet_after["wounds"]] == [1, 2, 3]
    # the dice counter runs on from one resolution to the next
    assert one.dice_counter_start < one.dice_counter_end == two.dice_counter_start
    created_next = ScheduledEffect.objects.get(created_by=one)
    assert (created_next.due_at, created_next.state, created_next.resolution) == (120, "done", two)


def test_the_batched_advance_writes_what_run_step_writes_one_effect_at_a_time(
    campaign, player, other_player, settings
):
    # given two campaigns with the same seed and the same party
    twin = twin_campaign(campaign)
    for world in (campaign, twin):
        wounded(world, player, "Aldo", every=50)
        wounded(world, other_player, "Bea", every=70, level=1, marks=1, dc=20, strength=5)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 7

    # when one advances with the clock and the other applies each effect through run_step
    run_job(campaign, 600)
    ruleset = get_ruleset("hit_dice")
    while (
        effect := ScheduledEffect.objects.filter(campaign=twin, state="pending", due_at__lte=600)
        .order_by("due_at", "id")
        .first()
    ):
        with transaction.atomic():
            locked = Campaign.objects.select_for_update().get(pk=twin.pk)
            character = Character.objects.select_for_update().get(pk=effect.character_id)
            resolution = run_step(
                campaign=locked,
                character=character,
                step=effect_step(effect),
                kind=ResolutionKind.EFFECT,
                action=effect.kind,
                params={"scheduled_effect": effect.pk, "payload": effect.payload},
                actor=None,
                by_referee=True,
                clock=effect.due_at,
            )
            # persist_result cancels the keys the result names, which on a death includes this
            # effect's own: it was applied all the same.
            ScheduledEffect.objects.filter(pk=effect.pk).update(state="done", resolution=resolution)
    assert ruleset.key == "hit_dice"

    # then both logs, sheets and effect rows are the same, roll for roll
    log = log_of(campaign)
    assert log == log_of(twin)
    # with this seed Bea's first worsening kills her (HD-5), cancelling its own key
    assert [(entry[0], entry[3]) for entry in log if entry[7]["state"] == "dead"] == [("Bea", 70)]
    assert len(log) == 12 + 1
    assert effect_rows(campaign) == effect_rows(twin)
    assert [(c.name, c.sheet, c.version) for c in campaign.characters.order_by("name")] == [
        (c.name, c.sheet, c.version) for c in twin.characters.order_by("name")
    ]


# -- determinism ------------------------------------------------------------------------------
def _party(campaign, player, other_player):
    wounded(campaign, player, "Aldo", every=50)
    wounded(campaign, other_player, "Bea", every=90)
    wounded(campaign, player, "Cid", every=240, wounds=2, every_others=100)
    # Dora and Eve are at full major wound marks: their first worsening kills (HD-5) and
    # cancels their other wound's worsening, due later (Dora: past the window).
    wounded(
        campaign,
        other_player,
        "Dora",
        every=300,
        level=1,
        marks=1,
        dc=100,
        wounds=2,
        every_others=5000,
    )
    wounded(
        campaign, player, "Eve", every=100, level=1, marks=1, dc=100, wounds=2, every_others=150
    )


@pytest.mark.slow
def test_three_days_at_once_or_in_72_hourly_steps_apply_the_same_effects_and_rolls(
    campaign, player, other_player, settings
):
    # given two campaigns with the same seed and party
    twin = twin_campaign(campaign)
    _party(campaign, player, other_player)
    _party(twin, player, other_player)

    # when one advances three days at once and the other in 72 one-hour steps, in
    # batches of three effects
    whole = run_job(campaign, 3 * 24 * 60)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 3
    steps = [run_job(twin, 60) for _ in range(72)]

    # then the same effects apply at the same minutes with the same rolls and sheets
    assert log_of(campaign) == log_of(twin)
    assert effect_rows(campaign) == effect_rows(twin)
    assert whole.done == sum(step.done for step in steps) == 86 + 48 + 18 + 43 + 1 + 1
    assert [s.target for s in steps] == [60 * (i + 1) for i in range(72)]
    twin.refresh_from_db()
    campaign.refresh_from_db()
    assert campaign.clock == twin.clock == 4320
    assert campaign.dice_counter == twin.dice_counter
    # the deaths cancelled the other wounds' worsenings, in the window (Eve) or past it
    assert ScheduledEffect.objects.filter(campaign=campaign, state="cancelled").count() == 2
    deaths = [r.clock for r in effect_resolutions(campaign) if r.sheet_after["state"] == "dead"]
    assert deaths == [100, 300]
    assert_whole(campaign)
    assert_whole(twin)


# -- choices stop the clock (ruling G-3) ------------------------------------------------------
def test_catch_up_stops_at_a_choice_and_the_referee_resumes_once_it_is_answered(
    campaign, player, other_player, referee
):
    # given Aldo's wound worsens every 30 minutes (passing), Cato's every hour (failing:
    # DC 100, the player must choose death or a major wound)
    wounded(campaign, other_player, "Aldo", every=30)
    cato = wounded(campaign, player, "Cato", every=60, dc=100, strength=10)

    # when the referee advances five hours
    job = run_job(campaign, 300)

    # then the clock stops at minute 60, after Cato's worsening ended on the choice
    campaign.refresh_from_db()
    cato.refresh_from_db()
    assert campaign.clock == 60
    assert job.state == "waiting"
    assert job.waiting_on == cato
    assert job.reason == (
        "Cato has a choice to make after “wound 1 worsens” (The strength injury save vs "
        "DC 100 failed: die outright, or take a major wound?). Answer it, then resume."
    )
    assert (job.done, job.total, job.clock_reached, job.target) == (2, 4, 60, 300)
    assert minutes_and_names(campaign) == [(30, "Aldo"), (60, "Cato")]
    assert cato.pending_choice is not None
    assert cato.pending_choice["kind"] == "death_or_major_wound"

    # when the referee resumes before the choice is answered: 409, nothing moves
    with pytest.raises(ResolutionConflict, match="Cato still waits on a choice"):
        clock_job_resume(job_id=job.pk)
    job.refresh_from_db()
    assert job.state == "waiting"

    # when the player takes the major wound (at minute 60) and the referee resumes
    answer = resolution_answer_choice(
        character_id=cato.pk,
        actor=player,
        by_referee=False,
        choice_id=cato.pending_choice["id"],
        option="major_wound",
    )
    assert answer.clock == 60
    clock_job_resume(job_id=job.pk)
    clock_advance_run(job_id=job.pk)

    # then it runs on to Cato's next worsening at 120, which stops it again
    job.refresh_from_db()
    cato.refresh_from_db()
    assert (job.state, job.clock_reached, job.done) == ("waiting", 120, 5)
    assert minutes_and_names(campaign)[2:] == [(60, "Aldo"), (90, "Aldo"), (120, "Cato")]

    # when Cato chooses death (his wounds stop worsening) and the referee resumes
    assert cato.pending_choice is not None
    resolution_answer_choice(
        character_id=cato.pk,
        actor=referee,
        by_referee=True,
        choice_id=cato.pending_choice["id"],
        option="death",
    )
    clock_job_resume(job_id=job.pk)
    clock_advance_run(job_id=job.pk)

    # then the job reaches its original target
    job.refresh_from_db()
    campaign.refresh_from_db()
    assert (job.state, job.reason, job.waiting_on_id) == ("done", "", None)
    assert campaign.clock == 300
    assert [m for m, name in minutes_and_names(campaign) if name == "Aldo"] == list(
        range(30, 301, 30)
    )
    assert [m for m, name in minutes_and_names(campaign) if name == "Cato"] == [60, 120]
    assert ScheduledEffect.objects.get(character=cato, due_at=180).state == "cancelled"
    assert (job.done, job.total) == (12, 12)
    assert_whole(campaign)


def test_an_effect_due_for_a_character_waiting_on_a_choice_stops_the_clock_before_it(
    campaign, player, other_player, referee
):
    # given Aldo waits on a choice (an effect bypasses his hit points, HD-8)
    aldo = wounded(campaign, player, "Aldo", every=60)
    wounded(campaign, other_player, "Bea", every=45)
    resolution_create_action(
        character_id=aldo.pk,
        actor=referee,
        by_referee=True,
        action="bypass",
        params={"damage": 3, "attacker_level": 1},
    )
    aldo.refresh_from_db()
    version = aldo.version

    # when the referee advances two hours
    job = run_job(campaign, 120)

    # then Bea's worsening at 45 applies; Aldo's at 60 does not (ruling G-3): the clock
    # stops at 60 and says why
    aldo.refresh_from_db()
    campaign.refresh_from_db()
    assert minutes_and_names(campaign) == [(45, "Bea")]
    assert (job.state, job.done, job.clock_reached, campaign.clock) == ("waiting", 1, 60, 60)
    assert job.reason.startswith("Aldo waits on a choice (An effect bypasses hit points")
    assert job.reason.endswith("before “wound 1 worsens” can happen. Answer it, then resume.")
    assert aldo.version == version
    assert ScheduledEffect.objects.get(character=aldo, due_at=60).state == "pending"


# -- exactly once -----------------------------------------------------------------------------
def test_a_retried_or_duplicated_task_applies_nothing_twice(campaign, player):
    wounded(campaign, player, "Aldo", every=60)
    job = run_job(campaign, 180)
    log = log_of(campaign)

    # when the task is delivered again, twice
    clock_advance_run(job_id=job.pk)
    advance_clock(job.pk)

    # then nothing changes
    job.refresh_from_db()
    campaign.refresh_from_db()
    assert log_of(campaign) == log
    assert len(log) == 3
    assert (job.state, job.done, campaign.clock) == ("done", 3, 180)


def test_two_advances_asked_at_once_run_one_after_the_other_and_add_up(campaign, player):
    # given two one-hour advances asked for at once (their tasks not run yet)
    wounded(campaign, player, "Aldo", every=60)
    first = clock_advance_start(campaign_id=campaign.pk, minutes=60)
    second = clock_advance_start(campaign_id=campaign.pk, minutes=60)

    # when the second job's task happens to run first
    clock_advance_run(job_id=second.pk)

    # then the first job runs before it, and each moves the clock one hour
    first.refresh_from_db()
    second.refresh_from_db()
    campaign.refresh_from_db()
    assert (first.state, first.clock_start, first.target, first.done) == ("done", 0, 60, 1)
    assert (second.state, second.clock_start, second.target, second.done) == ("done", 60, 120, 1)
    assert campaign.clock == 120
    assert minutes_and_names(campaign) == [(60, "Aldo"), (120, "Aldo")]

    # and the first task, delivered later, finds nothing left to do
    clock_advance_run(job_id=first.pk)
    assert len(log_of(campaign)) == 2


def test_a_job_behind_one_waiting_on_a_choice_waits_its_turn(campaign, player, referee):
    aldo = wounded(campaign, player, "Aldo", every=60)
    resolution_create_action(
        character_id=aldo.pk,
        actor=referee,
        by_referee=True,
        action="bypass",
        params={"damage": 3, "attacker_level": 1},
    )
    first = run_job(campaign, 100)
    second = run_job(campaign, 30)

    assert first.state == "waiting"
    assert (second.state, second.target, second.done) == ("queued", None, 0)
    aldo.refresh_from_db()
    assert aldo.pending_choice is not None
    resolution_answer_choice(
        character_id=aldo.pk,
        actor=player,
        by_referee=False,
        choice_id=aldo.pending_choice["id"],
        option="pay",
    )
    clock_job_resume(job_id=first.pk)
    clock_advance_run(job_id=second.pk)

    first.refresh_from_db()
    second.refresh_from_db()
    campaign.refresh_from_db()
    assert (first.state, first.target) == ("done", 100)
    assert (second.state, second.clock_start, second.target) == ("done", 100, 130)
    assert campaign.clock == 130
    assert minutes_and_names(campaign) == [(60, "Aldo"), (120, "Aldo")]


def test_the_same_request_id_gives_the_same_job(campaign, player):
    wounded(campaign, player, "Aldo", every=60)
    one = clock_advance_start(campaign_id=campaign.pk, minutes=60, request_id="abc")
    again = clock_advance_start(campaign_id=campaign.pk, minutes=60, request_id="abc")
    other = clock_advance_start(campaign_id=campaign.pk, minutes=60, request_id="abd")

    assert one.pk == again.pk != other.pk
    assert ClockJob.objects.filter(campaign=campaign).count() == 2


class Killed(BaseException):
    """What a SIGKILL looks like from inside: nothing after it runs in this process."""


def test_a_batch_killed_midway_leaves_whole_effects_and_the_rerun_finishes_the_job(
    campaign, player, other_player, settings, monkeypatch
):
    # given a twin campaign that advances undisturbed, as the reference
    twin = twin_campaign(campaign)
    for world in (campaign, twin):
        wounded(world, player, "Aldo", every=30)
        wounded(world, other_player, "Bea", every=40)
    run_job(twin, 400)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 2
    ruleset = get_ruleset("hit_dice")
    apply_effect = ruleset.apply_effect
    calls = []

    def dying(*args, **kwargs):
        calls.append(1)
        if len(calls) == 5:  # in the third batch: after 4 effects were committed
            raise Killed
        return apply_effect(*args, **kwargs)

    monkeypatch.setattr(ruleset, "apply_effect", dying)
    job = clock_advance_start(campaign_id=campaign.pk, minutes=400)

    # when the process dies in the middle of the third batch
    with pytest.raises(Killed):
        clock_advance_run(job_id=job.pk)

    # then exactly the first two batches are applied, whole, and the job says so
    job.refresh_from_db()
    campaign.refresh_from_db()
    assert minutes_and_names(campaign) == [(30, "Aldo"), (40, "Bea"), (60, "Aldo"), (80, "Bea")]
    assert (job.state, job.done, job.clock_reached) == ("running", 4, 80)
    assert campaign.clock == 80
    assert_whole(campaign)

    # when the task runs again (a redelivery)
    monkeypatch.setattr(ruleset, "apply_effect", apply_effect)
    advance_clock(job.pk)

    # then it finishes the job exactly as the undisturbed run did
    job.refresh_from_db()
    assert (job.state, job.done, job.total) == ("done", 13 + 10, 23)
    assert log_of(campaign) == log_of(twin)
    assert effect_rows(campaign) == effect_rows(twin)
    assert_whole(campaign)


def test_an_effect_changed_under_a_batch_undoes_the_batch_by_compare_and_set(
    campaign, player, monkeypatch
):
    # given something else cancels the effects while the batch applies them
    wounded(campaign, player, "Aldo", every=60)
    ruleset = get_ruleset("hit_dice")
    apply_effect = ruleset.apply_effect

    def meddling(*args, **kwargs):
        ScheduledEffect.objects.filter(campaign=campaign, state="pending").update(state="cancelled")
        return apply_effect(*args, **kwargs)

    monkeypatch.setattr(ruleset, "apply_effect", meddling)

    # when the clock advances
    job = run_job(campaign, 60)

    # then the compare-and-set finds 0 of 1 effects still pending: the whole batch is
    # rolled back (its meddling too), nothing is applied, and the job failed
    assert job.state == "failed"
    assert job.reason == ("failed: ClockConflict: 1 effects were no longer pending; batch undone")
    assert job.finished_at is not None
    assert effect_resolutions(campaign).count() == 0
    assert pending(campaign) == [("Aldo", 60)]
    campaign.refresh_from_db()
    assert campaign.clock == 0

    # when the referee resumes it with the meddling gone, it finishes
    monkeypatch.setattr(ruleset, "apply_effect", apply_effect)
    clock_job_resume(job_id=job.pk)
    clock_advance_run(job_id=job.pk)
    job.refresh_from_db()
    assert (job.state, job.done) == ("done", 1)
    assert minutes_and_names(campaign) == [(60, "Aldo")]


def test_an_unexpected_error_fails_the_job_and_keeps_the_batch_out(campaign, player, monkeypatch):
    wounded(campaign, player, "Aldo", every=60)
    ruleset = get_ruleset("hit_dice")

    def broken(*args, **kwargs):
        raise KeyError("wounds")

    monkeypatch.setattr(ruleset, "apply_effect", broken)
    job = run_job(campaign, 120)

    assert (job.state, job.reason, job.done) == ("failed", "failed: KeyError: 'wounds'", 0)
    assert effect_resolutions(campaign).count() == 0
    assert pending(campaign) == [("Aldo", 60)]


def test_the_database_holds_one_resolution_per_effect_and_none_on_pending_effects(campaign, player):
    wounded(campaign, player, "Aldo", every=60)
    run_job(campaign, 60)
    applied = effect_resolutions(campaign).get()
    following = ScheduledEffect.objects.get(campaign=campaign, state="pending")

    # a second resolution for the same effect is refused
    duplicate = Resolution(
        **{
            f.attname: getattr(applied, f.attname)
            for f in Resolution._meta.concrete_fields
            if f.attname not in ("id", "version", "created_at")
        },
        version=applied.version + 1,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        duplicate.save()
    # a pending effect cannot carry a resolution, nor a done one lack it
    with pytest.raises(IntegrityError), transaction.atomic():
        ScheduledEffect.objects.filter(pk=following.pk).update(resolution=applied)
    with pytest.raises(IntegrityError), transaction.atomic():
        ScheduledEffect.objects.filter(pk=following.pk).update(state="done")


def test_an_effect_the_ruleset_refuses_is_cancelled_and_listed_on_the_job(campaign, player):
    # given an effect for a wound Aldo does not have (its wound was undone, say)
    aldo = wounded(campaign, player, "Aldo", every=60)
    stray = ScheduledEffect.objects.create(
        campaign=campaign, character=aldo, kind="wound_worsens", due_at=30, payload={"wound": 9}
    )

    job = run_job(campaign, 60)

    stray.refresh_from_db()
    assert stray.state == "cancelled"
    assert stray.resolution is None
    assert job.skipped == [
        {
            "effect": stray.pk,
            "kind": "wound_worsens",
            "character": aldo.pk,
            "due_at": 30,
            "error": "The character has no wound 9.",
        }
    ]
    assert (job.state, job.done, job.total) == ("done", 2, 2)
    assert minutes_and_names(campaign) == [(60, "Aldo")]
    assert_whole(campaign)


def test_progress_counts_the_effects_that_join_the_window(campaign, player, settings):
    wounded(campaign, player, "Aldo", every=60)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 1
    job = clock_advance_start(campaign_id=campaign.pk, minutes=180)

    seen = []
    while _advance_batch(job.pk):
        job.refresh_from_db()
        seen.append((job.state, job.done, job.total, job.clock_reached))
    job.refresh_from_db()
    seen.append((job.state, job.done, job.total, job.clock_reached))

    # The batch that applies the last effect due ends the job: nothing is left by its
    # target (the worsening it schedules falls due at 240), no empty batch follows.
    assert seen == [
        ("running", 1, 2, 60),
        ("running", 2, 3, 120),
        ("done", 3, 3, 180),
    ]


def test_embedded_mode_runs_the_advance_in_process_after_commit(
    campaign, player, django_capture_on_commit_callbacks
):
    # no Redis: CELERY_TASK_ALWAYS_EAGER, the task runs when the job's transaction commits
    wounded(campaign, player, "Aldo", every=60)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        job = clock_advance_start(campaign_id=campaign.pk, minutes=120)
    job.refresh_from_db()

    assert len(callbacks) == 1
    assert (job.state, job.done) == ("done", 2)
    assert minutes_and_names(campaign) == [(60, "Aldo"), (120, "Aldo")]


def test_a_disease_makes_its_saves_on_the_clock_every_interval(make_campaign, player, referee):
    # given an old_school character catches Green River Fever in secret (OS-6, G-4):
    # a week's incubation, then a save vs poison every 4 hours for 3 days
    campaign = make_campaign("old_school", track_sleep=False)
    campaign.dice_seed = FIXED_SEED
    campaign.save(update_fields=["dice_seed"])
    membership = campaign.memberships.get(user=player)
    # Intelligence 18: even 17 failed saves (a point lost each) would not kill her
    patient = character_create(
        membership=membership, name="Patient", sheet={"resting": True, "intelligence": 18}
    )
    resolution_create_action(
        character_id=patient.pk,
        actor=referee,
        by_referee=True,
        action="contract_disease",
        params={"disease": "Green River Fever", "hidden": True},
    )
    first = ScheduledEffect.objects.get(character=patient, kind="disease_save")
    assert (first.due_at, first.hidden) == (7 * 24 * 60, True)
    # the player does not see the secret save coming (ruling G-4)
    assert not effects_for_viewer(campaign, viewer_id=player.pk, viewer_is_referee=False).filter(
        kind="disease_save"
    )

    # when the referee advances ten days
    job = run_job(campaign, 10 * 24 * 60)

    # then the 18 saves were made, one every four hours from the end of the incubation
    saves = Resolution.objects.filter(character=patient, action="disease_save").order_by("clock")
    assert [r.clock for r in saves] == [7 * 24 * 60 + 240 * k for k in range(18)]
    assert [r.params["payload"]["n"] for r in saves] == list(range(1, 19))
    assert job.state == "done"
    assert not ScheduledEffect.objects.filter(
        character=patient, kind="disease_save", state="pending"
    ).exists()
    assert_whole(campaign)
