"""Exact odds of old_school's actions that roll (see rules/engine/odds.py).

One function per action whose dice decide something, computed with icepool; the
ruleset's ``odds_<action>`` methods call them. Saves answer ``pass``/``fail`` (rulings
G-5, OS-3); damage and falls answer the state the character ends in, a critical injury
by its row of the campaign's table (ruling OS-4).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from rules.engine.interface import ActionBlocked, Context, Params, Sheet
from rules.engine.odds import Odds, chance_at_least, d, grouped
from rules.engine.rulesets.old_school import data

if TYPE_CHECKING:
    from rules.engine.rulesets.old_school.ruleset import OldSchool

Weighted = list[tuple[str, str, Fraction]]


def _alive(sheet: Mapping[str, Any], doing: str) -> None:
    if sheet["state"] == "dead":
        raise ActionBlocked(f"The character is dead and cannot {doing}.")


def save_chance(sheet: Mapping[str, Any], category: str, extra: int, penalty: int) -> Fraction:
    """d20 + modifiers >= the sheet's target (rulings G-5, OS-3; OS-8, OS-9 in penalty)."""
    target = int(sheet[f"save_{category}"])
    return chance_at_least(d(20) + (extra + penalty), target)


def _pass_fail(action: str, chance: Fraction, passed: str, failed: str, note: str) -> Odds:
    return grouped(action, [("pass", passed, chance), ("fail", failed, 1 - chance)], notes=(note,))


def save(sheet: Sheet, params: Params, penalty: int) -> Odds:
    _alive(sheet, "save")
    category = str(params["category"])
    chance = save_chance(sheet, category, int(params.get("modifier", 0)), penalty)
    note = (
        f"Save vs {category}: d20 with every modifier in force against {sheet[f'save_{category}']}."
    )
    return _pass_fail("save", chance, "Passes the save", "Fails the save", note)


def expose_disease(sheet: Sheet, params: Params, penalty: int) -> Odds:
    _alive(sheet, "be exposed to a disease")
    chance = save_chance(sheet, "poison", int(params.get("modifier", 0)), penalty)
    return _pass_fail(
        "expose_disease",
        chance,
        "Resists the disease",
        f"Catches {params['disease']}",
        "The referee rolls this save vs poison in secret.",
    )


def poison(
    ruleset: OldSchool, sheet: Sheet, params: Params, context: Context, penalty: int
) -> Odds:
    _alive(sheet, "be poisoned")
    if not params.get("save", True):  # a drug taken on purpose: its effect, no save
        return ruleset.odds_by_walking(sheet, "poison", params, context)
    chance = save_chance(sheet, "poison", int(params.get("modifier", 0)), penalty)
    effect = params.get("effect", {"type": "death"})
    failed = "Fails the save and dies" if effect["type"] == "death" else "Fails the save"
    return _pass_fail("poison", chance, "Passes the save: no effect", failed, "Save vs poison.")


def search(ruleset: OldSchool, sheet: Sheet, params: Params, context: Context) -> Odds:
    """Ruling OS-9: 1 in 6 (or the referee's chance), less a point a day without sleep."""
    _alive(sheet, "search")
    if sheet["conditions"]["unconscious"]:
        raise ActionBlocked("The character is unconscious and cannot search.")
    if sheet["state"] == "down":
        raise ActionBlocked("The character is down and cannot search.")
    ruleset._referee_param(params, context, "chance", "the search chance")
    effective = int(params.get("chance", 1)) - int(sheet["conditions"]["sleep_deprived_days"])
    found = Fraction(min(max(effective, 0), 6), 6)
    return grouped(
        "search",
        [("found", "Finds anything hidden there", found), ("nothing", "Finds nothing", 1 - found)],
        notes=(f"{max(effective, 0)} in 6.",),
    )


# -- damage: the state it leaves, a critical injury by its row (ruling OS-4) ---------------
class _CriticalRows:
    """1d10 + how far below 0, read on the campaign's table: read once, each depth once."""

    def __init__(self, ruleset: OldSchool, context: Context) -> None:
        self._ruleset = ruleset
        self._context = context
        self._table: list[dict[str, Any]] | None = None
        self._rows: dict[int, Weighted] = {}

    def __call__(self, below: int) -> Weighted:
        if below not in self._rows:
            if self._table is None:
                self._table = self._ruleset.critical_table(self._context)
            self._rows[below] = self._read(self._table, below)
        return self._rows[below]

    @staticmethod
    def _read(table: list[dict[str, Any]], below: int) -> Weighted:
        weighted: Weighted = []
        chance = Fraction(1, 10)
        for roll in range(1 + below, 11 + below):  # 1d10 + below, each face 1/10
            found = [
                (index, entry)
                for index, entry in enumerate(table)
                if entry["min"] <= roll and (entry["max"] is None or roll <= entry["max"])
            ]
            if not found:
                weighted.append(("critical:none", "Down, no entry on the critical table", chance))
                continue
            index, entry = found[0]
            effect = entry.get("effect") or {}
            # Death, or more damage while below 0, which kills (OS-4).
            kills = effect.get("type") == "death" or (
                effect.get("type") == "damage" and int(effect.get("amount", 1)) > 0
            )
            if kills:
                weighted.append(("dead", "Dies", chance))
            else:
                described = str(entry["description"]).rstrip(".")
                weighted.append((f"critical:{index}", f"Down: {described}", chance))
        return weighted


def _after_damage(sheet: Mapping[str, Any], amount: int, critical: _CriticalRows) -> Weighted:
    before = int(sheet["wounds"])
    if before < 0:
        return [("dead", "Dies", Fraction(1))]  # any damage below 0 kills (OS-4)
    after = before - amount
    if after > 0:
        return [("standing", "Keeps standing", Fraction(1))]
    if after == 0:
        return [("down", "Down at 0 wounds, out for 1d6 hours", Fraction(1))]
    return critical(-after)


def damage(ruleset: OldSchool, sheet: Sheet, params: Params, context: Context) -> Odds:
    _alive(sheet, "take damage")
    critical = _CriticalRows(ruleset, context)
    return grouped("damage", _after_damage(sheet, int(params["amount"]), critical))


def fall(ruleset: OldSchool, sheet: Sheet, params: Params, context: Context) -> Odds:
    """Ruling OS-9: 1d6 per full 10 feet, at most 20d6."""
    _alive(sheet, "fall")
    count = min(int(params["feet"]) // 10, data.MAX_FALL_DICE)
    if count == 0:
        return grouped("fall", [("standing", "Less than 10 feet: no damage", Fraction(1))])
    critical = _CriticalRows(ruleset, context)
    # Whole numbers over one denominator: up to 101 sums x 10 rows of the table, so
    # adding Fractions one by one would be most of the time.
    die = d(6).pool(count).sum()
    denominator = die.denominator() * 10
    totals: dict[str, int] = {}
    labels: dict[str, str] = {}
    for amount, quantity in die.items():
        for key, label, chance in _after_damage(sheet, int(amount), critical):
            totals[key] = totals.get(key, 0) + quantity * int(chance * 10)
            labels.setdefault(key, label)
    weighted = [(key, labels[key], Fraction(n, denominator)) for key, n in totals.items()]
    return grouped("fall", weighted, notes=(f"{count}d6 damage.",))
