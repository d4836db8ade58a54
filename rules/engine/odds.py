"""Exact odds of an action before it is taken (fractions, never sampling).

A ruleset answers :meth:`Ruleset.odds` with :class:`Odds`: every way the action can
turn out, each with its exact probability, computed from the sheet as it is and the
campaign's options. The numbers come from icepool's exact dice algebra; nothing is
rolled and no dice counter moves.

``key`` is stable and machine-readable (a resulting state, ``pass``/``fail`` of a save,
or the number a re-roll gives); ``label`` is a sentence fragment for people.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from math import comb
from typing import Any, TypeVar

import icepool

from rules.engine.dice import DiceExpression
from rules.engine.words import say

NO_ROLL = "no_roll"
T = TypeVar("T")


class TooManyPaths(RuntimeError):
    """Enumerating every draw of an action would take too long: it needs odds_<action>."""


class PathGenerator:
    """Walks every sequence of draws an action can make, one run per sequence.

    Each run follows ``prefix`` (the draws chosen so far) and takes 0 for any draw past
    it, remembering each draw's range; :meth:`next_prefix` then moves to the next
    sequence like an odometer. Exact: each sequence has probability 1 / (product of
    its ranges), and the sequences cover every way the dice can fall.
    """

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.ranges: list[int] = []

    def randbelow(self, n: int) -> int:
        position = len(self.ranges)
        self.ranges.append(n)
        return self.prefix[position] if position < len(self.prefix) else 0

    def probability(self) -> Fraction:
        denominator = 1
        for size in self.ranges:
            denominator *= size
        return Fraction(1, denominator)

    def next_prefix(self) -> list[int] | None:
        draws = [*self.prefix[: len(self.ranges)], *[0] * (len(self.ranges) - len(self.prefix))]
        for position in range(len(draws) - 1, -1, -1):
            if draws[position] + 1 < self.ranges[position]:
                return [*draws[:position], draws[position] + 1]
        return None


def enumerate_draws(run: Callable[[PathGenerator], T], *, limit: int) -> list[tuple[T, Fraction]]:
    """Every outcome of ``run`` over every sequence of draws, with its probability.

    Raises :class:`TooManyPaths` past ``limit`` runs: a ruleset then computes the
    action's odds with icepool in ``odds_<action>``.
    """
    outcomes: list[tuple[T, Fraction]] = []
    prefix: list[int] | None = []
    while prefix is not None:
        if len(outcomes) >= limit:
            raise TooManyPaths(say("more than {limit} ways for the dice to fall", limit=limit))
        generator = PathGenerator(prefix)
        outcomes.append((run(generator), generator.probability()))
        prefix = generator.next_prefix()
    return outcomes


@dataclass(frozen=True)
class Outcome:
    key: str
    label: str
    probability: Fraction

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "probability": float(self.probability),
            "fraction": f"{self.probability.numerator}/{self.probability.denominator}",
        }


@dataclass(frozen=True)
class Odds:
    """Every outcome of one action; the probabilities add up to exactly 1."""

    action: str
    outcomes: tuple[Outcome, ...]
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        total = sum((o.probability for o in self.outcomes), Fraction(0))
        if total != 1:
            raise ValueError(
                say(
                    "the odds of {action} add up to {total}, not 1",
                    action=self.action,
                    total=str(total),
                )
            )
        keys = [o.key for o in self.outcomes]
        if len(set(keys)) != len(keys):
            raise ValueError(say("the odds of {action} repeat an outcome key", action=self.action))

    def probability(self, key: str) -> Fraction:
        return next((o.probability for o in self.outcomes if o.key == key), Fraction(0))

    @cached_property
    def _outcome_dicts(self) -> tuple[dict[str, Any], ...]:
        # Written once per Odds: the exact fractions of a cached Odds (thousands of digits
        # for a thousand years of aging) are not turned into text again on every request.
        return tuple(o.as_dict() for o in self.outcomes)

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "outcomes": [dict(o) for o in self._outcome_dicts],
            "notes": list(self.notes),
        }


def certain(action: str, label: str, *, key: str = NO_ROLL, notes: Iterable[str] = ()) -> Odds:
    """An action whose result no die decides."""
    return Odds(action, (Outcome(key, label, Fraction(1)),), tuple(notes))


def grouped(
    action: str,
    weighted: Iterable[tuple[str, str, Fraction]],
    *,
    notes: Iterable[str] = (),
) -> Odds:
    """Odds from (key, label, probability) triples; equal keys add up, order kept."""
    totals: dict[str, Fraction] = {}
    labels: dict[str, str] = {}
    for key, label, probability in weighted:
        if probability == 0:
            continue
        totals[key] = totals.get(key, Fraction(0)) + probability
        labels.setdefault(key, label)
    outcomes = tuple(Outcome(key, labels[key], totals[key]) for key in totals)
    return Odds(action, outcomes, tuple(notes))


def die_outcomes(die: icepool.Die[int]) -> list[tuple[int, Fraction]]:
    """Each face value of an icepool die with its exact probability, lowest first."""
    denominator = die.denominator()
    return [(int(value), Fraction(quantity, denominator)) for value, quantity in die.items()]


def from_die(
    action: str,
    die: icepool.Die[int],
    classify: Callable[[int], tuple[str, str]],
    *,
    notes: Iterable[str] = (),
) -> Odds:
    """Odds of an action decided by one die (or sum): each value classified to an outcome."""
    return grouped(
        action,
        ((*classify(value), probability) for value, probability in die_outcomes(die)),
        notes=notes,
    )


def chance_at_least(die: icepool.Die[int], target: int) -> Fraction:
    """P(die >= target) (ruling G-5: a save passes when d20 + modifiers >= target)."""
    return sum((p for value, p in die_outcomes(die) if value >= target), Fraction(0))


def d(sides: int) -> icepool.Die[int]:
    return icepool.d(sides)


# -- distributions that depend only on a few numbers, computed once per process --------
# icepool's dice are immutable, so one computed distribution serves every request that
# asks for the same numbers (bench/odds.py measures the difference).
# Sums of many dice by polynomial arithmetic on Python integers: the polynomial whose
# coefficient of x^s counts the ways to roll s, each coefficient in its own ``width``
# bytes of one integer (x = 2^(8 * width)). The coefficients never exceed sides^count,
# so they never spill into each other; one big multiplication adds a die to every sum
# at once, where icepool would take seconds for a hundred dice.
def _width(count: int, sides: int) -> int:
    return (count * sides.bit_length()) // 8 + 2


def _unpacked(value: int, width: int, first: int, last: int) -> icepool.Die[int]:
    raw = value.to_bytes(max((last + 1) * width, (value.bit_length() + 7) // 8), "little")
    counts = {
        exponent: int.from_bytes(raw[exponent * width : (exponent + 1) * width], "little")
        for exponent in range(first, last + 1)
    }
    return icepool.Die({exponent: n for exponent, n in counts.items() if n})


@lru_cache(maxsize=1024)
def sum_of(count: int, sides: int) -> icepool.Die[int]:
    """The sum of ``count`` dice of ``sides`` sides (``count``dS), exactly."""
    if count == 0:
        return icepool.Die([0])
    width = _width(count, sides)
    face = sum(1 << (f * width * 8) for f in range(1, sides + 1))
    return _unpacked(face**count, width, count, count * sides)


@lru_cache(maxsize=1024)
def lowest_of(count: int, keep: int, sides: int) -> icepool.Die[int]:
    """The sum of the lowest ``keep`` of ``count`` dice of ``sides`` sides, exactly.

    Counted by the face b of the keep-th lowest die: m < keep dice below b (any faces
    under b, chosen among ``count`` in C(count, m) ways), and of the other count - m
    dice, all b or more, at least keep - m showing b; the kept sum is the m dice's sum
    plus (keep - m) * b. The sum over m runs as a Horner scheme on packed polynomials.
    """
    if keep == 0:
        return icepool.Die([0])
    n, k = count, keep
    width = _width(n, sides)
    bits = width * 8
    total = 0
    for b in range(1, sides + 1):
        a = sides - b  # faces above b
        horner = 0
        r, j = n - k + 1, 1  # r dice left, at least j of them showing b
        tail = (a + 1) ** r - a**r  # ways for r dice to be >= b with at least j at b
        for m in range(k - 1, -1, -1):
            below = sum(horner << (f * bits) for f in range(1, b))  # one more die below b
            horner = ((comb(n, m) * tail) << (j * b * bits)) + below
            tail = (a + 1) * tail - comb(r, j) * a ** (r - j + 1)
            r, j = r + 1, j + 1
        total += horner
    return _unpacked(total, width, k, k * sides)


@lru_cache(maxsize=1024)
def successes(count: int, sides: int, threshold: int) -> icepool.Die[int]:
    """How many of ``count`` dice of ``sides`` sides show ``threshold`` or more.

    The binomial distribution, written out: the same as ``count @ (d(sides) >= threshold)``
    without adding ``count`` dice one by one.
    """
    hit = min(max(sides - threshold + 1, 0), sides)
    miss = sides - hit
    weights = {k: comb(count, k) * hit**k * miss ** (count - k) for k in range(count + 1)}
    return icepool.Die({k: weight for k, weight in weights.items() if weight})


# The most sums a dice expression may have for :func:`expression_die` (1000d1000 has a
# million), and the most bits its packed polynomial may take (100d6: 190,000 bits, a few
# milliseconds the first time; 999d5 would take 15 million bits and seconds): past
# either, an action's odds are not computed. (Hit dice rests, up to 200d6 keeping 100,
# are bounded by the sheet's schema and call lowest_of directly.)
MAX_SUMS = 5000
MAX_PACKED_BITS = 250_000


@lru_cache(maxsize=1024)
def expression_die(expression: str) -> icepool.Die[int]:
    """The total of a dice expression as the dice service rolls it (``3d6+1``, ``4d6kh3``,
    ``5d10>=8``): exactly, from the cached sums above.

    Raises :class:`TooManyPaths` when the total could take more than MAX_SUMS values.
    """
    parsed = DiceExpression.parse(expression)
    count, sides, keep = parsed.count, parsed.sides, parsed.keep_count
    if parsed.hit_on is not None:
        die = successes(count, sides, parsed.hit_on)
    else:
        packed_bits = (keep * sides + 1) * _width(count, sides) * 8
        if keep * (sides - 1) + 1 > MAX_SUMS or packed_bits > MAX_PACKED_BITS:
            raise TooManyPaths(
                say("{expression} has too many totals to list", expression=expression)
            )
        if parsed.keep == "l" and keep < count:
            die = lowest_of(count, keep, sides)
        elif parsed.keep == "h" and keep < count:
            # The highest K of N dice are the lowest K with every face f read as S + 1 - f.
            die = (sides + 1) * keep - lowest_of(count, keep, sides)
        else:
            die = sum_of(count, sides)
    return die + parsed.modifier if parsed.modifier else die
