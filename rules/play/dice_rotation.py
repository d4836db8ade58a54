"""What a dice seed's rotation does to the play still under way (docs/dice.md, issue 26).

A revealed seed lets anyone recompute every draw it made. So, around a rotation
(``campaigns.services``, which calls these through the hooks rules/play/apps.py registers):

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

from campaigns.models import Campaign
from characters.models import Character
from core.errors import ResolutionConflict
from rules.engine.dice import Dice
from rules.engine.interface import RESEAL_EFFECT, Context, Result, Ruleset
from rules.engine.registry import get_ruleset
from rules.log.context import campaign_context
from rules.log.dice import campaign_dice
from rules.log.models import Resolution, ResolutionKind
from rules.play.services import persist_result


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


def refuse_while_secret(campaign: Campaign, archiving: bool) -> None:
    if archiving:
        return
    count = secret_rolls(campaign)
    if count:
        raise ResolutionConflict(
            f"{count} hidden roll{'s' if count > 1 else ''} made since the dice seed was last "
            "revealed {verb} still secret: revealing the seed would tell {them}. Reveal "
            "{them} first, or rotate the seed later.".format(
                verb="are" if count > 1 else "is", them="them" if count > 1 else "it"
            )
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
