"""Exact odds of the warband injury roll, falls and ledges (see rules/engine/odds.py).

One d20 decides an injury roll (plus the fall's bonus and the modifiers); each face is
read on the Injury Roll table and put through the wounds buffer exactly as the action
does (rulings WB-2, WB-5). Keys are the unit's injury state afterwards (``none`` for
unhurt), or ``loses_wound`` when the buffer takes the blow (WB-2).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from rules.engine.odds import chance_at_least, d, die_outcomes
from rules.engine.words import Message, say, word

Weighted = list[tuple[str, str, Fraction]]
Injure = Callable[..., tuple[str, dict[str, Any]]]

# Each outcome's label: said alone (a capital first), and after "Falls: " (a ledge's fall).
Label = tuple[Message, Message]
STATE_LABELS: dict[str, Label] = {
    "none": (word("No effect"), word("no effect")),
    "staggered": (word("Staggered"), word("staggered")),
    "dazed": (word("Dazed"), word("dazed")),
    "stunned": (word("Stunned"), word("stunned")),
    "incapacitated": (word("Incapacitated"), word("incapacitated")),
}
# The wounds buffer takes the blow instead of the injury (ruling WB-2).
LOSES_WOUND_LABELS: dict[str, Label] = {
    "dazed": (
        word("Loses a wound instead of being dazed"),
        word("loses a wound instead of being dazed"),
    ),
    "stunned": (
        word("Loses a wound instead of being stunned"),
        word("loses a wound instead of being stunned"),
    ),
    "incapacitated": (
        word("Loses a wound instead of being incapacitated"),
        word("loses a wound instead of being incapacitated"),
    ),
}
# The injury is no worse than the unit's state: nothing changes.
STAYS_LABELS: dict[str, Label] = {
    "staggered": (
        word("Stays staggered, the injury is no worse"),
        word("stays staggered, the injury is no worse"),
    ),
    "dazed": (
        word("Stays dazed, the injury is no worse"),
        word("stays dazed, the injury is no worse"),
    ),
    "stunned": (
        word("Stays stunned, the injury is no worse"),
        word("stays stunned, the injury is no worse"),
    ),
    "incapacitated": (
        word("Stays incapacitated, the injury is no worse"),
        word("stays incapacitated, the injury is no worse"),
    ),
}


def _outcomes(
    sheet: Mapping[str, Any],
    modifiers: int,
    table: Callable[[int], str],
    injure: Injure,
) -> list[tuple[str, Label, Fraction]]:
    """Each face of the d20 (+ modifiers) on the table, through the wounds buffer."""
    weighted: list[tuple[str, Label, Fraction]] = []
    for total, chance in die_outcomes(d(20) + modifiers):
        after = copy.deepcopy(dict(sheet))
        _, facts = injure(after, table(total), never_lessens=True)
        if facts.get("absorbed"):
            key, label = "loses_wound", LOSES_WOUND_LABELS[str(facts["absorbed"])]
        else:
            key = str(after["injury"]) if facts["changed"] else "none"
            label = STATE_LABELS[key]
            if not facts["changed"] and after["injury"] != "none":
                key, label = "unchanged", STAYS_LABELS[str(after["injury"])]
        weighted.append((key, label, chance))
    return weighted


def injury_roll_outcomes(
    sheet: Mapping[str, Any],
    modifiers: int,
    table: Callable[[int], str],
    injure: Injure,
) -> Weighted:
    """Each face of the d20 (+ modifiers) on the table, through the wounds buffer."""
    return [
        (key, alone, chance)
        for key, (alone, _), chance in _outcomes(sheet, modifiers, table, injure)
    ]


def ledge_outcomes(
    sheet: Mapping[str, Any],
    modifiers: int,
    fall_bonus: int,
    table: Callable[[int], str],
    injure: Injure,
) -> tuple[Weighted, Fraction]:
    """The agility check (G-5), then on a failure the fall's injury roll (WB-5)."""
    keeps = chance_at_least(d(20) + modifiers, int(sheet["agility"]))
    weighted: Weighted = [("keeps_footing", word("Keeps its footing"), keeps)]
    for key, (_, after_falling), chance in _outcomes(sheet, fall_bonus, table, injure):
        weighted.append((key, say("Falls: {outcome}", outcome=after_falling), (1 - keeps) * chance))
    return weighted, keeps
