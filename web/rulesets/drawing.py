"""What the sheet pictures share: percentages, pips, the next scheduled effect of a kind."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def percent(value: float, maximum: float) -> int:
    if maximum <= 0:
        return 0
    return max(0, min(100, round(100 * value / maximum)))


def tone(fraction: int) -> str:
    """The colour of a meter filled to ``fraction`` percent."""
    return "good" if fraction > 50 else ("warn" if fraction > 20 else "bad")


def pips(filled: int, total: int, cap: int = 12) -> dict[str, Any]:
    """Pips for a count: ``filled`` of ``total`` (drawn up to ``cap``, the rest as "+n")."""
    shown = min(max(total, filled), cap)
    return {
        "marks": [i < filled for i in range(shown)],
        "more": max(0, filled - cap),
        "filled": filled,
        "total": total,
    }


def next_effect(effects: Iterable[Any], kind: str, **payload: Any) -> Any | None:
    """The first scheduled effect of ``kind`` whose payload has these values."""
    for effect in effects:
        if effect.kind != kind:
            continue
        if all(effect.payload.get(k) == v for k, v in payload.items()):
            return effect
    return None
