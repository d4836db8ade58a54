"""What a ruleset is given when it resolves for a campaign: what it is told (the clock,
the options and the campaign's edited tables: the engine's
:class:`~rules.engine.interface.Context`) and the dice it rolls (an HMAC generator over
the campaign's secret seed and counter, ruling G-2).

Below the play's services and selectors, which both need it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from campaigns.models import Campaign
from rules.engine.dice import Dice, Generator, HmacGenerator
from rules.engine.interface import Context
from rules.engine.registry import get_ruleset


def campaign_tables(campaign: Campaign) -> dict[str, Any]:
    return {table.key: table.data for table in campaign.tables.all()}


class _CampaignTables(Mapping[str, Any]):
    """The campaign's edited tables, read from the database the first time a ruleset
    looks at one: most actions and odds read none, and save the query (bench/odds.py)."""

    def __init__(self, campaign: Campaign) -> None:
        self._campaign = campaign
        self._tables: dict[str, Any] | None = None

    def _loaded(self) -> dict[str, Any]:
        if self._tables is None:
            self._tables = campaign_tables(self._campaign)
        return self._tables

    def __getitem__(self, key: str) -> Any:
        return self._loaded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())


def campaign_context(campaign: Campaign, *, by_referee: bool, clock: int | None = None) -> Context:
    ruleset = get_ruleset(campaign.ruleset)
    options = {**ruleset.options, **campaign.options}
    return Context(
        clock=campaign.clock if clock is None else clock,
        options=options,
        by_referee=by_referee,
        tables=_CampaignTables(campaign),
    )


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
