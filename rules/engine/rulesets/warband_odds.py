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

Weighted = list[tuple[str, str, Fraction]]
Injure = Callable[..., tuple[str, dict[str, Any]]]

STATE_LABELS = {
    "none": "No effect",
    "staggered": "Staggered",
    "dazed": "Dazed",
    "stunned": "Stunned",
    "incapacitated": "Incapacitated",
}


def injury_roll_outcomes(
    sheet: Mapping[str, Any],
    modifiers: int,
    table: Callable[[int], str],
    injure: Injure,
) -> Weighted:
    """Each face of the d20 (+ modifiers) on the table, through the wounds buffer."""
    weighted: Weighted = []
    for total, chance in die_outcomes(d(20) + modifiers):
        after = copy.deepcopy(dict(sheet))
        _, facts = injure(after, table(total), never_lessens=True)
        if facts.get("absorbed"):
            key, label = "loses_wound", f"Loses a wound instead of being {facts['absorbed']}"
        else:
            key = str(after["injury"]) if facts["changed"] else "none"
            label = STATE_LABELS[key] if facts["changed"] else "No effect"
            if not facts["changed"] and after["injury"] != "none":
                key, label = "unchanged", f"Stays {after['injury']}, the injury is no worse"
        weighted.append((key, label, chance))
    return weighted


def ledge_outcomes(
    sheet: Mapping[str, Any],
    modifiers: int,
    fall_bonus: int,
    table: Callable[[int], str],
    injure: Injure,
) -> tuple[Weighted, Fraction]:
    """The agility check (G-5), then on a failure the fall's injury roll (WB-5)."""
    keeps = chance_at_least(d(20) + modifiers, int(sheet["agility"]))
    weighted: Weighted = [("keeps_footing", "Keeps its footing", keeps)]
    for key, label, chance in injury_roll_outcomes(sheet, fall_bonus, table, injure):
        weighted.append((key, f"Falls: {label[:1].lower()}{label[1:]}", (1 - keeps) * chance))
    return weighted, keeps
