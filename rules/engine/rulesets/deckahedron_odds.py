"""Exact odds of Deckahedron flips (see rules/engine/odds.py).

A flip's result depends on the deck's order, which only the server knows; the player
knows the deck's composition (ruling DK-1: which cards are in it, not in which order). So
the odds treat every order of the deck as equally likely, and count: a card is drawn
uniformly from the deck; an empty deck is refilled by shuffling in the discard pile,
which by then holds the cards already flipped (DK-3); a wound card stops the flipping.
Nothing here reads the deck's order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import cache

from rules.engine.words import Message, listed, say, word

# Results in order from best to worst, with their words for people.
RESULT_WORDS = {
    "vv": word("two checks"),
    "v": word("a check"),
    "x": word("a cross"),
    "xx": word("two crosses"),
}
# The same first in a label, with a capital.
FIRST_RESULT_WORDS = {
    "vv": word("Two checks"),
    "v": word("A check"),
    "x": word("A cross"),
    "xx": word("Two crosses"),
}
WOUND = "wound"

# A pile as counts of card kinds, each kind a result at the flip's rank or WOUND.
Pile = tuple[tuple[str, int], ...]


def pile(kinds: Iterable[str]) -> Pile:
    return tuple(sorted(Counter(kinds).items()))


def _take(counts: Pile, kind: str) -> Pile:
    return tuple((k, n - 1 if k == kind else n) for k, n in counts if n - (k == kind) > 0)


def _add(counts: Pile, kind: str) -> Pile:
    merged = dict(counts)
    merged[kind] = merged.get(kind, 0) + 1
    return tuple(sorted(merged.items()))


@cache
def _sequences(deck: Pile, discard: Pile, left: int) -> Mapping[tuple[str, ...], Fraction]:
    """P(the multiset of results drawn) for ``left`` more flips (a wound card stops)."""
    if left == 0:
        return {(): Fraction(1)}
    if not deck:  # ruling DK-3: the discard pile is shuffled in
        deck, discard = discard, ()
    if not deck:  # no card anywhere: the schema forbids it, but stop cleanly
        return {(): Fraction(1)}
    total = sum(n for _, n in deck)
    outcomes: dict[tuple[str, ...], Fraction] = {}
    for kind, count in deck:
        chance = Fraction(count, total)
        after = _sequences(_take(deck, kind), _add(discard, kind), 0 if kind == WOUND else left - 1)
        for drawn, p in after.items():
            key = tuple(sorted((kind, *drawn), key=_order))
            outcomes[key] = outcomes.get(key, Fraction(0)) + chance * p
    return outcomes


def _order(kind: str) -> int:
    return [*RESULT_WORDS, WOUND].index(kind)


def flip_outcomes(deck: Pile, discard: Pile, count: int) -> list[tuple[str, str, Fraction]]:
    """(key, label, probability) for flipping ``count`` cards, most likely first."""
    weighted: list[tuple[str, str, Fraction]] = []
    for drawn, chance in _sequences(deck, discard, count).items():
        key = "+".join(drawn)
        weighted.append((key, _label(drawn), chance))
    return sorted(weighted, key=lambda item: (-item[2], item[0]))


def _label(drawn: tuple[str, ...]) -> Message:
    """The results drawn in words, best first: "Two checks, a cross; then a wound card..."."""
    results = [kind for kind in drawn if kind != WOUND]
    words = listed(
        [
            FIRST_RESULT_WORDS[kind] if i == 0 else RESULT_WORDS[kind]
            for i, kind in enumerate(results)
        ]
    )
    if WOUND not in drawn:
        return words
    if not results:
        return word("A wound card: the flipping stops")
    return say("{results}; then a wound card: the flipping stops", results=words)
