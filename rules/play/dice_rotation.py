"""What a dice seed's rotation does to the play still under way (docs/dice.md, issue 26).

A revealed seed lets anyone recompute every draw it made. So the play rotates a seed
(:func:`campaign_dice_rotate`, and archiving, :func:`campaign_archive`) around the
campaign's own write (``campaigns.services.campaign_seed_rotate``), under the campaign's
row lock, the first lock of every resolution and clock batch, so no die is drawn while
the seed changes hands:

* before it, the referee's rotation is refused while a hidden roll (ruling G-4) drawn
  from the current seed is still secret: revealing the seed would tell its result.
  Archiving is not refused: the campaign is over, and every roll is shown.
* after it, every character whose sheet holds an order drawn in secret (a Deckahedron
  deck, project ruling DK-P13) has it drawn again from the new seed, as a scheduled
  effect of the ruleset logged like any other (``RESEAL_EFFECT``), so the revealed seed
  predicts nothing still in play. Each such draw can be checked once the new seed is
  revealed in turn.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext, ngettext

from campaigns.models import Campaign, RevealedSeed
from campaigns.services import campaign_archived_set, campaign_lock, campaign_seed_rotate
from characters.models import Character
from core.errors import ResolutionConflict
from rules.clock.models import UNFINISHED_JOB_STATES, ClockJob
from rules.engine.dice import Dice
from rules.engine.interface import RESEAL_EFFECT, Context, Result, Ruleset
from rules.engine.registry import get_ruleset
from rules.log.context import campaign_context, campaign_dice
from rules.log.models import Resolution, ResolutionKind
from rules.play.services import persist_result


@transaction.atomic
def campaign_dice_rotate(*, campaign_id: int) -> RevealedSeed:
    """Reveal the campaign's current dice seed and commit to a fresh one (docs/dice.md):
    refused (409) while a hidden roll of it is secret; secret orders drawn again after."""
    campaign = campaign_lock(campaign_id)
    refuse_while_secret(campaign)
    revealed = campaign_seed_rotate(campaign)
    reseal_secret_orders(campaign)
    return revealed


@transaction.atomic
def campaign_archive(*, campaign_id: int) -> tuple[Campaign, RevealedSeed]:
    """Archive the campaign: no more play in it, and its dice seed revealed (docs/dice.md).

    In one transaction under the campaign's row lock: refused (409) when already
    archived or while the clock still advances (a job running or waiting on a choice:
    finish it first); a live clock stops; the seed is rotated (secret rolls or not: the
    campaign is over, every roll is shown), so every roll ever made in it can be checked.
    """
    campaign = campaign_archived_set(campaign_lock(campaign_id))
    if ClockJob.objects.filter(campaign=campaign, state__in=UNFINISHED_JOB_STATES).exists():
        raise ResolutionConflict(  # the transaction rolls the archiving back
            gettext(
                "The campaign clock is still advancing (or waits on a choice): let it finish "
                "before archiving the campaign."
            )
        )
    revealed = campaign_seed_rotate(campaign)
    reseal_secret_orders(campaign)
    return campaign, revealed


def secret_rolls(campaign: Campaign) -> int:
    """How many resolutions drawn from the current seed hold a hidden roll still secret.

    A hidden shuffle is an order in play, drawn again at the rotation, not a secret result.
    """
    rows = Resolution.objects.filter(
        campaign=campaign,
        revealed=False,
        dice_counter_end__gt=campaign.dice_seed_first_counter,
    ).values_list("rolls", flat=True)
    return sum(
        1
        for rolls in rows.iterator()
        if any(roll.get("hidden") and roll.get("kind") != "shuffle" for roll in rolls)
    )


def refuse_while_secret(campaign: Campaign) -> None:
    count = secret_rolls(campaign)
    if count:
        raise ResolutionConflict(
            ngettext(
                "%(count)s hidden roll made since the dice seed was last revealed is still "
                "secret: revealing the seed would tell it. Reveal it first, or rotate the "
                "seed later.",
                "%(count)s hidden rolls made since the dice seed was last revealed are still "
                "secret: revealing the seed would tell them. Reveal them first, or rotate the "
                "seed later.",
                count,
            )
            % {"count": count}
        )


def reseal_secret_orders(campaign: Campaign) -> None:
    """Draw again, from the new seed, every secret order in play (DK-P13)."""
    ruleset = get_ruleset(campaign.ruleset)
    if RESEAL_EFFECT not in ruleset.effect_payloads:
        return
    characters = Character.objects.select_for_update().filter(campaign=campaign).order_by("pk")
    for character in characters:
        context = campaign_context(campaign, by_referee=True)
        dice, generator = campaign_dice(campaign)
        start = generator.counter
        result = _reseal(ruleset, character, dice, context)
        if not result.rolls:
            continue  # nothing in secret to draw again: nothing to log
        persist_result(
            campaign=campaign,
            character=character,
            result=result,
            kind=ResolutionKind.EFFECT,
            action=RESEAL_EFFECT,
            params={"payload": {}},
            actor=None,
            counter_start=start,
            counter_end=generator.counter,
            clock=context.clock,
        )


def _reseal(ruleset: Ruleset, character: Character, dice: Dice, context: Context) -> Result:
    return ruleset.apply_effect(character.sheet, RESEAL_EFFECT, {}, dice, context)
