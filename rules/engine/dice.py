"""The one dice service (ruling G-2).

Every random number in Sawbones is drawn through :class:`Dice`, which records each
roll (label, expression, every die, kept dice, total) so the resolution that used it
can store it. Where the numbers come from is injected as a :class:`Generator`:

* :class:`HmacGenerator` in production: each campaign has a secret seed and a
  counter; draw *n* is derived from ``HMAC-SHA256(seed, n)``, so any roll can be
  recomputed later from the seed and the counter range stored on its resolution.
* :class:`SystemGenerator` for throwaway use (the demo, benchmarks).
* :class:`ScriptedGenerator` in tests: the faces to come, in order.
"""

from __future__ import annotations

import hmac
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from rules.engine.words import Message, say, say_plural, text_said, word

T = TypeVar("T")

MAX_DICE = 1000
MAX_SIDES = 1000


class DiceError(ValueError):
    """A dice expression that cannot be rolled (bad syntax, absurd size): its argument is a
    message (rules.engine.words); a refusal that names it keeps it as a value
    (``error.args[0]``), not ``str(error)``."""


class ScriptExhausted(RuntimeError):
    """A scripted generator was asked for more numbers than the test scripted."""


class Generator(Protocol):
    """Source of uniform integers; the only thing a dice service needs."""

    def randbelow(self, n: int) -> int:
        """Return a uniform integer in ``[0, n)``."""
        ...


class SystemGenerator:
    """Python's Mersenne Twister, optionally seeded. Not for campaign play."""

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)  # noqa: S311 - not for campaign play

    def randbelow(self, n: int) -> int:
        return self._random.randrange(n)


class HmacGenerator:
    """Deterministic, verifiable draws from a secret seed and a counter.

    Each call consumes one or more counter values (rejection sampling keeps the
    result uniform). ``counter`` after a resolution is where the next one starts.
    """

    def __init__(self, seed: bytes, counter: int = 0) -> None:
        if not seed:
            raise ValueError("an HMAC generator needs a non-empty seed")
        self._seed = seed
        self.counter = counter

    def _block(self) -> int:
        # hmac.digest: the same HMAC-SHA256 in one call to OpenSSL, without the objects
        # hmac.new makes (a die is rolled for most effects of the clock's catch-up)
        digest = hmac.digest(self._seed, self.counter.to_bytes(8, "big"), "sha256")
        self.counter += 1
        return int.from_bytes(digest[:8], "big")

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randbelow needs n >= 1")
        span = 1 << 64
        limit = span - (span % n)
        while True:
            value = self._block()
            if value < limit:
                return value % n


class ScriptedGenerator:
    """Test generator: yields scripted die *faces* (1-based) for dice rolls.

    ``ScriptedGenerator([6, 1, 3])`` makes the next three dice show 6, 1 and 3,
    whatever their size (a face larger than the die is a test bug and raises).
    For shuffles the scripted values are also faces: ``randbelow(n)`` returns
    ``face - 1``.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self.used = 0

    def randbelow(self, n: int) -> int:
        if self.used >= len(self._faces):
            raise ScriptExhausted(say("script ran out after {count} numbers", count=self.used))
        face = self._faces[self.used]
        self.used += 1
        if not 1 <= face <= n:
            raise ValueError(
                say("scripted face {face} does not fit a die of {sides}", face=face, sides=n)
            )
        return face - 1

    @property
    def remaining(self) -> int:
        return len(self._faces) - self.used


RollKind = Literal["dice", "pool", "shuffle"]


@dataclass(frozen=True)
class Roll:
    """One recorded roll: what was rolled, every die, which counted, the total.

    ``kind`` says how to read it: ``dice`` (the kept dice summed, plus the modifier),
    ``pool`` (the total counts the hits, ruling CM-1) or ``shuffle`` (Fisher-Yates
    draws; the total is how many items). ``sizes`` is the size of each die drawn, in
    order, so that anyone can draw them again from the seed (docs/dice.md).
    ``hidden`` rolls (ruling G-4) are shown to referees only.
    """

    label: str
    expression: str
    dice: tuple[int, ...]
    kept: tuple[int, ...]
    total: int
    hidden: bool = False
    kind: RollKind = "dice"
    sizes: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """The stored form of a roll (a resolution's ``rolls``)."""
        out: dict[str, object] = {
            "label": str(self.label),
            "expression": self.expression,
            "dice": list(self.dice),
            "kept": list(self.kept),
            "total": self.total,
            "hidden": self.hidden,
            "kind": self.kind,
            "sizes": list(self.sizes),
        }
        if isinstance(self.label, Message):
            # its words in another language (rules.engine.words); the English stays "label"
            out["label_said"] = self.label.data()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Roll:
        """A stored roll read back. Rows written before rolls carried their kind and
        sizes get them from the expression, the only place one is read back."""
        expression = str(data.get("expression", ""))
        kind: RollKind
        if data.get("kind") in ("dice", "pool", "shuffle") and data.get("sizes") is not None:
            kind, sizes = data["kind"], tuple(data["sizes"])
        else:
            kind, sizes = _kind_and_sizes(expression)
        return cls(
            label=text_said("label", data),
            expression=expression,
            dice=tuple(data.get("dice", ())),
            kept=tuple(data.get("kept", ())),
            total=int(data.get("total", 0)),
            hidden=bool(data.get("hidden", False)),
            kind=kind,
            sizes=sizes,
        )

    @property
    def dropped_any(self) -> bool:
        """Some dice of a keep-highest/lowest roll did not count."""
        return self.kind == "dice" and len(self.kept) < len(self.dice)

    @property
    def sides(self) -> int | None:
        """The size of its dice when they are all one size (a dice roll or pool)."""
        return self.sizes[0] if self.kind != "shuffle" and self.sizes else None


def shuffle_sizes(count: int) -> tuple[int, ...]:
    """Fisher-Yates over ``count`` items draws one die of each size n, n-1, ..., 2."""
    return tuple(range(count, 1, -1))


_SHUFFLE = re.compile(r"^shuffle\((\d+)\)$")


def _kind_and_sizes(expression: str) -> tuple[RollKind, tuple[int, ...]]:
    shuffle = _SHUFFLE.match(expression)
    if shuffle:
        return "shuffle", shuffle_sizes(int(shuffle.group(1)))
    parsed = DiceExpression.parse(expression)
    return ("pool" if parsed.hit_on is not None else "dice"), parsed.sizes


# ``NdS``, optionally keeping the highest/lowest K (``4d6kl2``) or counting hits, the
# dice showing T or more (``3d6>=5``: a dice pool, ruling CM-1), then a modifier.
_EXPRESSION = re.compile(r"^\s*(\d*)d(\d+)(?:k([hl])(\d+)|>=(\d+))?\s*(?:([+-])\s*(\d+))?\s*$")
# The same grammar as a JSON Schema ``pattern`` (every dice expression a table may name:
# ``1d20``, ``4d6kh3``, ``3d6>=5``); the counts' ranges are :meth:`DiceExpression.parse`'s.
EXPRESSION_PATTERN = _EXPRESSION.pattern


def expression_pattern(*, max_count: int = MAX_DICE, max_sides: int = MAX_SIDES) -> str:
    """A JSON Schema ``pattern`` for the plain dice expressions a referee may type in a
    table (``2d6``, ``d20+1``): count and sides as in :class:`DiceExpression`, with
    ``max_count`` and ``max_sides`` digits at most. :meth:`DiceExpression.parse` still
    decides the ranges."""
    count_digits, sides_digits = len(str(max_count)), len(str(max_sides))
    return (
        rf"^([1-9][0-9]{{0,{count_digits - 1}}})?d[1-9][0-9]{{0,{sides_digits - 1}}}"
        r"([+-][0-9]{1,3})?$"
    )


@dataclass(frozen=True)
class DiceExpression:
    count: int
    sides: int
    keep: str | None  # "h" (highest) or "l" (lowest)
    keep_count: int
    modifier: int
    hit_on: int | None = None  # a pool: the total counts the dice showing this or more

    @classmethod
    def parse(cls, text: str) -> DiceExpression:
        match = _EXPRESSION.match(text)
        if not match:
            raise DiceError(say("not a dice expression: {expression}", expression=repr(text)))
        count = int(match.group(1) or 1)
        sides = int(match.group(2))
        keep = match.group(3)
        keep_count = int(match.group(4)) if match.group(4) else count
        hit_on = int(match.group(5)) if match.group(5) else None
        modifier = int(match.group(7) or 0) * (-1 if match.group(6) == "-" else 1)
        if not 1 <= count <= MAX_DICE or not 1 <= sides <= MAX_SIDES:
            raise DiceError(say("dice out of range in {expression}", expression=repr(text)))
        if keep is not None and not 1 <= keep_count <= count:
            raise DiceError(
                say_plural(
                    "cannot keep {keep} of {count} dice",
                    "cannot keep {keep} of {count} dice",
                    count,
                    keep=keep_count,
                )
            )
        if hit_on is not None and not 1 <= hit_on <= sides:
            raise DiceError(say("a d{sides} cannot hit on {target}", sides=sides, target=hit_on))
        return cls(count, sides, keep, keep_count, modifier, hit_on)

    @property
    def sizes(self) -> tuple[int, ...]:
        return (self.sides,) * self.count

    def __str__(self) -> str:
        text = f"{self.count}d{self.sides}"
        if self.keep:
            text += f"k{self.keep}{self.keep_count}"
        if self.hit_on is not None:
            text += f">={self.hit_on}"
        if self.modifier:
            text += f"{self.modifier:+d}"
        return text


def _parsed(expression: str) -> DiceExpression:
    """:meth:`DiceExpression.parse`, each text parsed once: the clock's catch-up rolls the
    same few expressions thousands of times (issue 39); a parsed expression is frozen.
    A text that does not parse is not kept (its error is raised each time)."""
    parsed = _PARSED.get(expression)
    if parsed is None:
        parsed = DiceExpression.parse(expression)
        if len(_PARSED) < _PARSED_KEPT:
            _PARSED[expression] = parsed
    return parsed


_PARSED: dict[str, DiceExpression] = {}
_PARSED_KEPT = 1024


@dataclass
class Dice:
    """The dice service a ruleset receives. Records every roll it makes."""

    generator: Generator
    rolls: list[Roll] = field(default_factory=list)

    def _die(self, sides: int) -> int:
        return self.generator.randbelow(sides) + 1

    def roll(self, expression: str, label: str, *, hidden: bool = False) -> Roll:
        """Roll ``expression`` (``4d6kl2``, ``1d20+10``, ``d6``, ``3d6>=5``) and record it.

        A pool (``3d6>=5``) keeps the hits, the dice showing 5 or more, and its total
        is how many there are (plus any modifier).
        """
        parsed = _parsed(expression)
        dice = tuple(self._die(parsed.sides) for _ in range(parsed.count))
        hit_on = parsed.hit_on
        if hit_on is not None:
            kept = tuple(face for face in dice if face >= hit_on)
        elif parsed.keep == "h":
            kept = tuple(sorted(dice, reverse=True)[: parsed.keep_count])
        elif parsed.keep == "l":
            kept = tuple(sorted(dice)[: parsed.keep_count])
        else:
            kept = dice
        total = (len(kept) if hit_on is not None else sum(kept)) + parsed.modifier
        result = Roll(
            label=label,
            expression=str(parsed),
            dice=dice,
            kept=kept,
            total=total,
            hidden=hidden,
            kind="pool" if hit_on is not None else "dice",
            sizes=parsed.sizes,
        )
        self.rolls.append(result)
        return result

    def shuffle(self, items: Sequence[T], label: str, *, hidden: bool = False) -> list[T]:
        """Fisher-Yates shuffle drawn from the generator, recorded as a roll.

        The recorded ``dice`` are the draws (die of size i+1 for position i), so a
        shuffle is reproducible from the generator like any roll.
        """
        result = list(items)
        draws: list[int] = []
        for i in range(len(result) - 1, 0, -1):
            face = self._die(i + 1)
            draws.append(face)
            j = face - 1
            result[i], result[j] = result[j], result[i]
        self.rolls.append(
            Roll(
                label=label,
                expression=f"shuffle({len(result)})",
                dice=tuple(draws),
                kept=(),
                total=len(result),
                hidden=hidden,
                kind="shuffle",
                sizes=shuffle_sizes(len(result)),
            )
        )
        return result

    def pick(self, options: Sequence[T], label: str, *, hidden: bool = False) -> T:
        """Choose one of ``options`` uniformly, recorded as a 1dN roll."""
        if not options:
            raise DiceError(word("cannot pick from nothing"))
        rolled = self.roll(f"1d{len(options)}", label, hidden=hidden)
        return options[rolled.total - 1]
