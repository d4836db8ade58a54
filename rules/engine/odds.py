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
from typing import Any, TypeVar

import icepool

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
            raise TooManyPaths(f"more than {limit} ways for the dice to fall")
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
            raise ValueError(f"the odds of {self.action} add up to {total}, not 1")
        keys = [o.key for o in self.outcomes]
        if len(set(keys)) != len(keys):
            raise ValueError(f"the odds of {self.action} repeat an outcome key")

    def probability(self, key: str) -> Fraction:
        return next((o.probability for o in self.outcomes if o.key == key), Fraction(0))

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "outcomes": [o.as_dict() for o in self.outcomes],
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
