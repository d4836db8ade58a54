"""The resolution service: log, versions, choices, undo, dice records (given/when/then)."""

from __future__ import annotations

import pytest

from campaigns.models import Membership
from core.errors import NotAllowed, ResolutionConflict
from rules.log.models import Resolution, ResolutionKind
from rules.log.selectors import verify_resolution_rolls
from rules.play.services import (
    character_create,
    resolution_answer_choice,
    resolution_cancel_choice,
    resolution_create_action,
)
from rules.play.undo import resolution_undo_latest


@pytest.fixture
def aldo(campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    return character_create(
        membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )


def act(character, user, action, params=None, *, referee=False, **kwargs):
    return resolution_create_action(
        character_id=character.pk,
        actor=user,
        by_referee=referee,
        action=action,
        params=params or {},
        **kwargs,
    )


def test_creation_is_the_first_resolution(aldo, player):
    (created,) = Resolution.objects.filter(character=aldo)
    assert created.kind == ResolutionKind.CREATE
    assert created.version == 1 == aldo.version
    assert created.sheet_after["hp"] == 10
    assert created.actor == player


def test_action_appends_a_resolution_with_sheets_version_and_clock(aldo, player, campaign):
    campaign.clock = 125
    campaign.save()
    resolution = act(aldo, player, "damage", {"amount": 3})
    aldo.refresh_from_db()
    assert aldo.sheet["hp"] == 7
    assert aldo.version == 2
    assert resolution.version == 2
    assert resolution.sheet_before["hp"] == 10
    assert resolution.sheet_after["hp"] == 7
    assert resolution.clock == 125
    assert resolution.action == "damage"
    assert resolution.params == {"amount": 3}
    assert resolution.actor == player
    assert resolution.summary


def test_stale_expected_version_is_a_conflict_and_changes_nothing(aldo, player):
    act(aldo, player, "damage", {"amount": 1}, expected_version=1)
    with pytest.raises(ResolutionConflict):
        act(aldo, player, "damage", {"amount": 1}, expected_version=1)
    aldo.refresh_from_db()
    assert aldo.sheet["hp"] == 9
    assert aldo.version == 2
    assert Resolution.objects.filter(character=aldo).count() == 2


def test_player_cannot_take_a_referee_action(aldo, player):
    with pytest.raises(NotAllowed):
        act(aldo, player, "bypass", {"damage": 3, "attacker_level": 1})
    aldo.refresh_from_db()
    assert aldo.version == 1


def _damage_into_choice(aldo, player, scripted_dice):
    # 12 damage on 10 hp: overflow 2, DC 22. Strength save 1+10 fails, will save 20+10
    # passes: the player must choose death or a major wound (rulings HD-4, G-3).
    scripted_dice([1, 20])
    return act(aldo, player, "damage", {"amount": 12})


def test_a_pending_choice_blocks_other_actions_until_answered(aldo, player, scripted_dice):
    resolution = _damage_into_choice(aldo, player, scripted_dice)
    aldo.refresh_from_db()
    choice = aldo.pending_choice
    assert choice is not None and resolution.pending_choice == choice
    with pytest.raises(ResolutionConflict):
        act(aldo, player, "short_rest", {"reroll": False})
    assert Resolution.objects.filter(character=aldo).count() == 2

    answer = resolution_answer_choice(
        character_id=aldo.pk,
        actor=player,
        by_referee=False,
        choice_id=choice["id"],
        option="major_wound",
    )
    aldo.refresh_from_db()
    assert aldo.pending_choice is None
    assert answer.kind == ResolutionKind.CHOICE
    assert aldo.sheet["major_wound_marks"] == 1
    act(aldo, player, "short_rest", {"reroll": False})


def test_a_stale_choice_id_is_a_conflict(aldo, player, scripted_dice):
    _damage_into_choice(aldo, player, scripted_dice)
    with pytest.raises(ResolutionConflict):
        resolution_answer_choice(
            character_id=aldo.pk,
            actor=player,
            by_referee=False,
            choice_id="nope",
            option="major_wound",
        )


def test_undo_restores_the_sheet_and_is_itself_logged(aldo, player, referee):
    act(aldo, player, "damage", {"amount": 4})
    undo = resolution_undo_latest(character_id=aldo.pk, actor=referee)
    aldo.refresh_from_db()
    assert aldo.sheet["hp"] == 10
    assert aldo.version == 3
    assert undo.kind == ResolutionKind.UNDO
    assert undo.undoes is not None
    assert undo.undoes.action == "damage"
    assert Resolution.objects.filter(character=aldo).count() == 3  # nothing deleted
    with pytest.raises(ResolutionConflict):
        resolution_undo_latest(character_id=aldo.pk, actor=referee)


def test_undo_of_an_answer_makes_the_choice_pending_again(aldo, player, referee, scripted_dice):
    _damage_into_choice(aldo, player, scripted_dice)
    aldo.refresh_from_db()
    choice_id = aldo.pending_choice["id"]
    resolution_answer_choice(
        character_id=aldo.pk,
        actor=player,
        by_referee=False,
        choice_id=choice_id,
        option="major_wound",
    )
    resolution_undo_latest(character_id=aldo.pk, actor=referee)
    aldo.refresh_from_db()
    assert aldo.pending_choice["id"] == choice_id
    assert aldo.sheet["major_wound_marks"] == 0


def test_nothing_to_undo_on_a_new_character(aldo, referee):
    with pytest.raises(ResolutionConflict):
        resolution_undo_latest(character_id=aldo.pk, actor=referee)


def test_every_roll_is_recorded_and_recomputable_from_the_campaign_seed(aldo, player, campaign):
    first = act(aldo, player, "short_rest", {"reroll": True})
    second = act(aldo, player, "short_rest", {"reroll": True})
    campaign.refresh_from_db()
    assert first.rolls and first.rolls[0]["expression"] == "2d6"
    assert second.rolls[0]["expression"] == "3d6kl2"  # one fatigue die (HD-2)
    assert first.dice_counter_end == second.dice_counter_start
    assert campaign.dice_counter == second.dice_counter_end
    assert verify_resolution_rolls(first, campaign)
    assert verify_resolution_rolls(second, campaign)
    tampered = Resolution.objects.get(pk=second.pk)
    tampered.rolls[0]["dice"][0] = (tampered.rolls[0]["dice"][0] % 6) + 1
    assert not verify_resolution_rolls(tampered, campaign)


def test_referee_cancels_a_pending_choice_and_it_is_logged(aldo, player, referee, scripted_dice):
    _damage_into_choice(aldo, player, scripted_dice)
    aldo.refresh_from_db()
    sheet = aldo.sheet
    cancelled = resolution_cancel_choice(character_id=aldo.pk, actor=referee)
    aldo.refresh_from_db()
    assert aldo.pending_choice is None
    assert aldo.sheet == sheet
    assert cancelled.kind == ResolutionKind.CANCEL_CHOICE
    with pytest.raises(ResolutionConflict):
        resolution_cancel_choice(character_id=aldo.pk, actor=referee)
