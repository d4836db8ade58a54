"""Exact odds of old_school's actions that roll (see rules/engine/odds.py).

One function per action whose dice decide something, computed with icepool; the
ruleset's ``odds_<action>`` methods call them. Saves answer ``pass``/``fail`` (rulings
G-5, OS-3); damage and falls answer the state the character ends in, a critical injury
by its row of the campaign's table (ruling OS-4).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any, Protocol

from rules.engine.dice import DiceError
from rules.engine.interface import (
    ActionBlocked,
    Context,
    OddsUnavailable,
    Params,
    RuleError,
    Sheet,
)
from rules.engine.odds import (
    Odds,
    TooManyPaths,
    chance_at_least,
    d,
    expression_die,
    grouped,
)
from rules.engine.rulesets.old_school import data
from rules.engine.words import Message, say, say_plural, word

SEARCH_CHANCE = word("the search chance")
DIES = word("Dies")


class OldSchoolRules(Protocol):
    """What the odds need of the ruleset (``ruleset.OldSchool``, which imports this
    module: the odds name its methods rather than import it)."""

    def odds_by_walking(
        self, sheet: Mapping[str, Any], action: str, params: Mapping[str, Any], context: Context
    ) -> Odds: ...

    def critical_table(self, context: Context) -> list[dict[str, Any]]: ...


def refuse_referee_param(params: Params, context: Context, key: str, what: str) -> None:
    """Only the referee sets ``key`` (a chance, a DC): a player's request naming it is refused."""
    if key in params and not context.by_referee:
        raise RuleError(say("only the referee sets {what}", what=what))


def bad_dice(source: str, error: DiceError) -> Message:
    """The refusal of an effect's damage dice that cannot be rolled."""
    why = error.args[0] if error.args and isinstance(error.args[0], str) else str(error)
    return say("bad damage dice for {source}: {error}", source=source, error=why)


@contextmanager
def _dice_odds(source: str, too_many: Message) -> Iterator[None]:
    """Walking an effect's damage dice: dice the action would refuse are refused here too
    (400); dice with more totals than are walked have no odds yet (``too_many``)."""
    try:
        yield
    except DiceError as error:  # as the action refuses it
        raise RuleError(bad_dice(source, error)) from None
    except TooManyPaths:
        raise OddsUnavailable(too_many) from None


def _alive(sheet: Mapping[str, Any], doing: str) -> None:
    if sheet["state"] == "dead":
        raise ActionBlocked(data.DEAD_CANNOT[doing])


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
    note = say(
        "Save vs {category}: d20 with every modifier in force against {target}.",
        category=data.SAVE_WORDS[category],
        target=sheet[f"save_{category}"],
    )
    return _pass_fail("save", chance, word("Passes the save"), word("Fails the save"), note)


def expose_disease(sheet: Sheet, params: Params, penalty: int) -> Odds:
    _alive(sheet, "be exposed to a disease")
    chance = save_chance(sheet, "poison", int(params.get("modifier", 0)), penalty)
    return _pass_fail(
        "expose_disease",
        chance,
        word("Resists the disease"),
        say("Catches {disease}", disease=params["disease"]),
        word("The referee rolls this save vs poison in secret."),
    )


def poison(
    ruleset: OldSchoolRules, sheet: Sheet, params: Params, context: Context, penalty: int
) -> Odds:
    _alive(sheet, "be poisoned")
    if not params.get("save", True):  # a drug taken on purpose: its effect, no save
        effect = params.get("effect", {"type": "death"})
        if effect["type"] == "damage" and "amount" not in effect:
            with _dice_odds(
                data.POISON,
                word("The odds of damage dice with this many totals are not computed yet."),
            ):
                weighted = dice_damage(
                    int(sheet["wounds"]),
                    str(effect["dice"]),
                    _table_key(ruleset, context),
                    _scores(sheet),
                )
            note = say("{dice} damage, no save.", dice=str(effect["dice"]))
            return grouped("poison", weighted, notes=(note,))
        return ruleset.odds_by_walking(sheet, "poison", params, context)
    chance = save_chance(sheet, "poison", int(params.get("modifier", 0)), penalty)
    effect = params.get("effect", {"type": "death"})
    failed = (
        word("Fails the save and dies") if effect["type"] == "death" else word("Fails the save")
    )
    return _pass_fail(
        "poison", chance, word("Passes the save: no effect"), failed, word("Save vs poison.")
    )


def search(ruleset: OldSchoolRules, sheet: Sheet, params: Params, context: Context) -> Odds:
    """Ruling OS-9: 1 in 6 (or the referee's chance), less a point a day without sleep."""
    _alive(sheet, "search")
    if sheet["conditions"]["unconscious"]:
        raise ActionBlocked(data.UNCONSCIOUS_CANNOT["search"])
    if sheet["state"] == "down":
        raise ActionBlocked(data.DOWN_CANNOT["search"])
    refuse_referee_param(params, context, "chance", SEARCH_CHANCE)
    effective = int(params.get("chance", 1)) - int(sheet["conditions"]["sleep_deprived_days"])
    found = Fraction(min(max(effective, 0), 6), 6)
    return grouped(
        "search",
        [
            ("found", word("Finds anything hidden there"), found),
            ("nothing", word("Finds nothing"), 1 - found),
        ],
        notes=(say("{chance} in 6.", chance=max(effective, 0)),),
    )


# -- damage: the state it leaves, a critical injury by its row (ruling OS-4) ---------------
# What damage leaves depends only on the wounds before, the amount and the campaign's
# critical table: each is computed once per process for the same numbers and table
# (the table keyed by its JSON text, so a referee's edit is a new key).
def _table_key(ruleset: OldSchoolRules, context: Context) -> str:
    return json.dumps(ruleset.critical_table(context), sort_keys=True)


Rows = tuple[tuple[str, str, Fraction], ...]


def _scores(sheet: Mapping[str, Any]) -> tuple[int, ...]:
    """The current ability scores, in data.ABILITIES' order (what a loss is taken from)."""
    return tuple(int(sheet[ability]) for ability in data.ABILITIES)


def _positive_damage(effect: Mapping[str, Any]) -> Fraction:
    """The chance that a damage effect does any damage (``apply_spec`` ignores a total of
    0 or less)."""
    if "amount" in effect:
        return Fraction(1 if int(effect["amount"]) > 0 else 0)
    with _dice_odds(
        data.CRITICAL_INJURY,
        word("The odds of a critical injury with this many damage totals are not computed yet."),
    ):
        die = expression_die(str(effect["dice"]))
    return chance_at_least(die, 1)


def _kills(effect: Mapping[str, Any], scores: tuple[int, ...]) -> Fraction:
    """The chance that a critical injury's effect kills a character who is below 0.

    Death; more damage while below 0 (OS-4); or a loss that takes an ability score to 0
    (OS-1, OS-P13; project ruling OS-P19: the odds read the sheet's scores).
    """
    kind = effect.get("type")
    if kind == "death":
        return Fraction(1)
    if kind == "damage":
        return _positive_damage(effect)
    if kind == "ability_loss":
        losses = effect["abilities"]
        for ability, score in zip(data.ABILITIES, scores, strict=True):
            if ability in losses and int(losses[ability]) >= score:
                return Fraction(1)
    return Fraction(0)


@lru_cache(maxsize=1024)
def _critical_rows(table_key: str, below: int, scores: tuple[int, ...]) -> Rows:
    """1d10 + how far below 0 on the table: (key, label, chance) per face and its fate."""
    table: list[dict[str, Any]] = json.loads(table_key)
    rows: list[tuple[str, str, Fraction]] = []
    face = Fraction(1, 10)
    for roll in range(1 + below, 11 + below):  # 1d10 + below, each face 1/10
        found = [
            (index, entry)
            for index, entry in enumerate(table)
            if entry["min"] <= roll and (entry["max"] is None or roll <= entry["max"])
        ]
        if not found:
            rows.append(("critical:none", word("Down, no entry on the critical table"), face))
            continue
        index, entry = found[0]
        kills = _kills(entry.get("effect") or {}, scores)
        if kills:
            rows.append(("dead", DIES, face * kills))
        if kills != 1:
            described = str(entry["description"]).rstrip(".")
            label = say("Down: {description}", description=described)
            rows.append((f"critical:{index}", label, face * (1 - kills)))
    return tuple(rows)


def _after_damage(before: int, amount: int, table_key: str, scores: tuple[int, ...]) -> Rows:
    """What ``amount`` damage leaves from ``before`` wounds: (key, label, chance)."""
    if before < 0:
        return (("dead", DIES, Fraction(1)),)  # any damage below 0 kills (OS-4)
    after = before - amount
    if after > 0:
        return (("standing", word("Keeps standing"), Fraction(1)),)
    if after == 0:
        return (("down", word("Down at 0 wounds, out for 1d6 hours"), Fraction(1)),)
    return _critical_rows(table_key, -after, scores)


def damage(ruleset: OldSchoolRules, sheet: Sheet, params: Params, context: Context) -> Odds:
    _alive(sheet, "take damage")
    rows = _after_damage(
        int(sheet["wounds"]), int(params["amount"]), _table_key(ruleset, context), _scores(sheet)
    )
    return grouped("damage", rows)


@lru_cache(maxsize=1024)
def dice_damage(
    before: int, expression: str, table_key: str, scores: tuple[int, ...]
) -> tuple[tuple[str, str, Fraction], ...]:
    """What damage of ``expression`` leaves from ``before`` wounds, exactly (a total of
    0 or less does no damage, as ``apply_spec`` reads it)."""
    die = expression_die(expression)
    # Whole numbers over one denominator where they can be: the rows of the table are
    # tenths unless a row's own damage dice split them further.
    denominator = die.denominator()
    totals: dict[str, Fraction] = {}
    labels: dict[str, str] = {}
    for amount, quantity in die.items():
        after = (
            _after_damage(before, int(amount), table_key, scores)
            if amount > 0
            else (("unhurt", word("No damage"), Fraction(1)),)
        )
        for key, label, chance in after:
            totals[key] = totals.get(key, Fraction(0)) + quantity * chance
            labels.setdefault(key, label)
    return tuple((key, labels[key], n / denominator) for key, n in totals.items())


def fall(ruleset: OldSchoolRules, sheet: Sheet, params: Params, context: Context) -> Odds:
    """Ruling OS-9: 1d6 per full 10 feet, at most 20d6."""
    _alive(sheet, "fall")
    count = min(int(params["feet"]) // 10, data.MAX_FALL_DICE)
    if count == 0:
        return grouped("fall", [("standing", word("Less than 10 feet: no damage"), Fraction(1))])
    weighted = dice_damage(
        int(sheet["wounds"]), f"{count}d6", _table_key(ruleset, context), _scores(sheet)
    )
    return grouped("fall", weighted, notes=(say("{count}d6 damage.", count=count),))


# -- magical aging: every aging save at once, a random ability lost per failure (OS-5) ------
def _failures(bands: tuple[tuple[int, int], ...], target: int, bonus: int, most: int) -> list[int]:
    """Ways (out of 20^saves) for exactly f of the saves to fail, for f = 0..most.

    ``bands`` counts the saves by their penalty; each is d20 + penalty + ``bonus`` >= target
    (G-5, OS-3), independent of the others: a product of binomials, kept to ``most`` + 1
    terms (more failures than that kill for sure, whatever abilities they hit).
    """
    weights = [1]  # polynomial in x (failures)
    for penalty, count in bands:
        passes = int(chance_at_least(d(20) + (penalty + bonus), target) * 20)
        fails = 20 - passes
        binomial = [
            comb(count, f) * fails**f * passes ** (count - f) for f in range(min(count, most) + 1)
        ]
        product = [0] * min(len(weights) + len(binomial) - 1, most + 1)
        for i, left in enumerate(weights):
            for j, right in enumerate(binomial[: len(product) - i]):
                product[i + j] += left * right
        weights = product
    return weights + [0] * (most + 1 - len(weights))


def _survivals(scores: tuple[int, ...], most: int) -> list[int]:
    """How many of the 6^f sequences of f picks (one ability of six each, uniform) leave
    every ability above 0, for f = 0..most: no ability picked as often as its score."""
    ways = [1] + [0] * most  # ways[f]: sequences over the abilities so far
    for score in scores:
        ways = [
            sum(comb(f, j) * ways[f - j] for j in range(min(f, score - 1) + 1))
            for f in range(most + 1)
        ]
    return ways


@lru_cache(maxsize=256)
def _aging_bands(race: str, old: int, years: int) -> tuple[tuple[int, int], ...]:
    """How many aging saves fall due from ``old`` + 1 to ``old`` + ``years``, by penalty."""
    bands_of_race = data.AGING[race]
    counts: dict[int, int] = {}
    if bands_of_race is not None:
        for age in range(old + 1, old + years + 1):
            band = bands_of_race.penalty_at(age)
            if band is not None:
                counts[band] = counts.get(band, 0) + 1
    return tuple(sorted(counts.items(), reverse=True))


@lru_cache(maxsize=256)
def _aging_odds(
    bands: tuple[tuple[int, int], ...], target: int, bonus: int, scores: tuple[int, ...]
) -> Odds:
    saves = sum(count for _, count in bands)
    most = min(saves, sum(score - 1 for score in scores))  # the most failures one survives
    failures = _failures(bands, target, bonus, most)
    survivals = _survivals(scores, most)
    # Whole numbers over one denominator: 20 per save, 6 per pick (Fractions one by one
    # would spend their time on greatest common divisors of numbers of thousands of digits).
    denominator = 20**saves * 6**most
    weighted: list[tuple[str, str, Fraction]] = []
    alive = 0
    for f in range(most + 1):
        ways = failures[f] * survivals[f] * 6 ** (most - f)
        alive += ways
        label = (
            word("Passes every save")
            if f == 0
            else say_plural(
                "Loses {count} point of ability for good",
                "Loses {count} points of ability for good",
                f,
            )
        )
        weighted.append((f"lost:{f}", label, Fraction(ways, denominator)))
    dead = Fraction(denominator - alive, denominator)
    weighted.append(("dead", word("Dies: an ability falls to 0"), dead))
    shown = [
        say("{count} at {penalty}", count=count, penalty=f"{band:+d}") for band, count in bands
    ]
    note = say_plural(
        "{count} aging save vs paralysis against {target} ({bands}); each failure costs a "
        "random ability a point.",
        "{count} aging saves vs paralysis against {target} ({bands}); each failure costs a "
        "random ability a point.",
        saves,
        target=target,
        bands=shown,
    )
    return grouped("magical_aging", weighted, notes=(note,))


def magical_aging(sheet: Sheet, params: Params, penalty: int) -> Odds:
    """Ruling OS-5: each aging save due in the skipped years, at its band's penalty with
    every modifier in force (``penalty``: OS-8, OS-9); each failure costs a random ability
    a point for good, and an ability at 0 kills (OS-1), which ends the saves.

    Keys: ``lost:N`` (survives, N points lost for good) and ``dead``.
    """
    _alive(sheet, "age")
    if data.AGING[sheet["race"]] is None:
        elves = word("Elves do not age: no saves")
        return grouped("magical_aging", [("lost:0", elves, Fraction(1))])
    bands = _aging_bands(str(sheet["race"]), int(sheet["age"]), int(params["years"]))
    if not bands:
        none_due = word("No aging save falls due")
        return grouped("magical_aging", [("lost:0", none_due, Fraction(1))])
    scores = tuple(int(sheet[ability]) for ability in data.ABILITIES)
    return _aging_odds(bands, int(sheet["save_paralysis"]), penalty, scores)
