"""How deckahedron characters are shown: ranks, the three piles, harm and wound tokens."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext_lazy

from rules.engine.rulesets import deckahedron as dk
from web.rulesets import DemoCharacter, Presentation
from web.rulesets.drawing import pips


def view(sheet: Mapping[str, Any], effects: Iterable[Any], **_: Any) -> dict[str, Any]:
    def card(card_id: str) -> dict[str, Any]:
        data = dk.CARDS[card_id]
        return {
            "id": card_id,
            "stamina": data.stamina,
            "wound": data.wound,
            "results": list(zip(dk.RANK_NAMES.values(), data.results, strict=True)),
        }

    deck = list(sheet["deck"])
    discard = [card(c) for c in sheet["discard"]]
    exhaustion = [card(c) for c in sheet["exhaustion"]]
    stamina_total = len(dk.STAMINA_CARD_IDS)
    exhausted = len(sheet["exhaustion"])
    ranks = []
    for attribute in dk.ATTRIBUTES:
        rank = int(sheet[attribute])
        ranks.append(
            {
                "name": attribute,
                "rank": rank,
                "rank_name": dk.RANK_NAMES[rank],
                "pips": pips(rank, 4),
            }
        )
    return {
        "ranks": ranks,
        "deck_size": int(sheet.get("deck_size", len(deck))),
        "deck_stack": range(min(4, max(1, len(deck) // 4))) if deck else range(0),
        "discard": discard,
        "discard_top": discard[0] if discard else None,
        "exhaustion": exhaustion,
        "harm": pips(int(sheet["harm"]), dk.MAX_HARM),
        "wounds": pips(int(sheet["wounds"]), dk.MAX_WOUNDS),
        "stamina": pips(stamina_total - exhausted, stamina_total),
        "stamina_left": stamina_total - exhausted,
        "stamina_total": stamina_total,
        "incapacitated": bool(sheet["incapacitated"]),
    }


def ranks(sheet: Mapping[str, Any]) -> list[tuple[str, str]]:
    """An attribute's four ranks by name (ruling DK-2)."""
    return [(str(rank), f"{rank} {name}") for rank, name in dk.RANK_NAMES.items()]


PRESENTATION = Presentation(
    key="deckahedron",
    view=view,
    choices={attribute: ranks for attribute in dk.ATTRIBUTES},
    decisions={dk.WOUND_CHOICE: gettext_lazy("A wound card or stamina")},
    party=(
        DemoCharacter(1, "Cael", {"strength": 3, "dexterity": 2, "intelligence": 1}),
        DemoCharacter(2, "Ysolde", {"strength": 1, "dexterity": 3, "intelligence": 4}),
    ),
)
