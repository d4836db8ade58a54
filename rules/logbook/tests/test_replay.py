"""Replay (rules/logbook/replay.py, ``manage.py replay_check``): the log gives the stored sheets."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaigns.models import Campaign
from characters.models import Character
from rules.clock.services import clock_advance_run, clock_job_resume
from rules.clock.tests.clock_helpers import play_session, run_job, wounded
from rules.log.models import Resolution
from rules.play.editing import (
    character_correct,
    character_level_up,
    character_rename,
    character_retire,
)
from rules.play.services import (
    resolution_answer_choice,
    resolution_cancel_choice,
    resolution_create_action,
)
from rules.play.undo import resolution_redo, resolution_undo, resolution_undo_latest

pytestmark = pytest.mark.django_db


def replay(*ids: int) -> str:
    out = io.StringIO()
    call_command("replay_check", *[str(i) for i in ids], stdout=out)
    return out.getvalue()


def test_the_demo_replays_to_its_stored_sheets_after_a_long_advance(settings):
    settings.SAWBONES_EMBEDDED = True
    call_command("seed_demo", stdout=io.StringIO())
    campaigns = list(Campaign.objects.order_by("pk"))
    assert len(campaigns) >= 5
    # the session goes on: blows, rests and a fever, so the advance has dice to roll
    play_session()
    # a month of the clock for every demo campaign (diseases, wounds, sleep, aging...)
    for campaign in campaigns:
        job = run_job(campaign, 30 * 24 * 60)
        while job.state == "waiting":  # a choice on the way (G-3): the referee cancels it
            assert job.waiting_on_id is not None
            resolution_cancel_choice(character_id=job.waiting_on_id, actor=None)
            clock_job_resume(job_id=job.pk)
            clock_advance_run(job_id=job.pk)
            job.refresh_from_db()
    effects = Resolution.objects.filter(kind="effect").count()
    assert effects > 20  # the dice are the demo's own (random seeds): at least this many
    assert Resolution.objects.exclude(rolls=[]).count() > 20

    output = replay()

    lines = output.strip().splitlines()
    assert len(lines) == len(campaigns)
    assert all(line.endswith(", 0 divergences") for line in lines), output
    print(output)


def test_actions_choices_undo_redo_edits_and_effects_replay(campaign, player, referee):
    aldo = wounded(campaign, player, "Aldo", every=60)
    cato = wounded(campaign, player, "Cato", every=60, dc=100, strength=10)
    job = run_job(campaign, 180)
    assert job.state == "waiting"
    cato.refresh_from_db()
    assert cato.pending_choice is not None
    resolution_answer_choice(
        character_id=cato.pk,
        actor=player,
        by_referee=False,
        choice_id=cato.pending_choice["id"],
        option="major_wound",
    )
    resolution_create_action(
        character_id=aldo.pk, actor=player, by_referee=False, action="long_rest", params={}
    )
    resolution_undo_latest(character_id=aldo.pk, actor=referee)
    resolution_redo(character_id=aldo.pk, actor=referee)
    resolution_undo(character_id=aldo.pk, actor=referee, steps=2)
    character_rename(character_id=aldo.pk, actor=referee, name="Aldo the Grey")
    character_level_up(character_id=aldo.pk, actor=referee)
    character_correct(character_id=aldo.pk, actor=referee, changes={"hp": 4}, reason="a typo")
    character_retire(character_id=cato.pk, actor=referee, retired=True)
    resolution_create_action(
        character_id=aldo.pk,
        actor=player,
        by_referee=False,
        action="short_rest",
        params={"reroll": True},
    )
    kinds = set(Resolution.objects.filter(campaign=campaign).values_list("kind", flat=True))
    assert kinds == {"create", "action", "effect", "choice", "undo", "redo", "edit"}

    assert replay(campaign.pk).strip().endswith("0 divergences")


def test_levels_replay_as_whoever_played_the_character_then(campaign, player, referee):
    """Issue 29: hit dice follow level for player characters only (HD-1), so a level
    replays as the character was played when it was gained: the edits of who plays it,
    their undos and redos, tell."""
    from campaigns.models import Membership
    from rules.play.editing import character_owner_set
    from rules.play.services import character_create

    ogre = character_create(
        membership=Membership.objects.get(campaign=campaign, user=referee),
        name="Ogre",
        sheet={"level": 2, "hit_dice": 6, "hp": 20},
    )
    character_level_up(character_id=ogre.pk, actor=referee)  # an NPC's: hit dice stay
    character_owner_set(character_id=ogre.pk, actor=referee, player="player")
    character_level_up(character_id=ogre.pk, actor=referee)  # a player's: they follow
    resolution_undo(character_id=ogre.pk, actor=referee, steps=2)  # the level, the player
    character_level_up(character_id=ogre.pk, actor=referee)  # the referee's again
    character_owner_set(character_id=ogre.pk, actor=referee, player="player")
    resolution_undo(character_id=ogre.pk, actor=referee)
    resolution_redo(character_id=ogre.pk, actor=referee)
    character_level_up(character_id=ogre.pk, actor=referee)
    ogre.refresh_from_db()
    assert (ogre.owner_id, ogre.sheet["level"], ogre.sheet["hit_dice"]) == (player.pk, 5, 5)

    assert replay(campaign.pk).strip().endswith("0 divergences")


def test_the_first_divergence_is_named_and_the_command_fails(campaign, player):
    aldo = wounded(campaign, player, "Aldo", every=60)
    run_job(campaign, 300)
    # given someone changed a logged result after the fact (hp in version 4's sheet)
    tampered = Resolution.objects.get(character=aldo, version=4)
    sheet = {**tampered.sheet_after, "hp": tampered.sheet_after["hp"] + 3}
    Resolution.objects.filter(pk=tampered.pk).update(sheet_after=sheet)

    with pytest.raises(CommandError, match="1 characters diverge"):
        replay(campaign.pk)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("replay_check", str(campaign.pk), stdout=out)
    assert (
        f"first divergence: Aldo (character {aldo.pk}), version 4 (resolution {tampered.pk}, "
        f"effect 'wound_worsens' at Day 1, 02:00): the sheet after differs (hp: logged"
    ) in out.getvalue()


def test_a_stored_sheet_changed_outside_the_log_diverges(campaign, player):
    aldo = wounded(campaign, player, "Aldo", every=60)
    Character.objects.filter(pk=aldo.pk).update(sheet={**aldo.sheet, "hp": 1})
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("replay_check", str(campaign.pk), stdout=out)
    assert "the stored sheet is not the log's last (hp: logged" in out.getvalue()
