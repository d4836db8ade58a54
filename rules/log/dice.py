"""The campaign's dice: an HMAC generator over its secret seed and counter (G-2)."""

from __future__ import annotations

from campaigns.models import Campaign
from rules.engine.dice import Dice, Generator, HmacGenerator

# Tests may swap the generator factory to script dice through the whole stack
# (see conftest.py: ``scripted_dice``); production never does.
_generator_override: list[Generator] = []


def campaign_generator(campaign: Campaign) -> HmacGenerator:
    return HmacGenerator(bytes.fromhex(campaign.dice_seed), campaign.dice_counter)


def campaign_dice(campaign: Campaign) -> tuple[Dice, HmacGenerator]:
    """A dice service for one resolution, and the generator whose counter to save."""
    generator = campaign_generator(campaign)
    if _generator_override:
        return Dice(_generator_override[-1]), generator
    return Dice(generator), generator
