"""Deckahedron: stamina as cards, harm and wound tokens.

A character's Deckahedron is a deck of 20 cards (``deckahedron_deck.csv`` beside this
module, ruling DK-1). Each card shows a result (xx, x, v, vv) at each of the four
ranks, and ten cards carry the Stamina symbol. Losing Stamina moves Stamina cards to
the exhaustion pile; harm and wound tokens sit on that pile and hold cards there
through rest and healing; wound cards cycle through the deck and cut flips short.

Every pile is an ordered list of card ids, top card first (project ruling DK-P1). The
deck's order is the server's secret: :meth:`Deckahedron.public_sheet` shows it sorted,
and every shuffle is a hidden roll of the dice service (DK-P2), so it is recorded and
reproducible but shown to referees only.

docs/rulesets/deckahedron.md explains the actions and lists the rulings (DK-1..DK-9)
and project rulings (DK-P1..) cited below.
"""

from __future__ import annotations

import copy
import csv
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rules.engine.dice import Dice, SystemGenerator
from rules.engine.interface import (
    RESEAL_EFFECT,
    ActionBlocked,
    ActionSpec,
    ChoiceOption,
    Context,
    OutOfBounds,
    Params,
    PendingChoice,
    Result,
    RuleError,
    Ruleset,
    Sheet,
    options_schema,
    params_schema,
)
from rules.engine.odds import Odds, certain, grouped
from rules.engine.rulesets.deckahedron_odds import WOUND, Pile, flip_outcomes, pile
from rules.engine.validation import validate
from rules.engine.words import (
    Message,
    as_sentence,
    joined,
    listed,
    say,
    say_plural,
    text_dict,
    text_said,
    word,
)

RESULTS = ("xx", "x", "v", "vv")  # two crosses, cross, check, two checks (DK-1)
# The results in words, for summaries people read.
RESULT_WORDS = {
    "xx": word("two crosses"),
    "x": word("a cross"),
    "v": word("a check"),
    "vv": word("two checks"),
}
RANK_NAMES = {  # ruling DK-2
    1: word("Anchor"),
    2: word("Bulb"),
    3: word("Crescent"),
    4: word("Dart"),
}
ATTRIBUTES = ("strength", "dexterity", "intelligence")
# The attributes' names as a summary shows them ("Flips 2 at Strength (Anchor)").
ATTRIBUTE_NAMES = {
    "strength": word("Strength"),
    "dexterity": word("Dexterity"),
    "intelligence": word("Intelligence"),
}
BREATHER_ATTRIBUTES = ("intelligence", "dexterity")
PILES = ("deck", "discard", "exhaustion")
MAX_HARM = 2  # ruling DK-2
MAX_WOUNDS = 2  # ruling DK-2
DECK_FILE = Path(__file__).with_name("deckahedron_deck.csv")
WOUND_CHOICE = "wound_card_stamina"


@dataclass(frozen=True)
class Card:
    """One card of ``deckahedron_deck.csv``: its result at ranks 1-4 and Stamina symbol."""

    id: str
    results: tuple[str, str, str, str]
    stamina: bool
    note: str = ""

    @property
    def wound(self) -> bool:
        return self.id.startswith("W")

    def result(self, rank: int) -> str:
        return self.results[rank - 1]

    def flip_record(self, rank: int) -> dict[str, Any]:
        """What a flip of this card shows, for ``Result.outcome``."""
        return {
            "card": self.id,
            "result": self.result(rank),
            "stamina": self.stamina,
            "wound": self.wound,
        }


def load_cards(path: Path = DECK_FILE) -> dict[str, Card]:
    """The cards by id in file order: "1".."20", then the wound cards W1, W2 (DK-1)."""
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    cards: dict[str, Card] = {}
    for row in rows:
        results = (row["rank1_anchor"], row["rank2_bulb"], row["rank3_crescent"], row["rank4_dart"])
        if any(result not in RESULTS for result in results) or row["stamina"] not in {"yes", "no"}:
            # the shipped file is broken: a programmer's error, no player reads it
            raise ValueError("bad Deckahedron card row", path.name, row)
        cards[row["card"]] = Card(row["card"], results, row["stamina"] == "yes", row["note"])
    expected = [str(number) for number in range(1, 21)] + ["W1", "W2"]
    stamina = [card.id for card in cards.values() if card.stamina]
    if (
        list(cards) != expected
        or len(stamina) != 10
        or any(card.startswith("W") for card in stamina)
    ):
        raise ValueError(path.name, "must list cards 1-20 (10 with Stamina), then W1 and W2")
    return cards


CARDS = load_cards()
CARD_IDS = tuple(CARDS)
WOUND_CARD_IDS = tuple(card for card in CARD_IDS if CARDS[card].wound)
DECK_CARD_IDS = tuple(card for card in CARD_IDS if not CARDS[card].wound)
STAMINA_CARD_IDS = tuple(card for card in CARD_IDS if CARDS[card].stamina)
_CARD_ORDER = {card: index for index, card in enumerate(CARD_IDS)}

_RANK = {"type": "integer", "minimum": 1, "maximum": 4}


def _pile(cards: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "array",
        "items": {"type": "string", "enum": list(cards)},
        "uniqueItems": True,
        "maxItems": len(cards),
    }


SHEET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "strength": _RANK,
        "dexterity": _RANK,
        "intelligence": _RANK,
        "deck": _pile(CARD_IDS),
        "discard": _pile(CARD_IDS),
        "exhaustion": _pile(STAMINA_CARD_IDS),
        "harm": {"type": "integer", "minimum": 0, "maximum": MAX_HARM},
        "wounds": {"type": "integer", "minimum": 0, "maximum": MAX_WOUNDS},
        "incapacitated": {"type": "boolean"},
    },
    "required": [*ATTRIBUTES, *PILES, "harm", "wounds", "incapacitated"],
    "additionalProperties": False,
}

_INITIAL_SCHEMA = params_schema({attribute: _RANK for attribute in ATTRIBUTES})
_DESCRIPTION = {"type": "string", "maxLength": 300}
_RESHUFFLE_FIRST = {
    "type": "boolean",
    "default": False,
    "description": word("Shuffle the discard pile into the deck before searching (DK-4)."),
}

_WOUND_STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"enum": ["flip", "take_breather"]},
        "summary": {"type": "string"},
        "outcome": {
            "type": "object",
            "properties": {
                "rank": _RANK,
                "cards": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {
                            "card": {"enum": list(CARD_IDS)},
                            "result": {"enum": list(RESULTS)},
                        },
                        "required": ["card", "result"],
                    },
                },
            },
            "required": ["rank", "cards"],
        },
    },
    "required": ["action", "summary", "outcome"],
}


# -- pile mechanics (the sheet passed in is the action's own copy) ----------------------


def _cards(cards: list[str]) -> str:
    """Card ids for a message's value ("3, 12"), or "none"."""
    return ", ".join(cards) if cards else word("none")


def _chained(parts: list[Message], separator: str = "; ") -> Message:
    """Parts said one after the other inside a sentence (no capital, no full stop)."""
    return Message("", parts=[part for part in parts if part], separator=separator)


def _shuffle_discard_in(sheet: Sheet, dice: Dice, label: Message) -> None:
    """The discard pile goes into the deck, shuffled; hidden, it fixes the order (DK-P2)."""
    sheet["deck"] = dice.shuffle(sheet["deck"] + sheet["discard"], label, hidden=True)
    sheet["discard"] = []


def _flip_cards(
    sheet: Sheet, dice: Dice, rank: int, count: int
) -> tuple[list[dict[str, Any]], int]:
    """Flip up to ``count`` cards onto the discard pile; a wound card stops it (DK-3).

    Returns the flips as outcome records and how often an empty deck was refilled.
    """
    flips: list[dict[str, Any]] = []
    refills = 0
    for _ in range(count):
        if not sheet["deck"]:  # ruling DK-3: refill an empty deck from the discard pile
            _shuffle_discard_in(sheet, dice, word("deck ran out: discard pile shuffled in"))
            refills += 1
        card = CARDS[sheet["deck"].pop(0)]
        sheet["discard"].insert(0, card.id)
        flips.append(card.flip_record(rank))
        if card.wound:  # ruling DK-3: a wound card stops the flip sequence at once
            break
    return flips, refills


def _flips_text(flips: list[dict[str, Any]]) -> Message:
    parts = []
    for flip in flips:
        result = RESULT_WORDS[flip["result"]]
        if flip["wound"]:
            parts.append(
                say(
                    "card {card} shows {result} (wound card: a guttural noise, the flipping stops)",
                    card=flip["card"],
                    result=result,
                )
            )
        else:
            parts.append(say("card {card} shows {result}", card=flip["card"], result=result))
    return listed(parts)


@dataclass
class StaminaLoss:
    """What one "lose N Stamina" search did (ruling DK-4)."""

    requested: int
    reshuffled_first: bool = False
    exhausted: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    reshuffles: int = 0  # times the deck ran out and the discard pile was shuffled in
    incapacitated: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "requested": self.requested,
            "lost": len(self.exhausted),
            "reshuffled_first": self.reshuffled_first,
            "exhausted_cards": list(self.exhausted),
            "discarded_cards": list(self.discarded),
            "reshuffles": self.reshuffles,
            "incapacitated": self.incapacitated,
        }

    def describe(self) -> Message:
        parts = [
            say_plural(
                "{cards} to the exhaustion pile, {count} other card to discard",
                "{cards} to the exhaustion pile, {count} other cards to discard",
                len(self.discarded),
                cards=_cards(self.exhausted),
            )
        ]
        if self.reshuffled_first:
            parts.append(word("discard pile shuffled in first"))
        if self.reshuffles:
            parts.append(
                say("the deck ran out, discard pile shuffled in x{count}", count=self.reshuffles)
            )
        details = _chained(parts)
        if self.incapacitated:
            return say(
                "finds only {found} of {requested} Stamina ({details}) and is incapacitated: "
                "no Stamina card is left in the deck or the discard pile",
                found=len(self.exhausted),
                requested=self.requested,
                details=details,
            )
        return say(
            "loses {requested} Stamina ({details})", requested=self.requested, details=details
        )


def _search_stamina(sheet: Sheet, dice: Dice, loss: StaminaLoss) -> str | None:
    """Flip until a Stamina card shows; ``None`` when none is left anywhere (DK-4)."""
    while True:
        if not sheet["deck"]:
            if not any(CARDS[card].stamina for card in sheet["discard"]):
                return None  # project ruling DK-P6: no pointless shuffle first
            _shuffle_discard_in(
                sheet, dice, word("deck ran out in the Stamina search: discard shuffled in")
            )
            loss.reshuffles += 1
        card: str = sheet["deck"].pop(0)
        if CARDS[card].stamina:
            return card
        # Project ruling DK-P4: a wound card met while searching costs nothing more.
        sheet["discard"].insert(0, card)
        loss.discarded.append(card)


def _lose_stamina(sheet: Sheet, amount: int, reshuffle_first: bool, dice: Dice) -> StaminaLoss:
    """Lose ``amount`` Stamina points one by one; incapacitated if they run out (DK-4)."""
    loss = StaminaLoss(requested=amount)
    if reshuffle_first and sheet["discard"]:  # the player's option (DK-4, DK-P5)
        _shuffle_discard_in(sheet, dice, word("discard pile shuffled in before the Stamina search"))
        loss.reshuffled_first = True
    for _ in range(amount):
        card = _search_stamina(sheet, dice, loss)
        if card is None:
            sheet["incapacitated"] = True
            loss.incapacitated = True
            break
        sheet["exhaustion"].insert(0, card)
        loss.exhausted.append(card)
    return loss


def _token_floor(sheet: Mapping[str, Any]) -> int:
    return int(sheet["harm"]) + int(sheet["wounds"])


def _regain_stamina(sheet: Sheet, amount: int, dice: Dice) -> list[str]:
    """Move up to ``amount`` Stamina cards from the exhaustion pile into the deck (DK-5).

    Cards come off the top of the pile (DK-P7) and never leave fewer cards there than
    harm + wound tokens; the deck is shuffled with them.
    """
    movable = max(0, len(sheet["exhaustion"]) - _token_floor(sheet))
    count = min(amount, movable)
    moved: list[str] = sheet["exhaustion"][:count]
    if moved:
        sheet["exhaustion"] = sheet["exhaustion"][count:]
        sheet["deck"] = dice.shuffle(
            sheet["deck"] + moved, word("regained Stamina shuffled into the deck"), hidden=True
        )
    return moved


# The rolls of a rest's and a healing's recovery (DK-8): (the pick, the shuffle).
_REST_ROLLS = (
    word("rest: card kept on the exhaustion pile"),
    word("rest: exhaustion pile shuffled into the deck"),
)
_HEALING_ROLLS = (
    word("healing: card kept on the exhaustion pile"),
    word("healing: exhaustion pile shuffled into the deck"),
)


def _recover(
    sheet: Sheet, keep: int, dice: Dice, labels: tuple[Message, Message]
) -> tuple[list[str], list[str]]:
    """Keep ``keep`` random cards on the exhaustion pile, shuffle the rest in (DK-8).

    The kept cards are picked one by one with public 1dN rolls and stay in their pile
    order; the discard pile is left alone.
    """
    pile: list[str] = list(sheet["exhaustion"])
    if keep >= len(pile):
        chosen = set(pile)
    else:
        candidates = list(pile)
        for _ in range(keep):
            candidates.remove(dice.pick(candidates, labels[0]))
        chosen = set(pile) - set(candidates)
    kept = [card for card in pile if card in chosen]
    returned = [card for card in pile if card not in chosen]
    sheet["exhaustion"] = kept
    if returned:
        sheet["deck"] = dice.shuffle(sheet["deck"] + returned, labels[1], hidden=True)
    return kept, returned


def _able_to_act(sheet: Sheet) -> bool:
    """Ruling DK-9: a Stamina card in the deck or discard pile, and fewer than 2 wounds."""
    in_play = sheet["deck"] + sheet["discard"]
    return int(sheet["wounds"]) < MAX_WOUNDS and any(CARDS[card].stamina for card in in_play)


def _end_incapacitation(sheet: Sheet) -> bool:
    """After rest or healing: clear incapacitation when able to act again (DK-9)."""
    if sheet["incapacitated"] and _able_to_act(sheet):
        sheet["incapacitated"] = False
        return True
    return False


def _take_wound(sheet: Sheet, reshuffle_first: bool, dice: Dice) -> tuple[dict[str, Any], Message]:
    """Take a wound as the text says (DK-7); returns outcome facts and a phrase."""
    if sheet["wounds"] >= MAX_WOUNDS:
        sheet["incapacitated"] = True
        return (
            {"third_wound": True, "incapacitated": True},
            word("a third wound on top of 2: incapacitated"),
        )
    loss = _lose_stamina(sheet, 1, reshuffle_first, dice)
    sheet["wounds"] += 1
    # Ruling DK-7: W1 first, then W2; healing takes back the latest (DK-P10).
    card = WOUND_CARD_IDS[sheet["wounds"] - 1]
    sheet["discard"].insert(0, card)
    facts = {
        "third_wound": False,
        "stamina_loss": loss.as_dict(),
        "wound_card": card,
        "incapacitated": bool(sheet["incapacitated"]),
    }
    text = say(
        "{loss}; wound token {wounds} of {most} on the exhaustion pile and wound card {card} "
        "on the discard pile",
        loss=loss.describe(),
        wounds=sheet["wounds"],
        most=MAX_WOUNDS,
        card=card,
    )
    return facts, text


def _apply_breather(sheet: Sheet, result: str, dice: Dice) -> tuple[dict[str, Any], Message]:
    """The breather's result as the text lists it, regaining under DK-5 (DK-6)."""
    roll: int | None = None
    if result in {"vv", "v"}:
        roll = dice.roll("1d4", word("take a breather: Stamina regained")).total
        amount = roll
    else:
        amount = 1 if result == "x" else 0
    moved = _regain_stamina(sheet, amount, dice)
    foe = result != "vv"
    facts = {
        "regain": amount,
        "regain_roll": roll,
        "regained_cards": moved,
        "stamina_regained": len(moved),
        "foe_superior_position": foe,
    }
    parts = [_regained_text(amount, roll, moved)]
    if foe:
        parts.append(word("the foe moves to a superior position"))
    return facts, _chained(parts)


def _regained_text(amount: int, roll: int | None, moved: list[str]) -> Message:
    """What a breather regains (DK-6): ``amount`` asked (a 1d4 ``roll``), ``moved`` cards."""
    if amount == 0:
        return word("regains nothing")
    values = {"regained": len(moved), "amount": amount, "roll": roll, "cards": _cards(moved)}
    if len(moved) == amount:
        if roll is not None:
            return say(
                "regains {regained} Stamina (1d4 = {roll}): {cards} shuffled into the deck",
                **values,
            )
        return say("regains {regained} Stamina: {cards} shuffled into the deck", **values)
    # harm and wound tokens hold some of the cards on the exhaustion pile (DK-5)
    if moved and roll is not None:
        return say(
            "regains {regained} of {amount} Stamina (1d4 = {roll}): {cards} shuffled into the "
            "deck (harm and wound tokens hold the rest on the exhaustion pile)",
            **values,
        )
    if moved:
        return say(
            "regains {regained} of {amount} Stamina: {cards} shuffled into the deck (harm and "
            "wound tokens hold the rest on the exhaustion pile)",
            **values,
        )
    if roll is not None:
        return say(
            "regains {regained} of {amount} Stamina (1d4 = {roll}) (harm and wound tokens "
            "hold the rest on the exhaustion pile)",
            **values,
        )
    return say(
        "regains {regained} of {amount} Stamina (harm and wound tokens hold the rest on the "
        "exhaustion pile)",
        **values,
    )


def _incapacitation_words(recovered: bool, incapacitated: bool) -> list[Message]:
    """After rest or healing: whether incapacitation ended or goes on (DK-9)."""
    words = []
    if recovered:
        words.append(word("no longer incapacitated"))
    if incapacitated:
        words.append(word("still incapacitated"))
    return words


# Project ruling DK-P12: the states (Deckahedron.status), and the odds' words for them.
STATE_WORDS = {
    "incapacitated": word("incapacitated"),
    "wounded": word("wounded"),
    "harmed": word("harmed"),
    "winded": word("winded"),
    "fresh": word("fresh"),
}
_ENDS = {
    "incapacitated": word("Ends incapacitated"),
    "wounded": word("Ends wounded"),
    "harmed": word("Ends harmed"),
    "winded": word("Ends winded"),
    "fresh": word("Ends fresh"),
}
# What an incapacitated character is refused, by the action tried (project ruling DK-P9).
_BLOCKED = {
    "flip cards": word(
        "This character is incapacitated and cannot flip cards: only rest, healing or the "
        "referee can end the incapacitation (ruling DK-9)."
    ),
    "lose Stamina": word(
        "This character is incapacitated and cannot lose Stamina: only rest, healing or the "
        "referee can end the incapacitation (ruling DK-9)."
    ),
    "take a breather": word(
        "This character is incapacitated and cannot take a breather: only rest, healing or "
        "the referee can end the incapacitation (ruling DK-9)."
    ),
    "take harm": word(
        "This character is incapacitated and cannot take harm: only rest, healing or the "
        "referee can end the incapacitation (ruling DK-9)."
    ),
    "take a wound": word(
        "This character is incapacitated and cannot take a wound: only rest, healing or the "
        "referee can end the incapacitation (ruling DK-9)."
    ),
}


# What Deckahedron resolutions find (Ruleset.outcome_properties): the cards flipped,
# Stamina lost and regained, harm and wounds.
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_TEXT = {"type": "string"}
_CARD_IDS = {"type": "array", "items": {"type": "string"}}
OUTCOME_PROPERTIES: Mapping[str, Any] = {
    "attribute": _TEXT,
    "cards": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"card": _TEXT, "result": _TEXT, "stamina": _BOOL, "wound": _BOOL},
            "additionalProperties": False,
        },
    },
    "count": _INT,
    "description": _TEXT,
    "foe_superior_position": _BOOL,
    "harm_became_wound": _BOOL,
    "harm_removed": {"type": ["boolean", "integer"]},
    "incapacitated": _BOOL,
    "incapacitation_ended": _BOOL,
    "kept_cards": _CARD_IDS,
    "rank": _INT,
    "refills": _INT,
    "regain": _INT,
    "regain_roll": {"type": ["integer", "null"]},
    "regained_cards": _CARD_IDS,
    "reshuffled": _INT,
    "result": _TEXT,
    "returned_cards": _CARD_IDS,
    "stamina_loss": {
        "type": "object",
        "properties": {
            "discarded_cards": _CARD_IDS,
            "exhausted_cards": _CARD_IDS,
            "incapacitated": _BOOL,
            "lost": _INT,
            "requested": _INT,
            "reshuffled_first": _BOOL,
            "reshuffles": _INT,
        },
        "additionalProperties": False,
    },
    "stamina_regained": _INT,
    "stopped_by_wound": _BOOL,
    "third_wound": _BOOL,
    "wound_card": _TEXT,
    "wound_card_removed": {"type": ["string", "null"]},
}


class Deckahedron(Ruleset):
    # Results come from the deck's secret order, not from dice: resolving a copy to
    # tell the odds would give that order away (see Ruleset.odds).
    odds_by_resolving = False
    # docs/dice.md: when the campaign's seed is revealed, the deck is shuffled again
    # under the new one (project ruling DK-P13).
    effect_payloads: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        RESEAL_EFFECT: {"type": "object", "properties": {}, "additionalProperties": False}
    }
    key = "deckahedron"
    name = "Deckahedron"
    blurb = word("A deck of cards is the character's stamina; harm and wounds as tokens.")
    sheet_schema = SHEET_SCHEMA
    creation_fields = ("strength", "dexterity", "intelligence")
    # Project ruling DK-P11: in-game time rest and healing take.
    outcome_properties: ClassVar[Mapping[str, Any]] = OUTCOME_PROPERTIES
    options_schema = options_schema(
        {
            "rest_minutes": {
                "type": "integer",
                "minimum": 0,
                "maximum": 7 * 24 * 60,
                "default": 8 * 60,
                "title": word("Minutes a rest takes"),
                "description": word("In-game minutes a rest takes (several hours)."),
            },
            "heal_minutes": {
                "type": "integer",
                "minimum": 0,
                "maximum": 30 * 24 * 60,
                "default": 24 * 60,
                "title": word("Minutes healing takes"),
                "description": word("In-game minutes a healing takes (a day)."),
            },
        }
    )
    actions = (
        ActionSpec(
            key="flip",
            label=word("Flip cards"),
            params=params_schema(
                {
                    "attribute": {"type": "string", "enum": list(ATTRIBUTES)},
                    "count": {"type": "integer", "minimum": 1, "maximum": 20, "default": 1},
                },
                required=("attribute",),
            ),
            description=word(
                "Flip cards from the deck, reading each at the attribute's rank; a wound "
                "card stops the flipping and costs 1 Stamina (DK-3)."
            ),
        ),
        ActionSpec(
            key="lose_stamina",
            label=word("Lose Stamina"),
            params=params_schema(
                {
                    "amount": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
                    "reshuffle_first": _RESHUFFLE_FIRST,
                }
            ),
            description=word(
                "Search the deck for Stamina cards and put them on the exhaustion pile; "
                "incapacitated if none is left (DK-4)."
            ),
        ),
        ActionSpec(
            key="take_breather",
            label=word("Take a breather"),
            params=params_schema(
                {"attribute": {"type": "string", "enum": list(BREATHER_ATTRIBUTES)}},
                required=("attribute",),
            ),
            description=word(
                "Flip one card with Intelligence or Dexterity to regain Stamina (DK-6)."
            ),
        ),
        ActionSpec(
            key="take_harm",
            label=word("Take a strain, sprain or bruise"),
            params=params_schema(
                {"description": _DESCRIPTION, "reshuffle_first": _RESHUFFLE_FIRST}
            ),
            description=word(
                "Lose 1 Stamina and put a harm token on the exhaustion pile; a third harm "
                "is a wound instead (DK-7)."
            ),
        ),
        ActionSpec(
            key="take_wound",
            label=word("Take a wound"),
            params=params_schema(
                {"description": _DESCRIPTION, "reshuffle_first": _RESHUFFLE_FIRST}
            ),
            description=word(
                "Lose 1 Stamina, put a wound token on the exhaustion pile and a wound card "
                "on the discard pile; a third wound incapacitates (DK-7)."
            ),
        ),
        ActionSpec(
            key="rest",
            label=word("Rest"),
            params=params_schema({}),
            description=word(
                "Several hours of rest: remove a harm token, keep one random exhaustion card "
                "per remaining token, shuffle the others into the deck (DK-8)."
            ),
        ),
        ActionSpec(
            key="heal",
            label=word("Spend a day healing"),
            params=params_schema({"description": _DESCRIPTION}),
            description=word(
                "Remove a wound token and its wound card and every harm token, keep one "
                "random exhaustion card per remaining wound, shuffle the others in (DK-7, DK-8)."
            ),
        ),
        ActionSpec(
            key="clear_incapacitation",
            label=word("Clear incapacitation"),
            params=params_schema({}),
            who="referee",
            description=word("The referee ends the character's incapacitation (DK-9)."),
        ),
    )

    # -- sheets -----------------------------------------------------------------
    def default_sheet(self) -> Sheet:
        # Project ruling DK-P3: every rank starts at 1 (Anchor) unless set.
        return {
            "strength": 1,
            "dexterity": 1,
            "intelligence": 1,
            "deck": list(DECK_CARD_IDS),
            "discard": [],
            "exhaustion": [],
            "harm": 0,
            "wounds": 0,
            "incapacitated": False,
        }

    def new_sheet(self, initial: Mapping[str, Any], dice: Dice) -> Sheet:
        """All 20 cards shuffled into the deck; ``initial`` may set only the three ranks."""
        validate(dict(initial), _INITIAL_SCHEMA, "initial sheet")
        sheet = self.default_sheet()
        sheet.update({attribute: int(rank) for attribute, rank in initial.items()})
        sheet["deck"] = dice.shuffle(
            DECK_CARD_IDS, word("new character: the Deckahedron is shuffled"), hidden=True
        )
        self.validate_sheet(sheet)
        return sheet

    def validate_sheet(
        self, sheet: Mapping[str, Any], valid: Mapping[str, Any] | None = None
    ) -> None:
        """The JSON schema, then what a schema cannot say: every card in one place."""
        super().validate_sheet(sheet, valid)
        problems = _sheet_problems(sheet)
        if problems:
            raise RuleError(say("invalid sheet: {problems}", problems=_chained(problems)))

    def out_of_bounds(self, sheet: Mapping[str, Any]) -> tuple[OutOfBounds, ...]:
        """Project ruling DK-P14: every card in exactly one pile, the wound cards and the
        exhaustion pile as the tokens say (DK-5, DK-7)."""
        fields = (*PILES, "harm", "wounds")
        return tuple(OutOfBounds(fields, why) for why in _sheet_problems(sheet))

    def status(self, sheet: Mapping[str, Any]) -> str:
        """Project ruling DK-P12: incapacitated, wounded, harmed, winded or fresh."""
        if sheet["incapacitated"]:
            return STATE_WORDS["incapacitated"]
        if sheet["wounds"]:
            return STATE_WORDS["wounded"]
        if sheet["harm"]:
            return STATE_WORDS["harmed"]
        if sheet["exhaustion"]:
            return STATE_WORDS["winded"]
        return STATE_WORDS["fresh"]

    @property
    def public_sheet_schema(self) -> dict[str, Any]:
        schema = copy.deepcopy(dict(self.sheet_schema))
        schema["properties"]["deck_size"] = {
            "type": "integer",
            "minimum": 0,
            "description": word("cards in the deck (shown sorted: no one reads the next flip)"),
        }
        schema["required"] = [*schema.get("required", []), "deck_size"]
        return schema

    def public_sheet(self, sheet: Mapping[str, Any]) -> Sheet:
        """The deck's cards sorted, so no one can read the next flip, and its size."""
        public = super().public_sheet(sheet)  # a copy
        public["deck"] = sorted(public["deck"], key=_CARD_ORDER.__getitem__)
        public["deck_size"] = len(public["deck"])
        return public

    def unavailable(self, sheet: Mapping[str, Any], action: str) -> str | None:
        """The same refusals as ``_ready`` and clearing, said before anyone tries."""
        if action == "clear_incapacitation":
            return None if sheet["incapacitated"] else word("The character is not incapacitated.")
        if sheet["incapacitated"] and action not in ("rest", "heal"):  # project ruling DK-P9
            return word("The character is incapacitated: only rest, healing or the referee end it.")
        return None

    # -- helpers ----------------------------------------------------------------
    def _ready(self, sheet: Sheet, action: str) -> None:
        """Actions other than rest, heal and the referee's clearing need a standing one."""
        self.validate_sheet(sheet)
        if sheet["incapacitated"]:  # project ruling DK-P9
            raise ActionBlocked(_BLOCKED[action])

    def _wound_stop(
        self, sheet: Sheet, dice: Dice, action: str, head: Message, outcome: dict[str, Any]
    ) -> Result:
        """A flipped wound card costs 1 Stamina: first ask about reshuffling (G-3, DK-P4)."""
        card = outcome["cards"][-1]["card"]
        choice = PendingChoice(
            kind=WOUND_CHOICE,
            prompt=say(
                "Wound card {card} costs 1 Stamina. Shuffle the discard pile into the deck "
                "before searching for the Stamina card?",
                card=card,
            ),
            options=(
                ChoiceOption("search", word("Search the deck as it lies")),
                ChoiceOption("reshuffle", word("Shuffle the discard pile in first")),
            ),
            # the summary so far, and its message to say it in another language later
            state={
                "action": action,
                **text_dict("summary", head),
                "outcome": copy.deepcopy(outcome),
            },
        )
        return Result(
            sheet=sheet,
            summary=say(
                "{head}; the Stamina search for wound card {card} waits on a choice.",
                head=head,
                card=card,
            ),
            pending_choice=choice,
            outcome=outcome,
        )

    # -- actions ----------------------------------------------------------------
    def action_flip(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        self._ready(sheet, "flip cards")
        attribute = str(params["attribute"])
        count = int(params.get("count", 1))
        rank = int(sheet[attribute])
        flips, refills = _flip_cards(sheet, dice, rank, count)
        values = {
            "count": count,
            "attribute": ATTRIBUTE_NAMES[attribute],
            "rank": RANK_NAMES[rank],
            "cards": _flips_text(flips),
            "refills": refills,
        }
        if refills:
            head = say(
                "Flips {count} at {attribute} ({rank}): {cards} (the deck ran out: discard "
                "pile shuffled in x{refills})",
                **values,
            )
        else:
            head = say("Flips {count} at {attribute} ({rank}): {cards}", **values)
        outcome: dict[str, Any] = {
            "attribute": attribute,
            "rank": rank,
            "count": count,
            "cards": flips,
            "refills": refills,
            "stopped_by_wound": flips[-1]["wound"],
        }
        if flips[-1]["wound"]:
            return self._wound_stop(sheet, dice, "flip", head, outcome)
        return Result(sheet=sheet, summary=as_sentence(head), outcome=outcome)

    def action_lose_stamina(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        self._ready(sheet, "lose Stamina")
        amount = int(params.get("amount", 1))
        loss = _lose_stamina(sheet, amount, bool(params.get("reshuffle_first", False)), dice)
        return Result(
            sheet=sheet,
            summary=as_sentence(loss.describe()),
            outcome={"stamina_loss": loss.as_dict(), "incapacitated": loss.incapacitated},
        )

    def action_take_breather(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        self._ready(sheet, "take a breather")
        attribute = str(params["attribute"])
        rank = int(sheet[attribute])
        flips, refills = _flip_cards(sheet, dice, rank, 1)
        result = flips[0]["result"]
        values = {
            "attribute": ATTRIBUTE_NAMES[attribute],
            "rank": RANK_NAMES[rank],
            "cards": _flips_text(flips),
        }
        if refills:
            head = say(
                "Takes a breather with {attribute} ({rank}): {cards} (the deck ran out: "
                "discard pile shuffled in)",
                **values,
            )
        else:
            head = say("Takes a breather with {attribute} ({rank}): {cards}", **values)
        outcome: dict[str, Any] = {
            "attribute": attribute,
            "rank": rank,
            "cards": flips,
            "refills": refills,
            "result": result,
            "stopped_by_wound": flips[0]["wound"],
        }
        if flips[0]["wound"]:  # project ruling DK-P8: the Stamina goes before the breather
            return self._wound_stop(sheet, dice, "take_breather", head, outcome)
        facts, text = _apply_breather(sheet, result, dice)
        outcome.update(facts)
        return Result(sheet=sheet, summary=joined([head, text]), outcome=outcome)

    def action_take_harm(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        self._ready(sheet, "take harm")
        reshuffle_first = bool(params.get("reshuffle_first", False))
        description = str(params.get("description", ""))
        head = (
            say("Takes a strain, sprain or bruise ({description})", description=description)
            if description
            else word("Takes a strain, sprain or bruise")
        )
        outcome: dict[str, Any] = {"description": description}
        if sheet["harm"] >= MAX_HARM:  # the text: with 2 harm tokens, a wound instead
            facts, text = _take_wound(sheet, reshuffle_first, dice)
            outcome.update(facts, harm_became_wound=True)
            summary = say(
                "{head}; with 2 harm tokens already it is a wound instead: {wound}.",
                head=head,
                wound=text,
            )
        else:
            loss = _lose_stamina(sheet, 1, reshuffle_first, dice)
            sheet["harm"] += 1
            outcome.update(
                harm_became_wound=False,
                stamina_loss=loss.as_dict(),
                incapacitated=bool(sheet["incapacitated"]),
            )
            summary = say(
                "{head}: {loss}; harm token {harm} of {most} on the exhaustion pile.",
                head=head,
                loss=loss.describe(),
                harm=sheet["harm"],
                most=MAX_HARM,
            )
        return Result(sheet=sheet, summary=summary, outcome=outcome)

    def action_take_wound(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        self._ready(sheet, "take a wound")
        description = str(params.get("description", ""))
        facts, text = _take_wound(sheet, bool(params.get("reshuffle_first", False)), dice)
        head = (
            say("Takes a wound ({description})", description=description)
            if description
            else word("Takes a wound")
        )
        return Result(
            sheet=sheet,
            summary=say("{head}: {wound}.", head=head, wound=text),
            outcome={"description": description, **facts},
        )

    def action_rest(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        self.validate_sheet(sheet)  # allowed while incapacitated (DK-9, DK-P9)
        harm_removed = sheet["harm"] > 0
        if harm_removed:
            sheet["harm"] -= 1
        keep = _token_floor(sheet)
        kept, returned = _recover(sheet, keep, dice, _REST_ROLLS)
        recovered = _end_incapacitation(sheet)
        summary = joined(
            [
                word("Rests: removes a harm token")
                if harm_removed
                else word("Rests: no harm token to remove"),
                say_plural(
                    "keeps {count} card on the exhaustion pile ({cards}) for {tokens} and "
                    "shuffles {returned} into the deck",
                    "keeps {count} cards on the exhaustion pile ({cards}) for {tokens} and "
                    "shuffles {returned} into the deck",
                    len(kept),
                    cards=_cards(kept),
                    tokens=say_plural("{count} remaining token", "{count} remaining tokens", keep),
                    returned=len(returned),
                ),
                *_incapacitation_words(recovered, bool(sheet["incapacitated"])),
            ]
        )
        return Result(
            sheet=sheet,
            summary=summary,
            outcome={
                "harm_removed": harm_removed,
                "kept_cards": kept,
                "returned_cards": returned,
                "incapacitation_ended": recovered,
                "incapacitated": bool(sheet["incapacitated"]),
            },
            elapsed_minutes=int(self.option(context, "rest_minutes")),
        )

    def action_heal(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        self.validate_sheet(sheet)  # allowed while incapacitated (DK-9, DK-P9)
        description = str(params.get("description", ""))
        wound_card: str | None = None
        if sheet["wounds"] > 0:
            # Ruling DK-7: the wound card goes too, wherever it is (the latest, DK-P10).
            wound_card = WOUND_CARD_IDS[sheet["wounds"] - 1]
            for pile in ("deck", "discard"):
                if wound_card in sheet[pile]:
                    sheet[pile].remove(wound_card)
            sheet["wounds"] -= 1
        harm_removed = int(sheet["harm"])
        sheet["harm"] = 0
        keep = _token_floor(sheet)
        kept, returned = _recover(sheet, keep, dice, _HEALING_ROLLS)
        recovered = _end_incapacitation(sheet)
        head = (
            say("Spends a day healing ({description})", description=description)
            if description
            else word("Spends a day healing")
        )
        summary = joined(
            [
                say(
                    "{head}: {wound}, {harm}",
                    head=head,
                    wound=say("removes a wound token and wound card {card}", card=wound_card)
                    if wound_card
                    else word("no wound token to remove"),
                    harm=say_plural(
                        "removes {count} harm token", "removes {count} harm tokens", harm_removed
                    ),
                ),
                say_plural(
                    "keeps {count} card on the exhaustion pile ({cards}) and shuffles "
                    "{returned} into the deck",
                    "keeps {count} cards on the exhaustion pile ({cards}) and shuffles "
                    "{returned} into the deck",
                    len(kept),
                    cards=_cards(kept),
                    returned=len(returned),
                ),
                *_incapacitation_words(recovered, bool(sheet["incapacitated"])),
            ]
        )
        return Result(
            sheet=sheet,
            summary=summary,
            outcome={
                "description": description,
                "wound_card_removed": wound_card,
                "harm_removed": harm_removed,
                "kept_cards": kept,
                "returned_cards": returned,
                "incapacitation_ended": recovered,
                "incapacitated": bool(sheet["incapacitated"]),
            },
            elapsed_minutes=int(self.option(context, "heal_minutes")),
        )

    def action_clear_incapacitation(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        self.validate_sheet(sheet)
        if not sheet["incapacitated"]:
            raise RuleError(word("This character is not incapacitated: there is nothing to clear."))
        sheet["incapacitated"] = False  # ruling DK-9: the referee may end it at any time
        return Result(
            sheet=sheet,
            summary=word("The referee ends the character's incapacitation (ruling DK-9)."),
            outcome={"incapacitated": False},
        )

    def effect_reseal(self, sheet: Sheet, payload: Params, dice: Dice, context: Context) -> Result:
        """Project ruling DK-P13: the campaign's dice seed is being revealed, and the deck's
        order was drawn from it; the deck is shuffled again from the new seed's dice."""
        if len(sheet["deck"]) < 2:
            return Result(sheet=sheet, summary=word("The deck has nothing to shuffle again."))
        sheet["deck"] = dice.shuffle(
            sheet["deck"], word("the deck shuffled again under a new dice seed"), hidden=True
        )
        return Result(
            sheet=sheet,
            summary=word(
                "The deck is shuffled again, so the dice seed just revealed tells "
                "nothing of its order."
            ),
            outcome={"reshuffled": len(sheet["deck"])},
        )

    # -- choices ----------------------------------------------------------------
    # -- odds: from the piles' composition, never the deck's order -----------------
    def _piles(self, sheet: Sheet, rank: int) -> tuple[Pile, Pile]:
        def kinds(cards: list[str]) -> Pile:
            return pile(WOUND if CARDS[c].wound else CARDS[c].result(rank) for c in cards)

        return kinds(sheet["deck"]), kinds(sheet["discard"])

    @staticmethod
    def _odds_notes(sheet: Sheet) -> list[str]:
        notes: list[str] = [
            say(
                "The deck holds {count} cards; their order is secret, so every order counts "
                "as equally likely.",
                count=len(sheet["deck"]),
            )
        ]
        if any(CARDS[c].wound for c in sheet["deck"] + sheet["discard"]):
            notes.append(word("A wound card costs 1 Stamina."))
        return notes

    def odds_flip(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        self._ready(sheet, "flip cards")
        rank = int(sheet[str(params["attribute"])])
        deck, discard = self._piles(sheet, rank)
        weighted = flip_outcomes(deck, discard, int(params.get("count", 1)))
        return grouped("flip", weighted, notes=self._odds_notes(sheet))

    def odds_take_breather(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        # Ruling DK-6: the result of one flip decides what is regained.
        self._ready(sheet, "take a breather")
        rank = int(sheet[str(params["attribute"])])
        deck, discard = self._piles(sheet, rank)
        regained = {
            "vv": word("Two checks: regains 1d4 Stamina"),
            "v": word("A check: regains 1d4 Stamina, the foe moves to a superior position"),
            "x": word("A cross: regains 1 Stamina, the foe moves to a superior position"),
            "xx": word("Two crosses: regains nothing, the foe moves to a superior position"),
            WOUND: word("A wound card: costs 1 Stamina instead"),
        }
        weighted = [
            (key, regained[key], chance) for key, _, chance in flip_outcomes(deck, discard, 1)
        ]
        return grouped("take_breather", weighted, notes=self._odds_notes(sheet))

    def _status_odds(self, sheet: Sheet, action: str, params: Params, context: Context) -> Odds:
        """Actions whose dice only reorder cards: the state they leave does not depend on
        the order, so one resolution on a copy (with throwaway dice) tells it, and only
        the state is told, never which cards moved."""
        result = self.resolve(sheet, action, params, Dice(SystemGenerator()), context)
        if result.pending_choice is not None:
            return certain(
                action, say("A question comes first: {prompt}", prompt=result.pending_choice.prompt)
            )
        status = str(self.status(result.sheet))
        return certain(action, _ENDS[status], key=status)

    def odds_lose_stamina(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return self._status_odds(sheet, "lose_stamina", params, context)

    def odds_take_harm(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return self._status_odds(sheet, "take_harm", params, context)

    def odds_take_wound(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return self._status_odds(sheet, "take_wound", params, context)

    def odds_rest(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return self._status_odds(sheet, "rest", params, context)

    def odds_heal(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return self._status_odds(sheet, "heal", params, context)

    def odds_clear_incapacitation(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return self._status_odds(sheet, "clear_incapacitation", params, context)

    def choice_wound_card_stamina(
        self, sheet: Sheet, choice: PendingChoice, option: str, dice: Dice, context: Context
    ) -> Result:
        """Finish a flip or breather stopped by a wound card: lose its Stamina (DK-3)."""
        state = copy.deepcopy(dict(choice.state))
        validate(state, _WOUND_STATE_SCHEMA, "choice state")
        new_sheet = sheet
        self.validate_sheet(new_sheet)
        outcome: dict[str, Any] = state["outcome"]
        card = outcome["cards"][-1]["card"]
        loss = _lose_stamina(new_sheet, 1, option == "reshuffle", dice)
        outcome["stamina_loss"] = loss.as_dict()
        outcome["incapacitated"] = loss.incapacitated
        parts: list[str] = [
            text_said("summary", state),  # a state stored before messages: its English
            say("wound card {card} costs 1 Stamina: {loss}", card=card, loss=loss.describe()),
        ]
        if state["action"] == "take_breather":
            result = outcome["cards"][0]["result"]
            if loss.incapacitated:  # project ruling DK-P8: a collapsed character regains none
                outcome.update(
                    regain=0,
                    regain_roll=None,
                    regained_cards=[],
                    stamina_regained=0,
                    foe_superior_position=result != "vv",
                )
                parts.append(word("collapsing, they regain nothing"))
            else:
                facts, text = _apply_breather(new_sheet, result, dice)
                outcome.update(facts)
                parts.append(say("the breather {regains}", regains=text))
        self.validate_sheet(new_sheet)
        return Result(sheet=new_sheet, summary=joined(parts), outcome=outcome)


# A whole number the sheet must hold, by field (a sheet's problem names it).
_WHOLE_NUMBERS = {
    "strength": word("strength must be a whole number"),
    "dexterity": word("dexterity must be a whole number"),
    "intelligence": word("intelligence must be a whole number"),
    "harm": word("harm must be a whole number"),
    "wounds": word("wounds must be a whole number"),
}


def _sheet_problems(sheet: Mapping[str, Any]) -> list[Message]:
    """Card conservation and token rules a JSON schema cannot express."""
    problems: list[Message] = []
    for key in (*ATTRIBUTES, "harm", "wounds"):
        if type(sheet[key]) is not int:  # JSON Schema lets 2.0 pass as an integer
            problems.append(_WHOLE_NUMBERS[key])
    if problems:
        return problems
    counts = Counter(card for pile in PILES for card in sheet[pile])
    twice = sorted((card for card, n in counts.items() if n > 1), key=_CARD_ORDER.__getitem__)
    if twice:
        problems.append(say("cards in more than one pile: {cards}", cards=", ".join(twice)))
    missing = [card for card in DECK_CARD_IDS if card not in counts]
    if missing:
        problems.append(say("cards missing from every pile: {cards}", cards=", ".join(missing)))
    in_play = [card for card in WOUND_CARD_IDS if card in counts]
    expected = list(WOUND_CARD_IDS[: sheet["wounds"]])
    if in_play != expected:
        problems.append(
            say(
                "wound cards in the piles ({cards}) must be {expected} for {wounds} wound "
                "tokens (ruling DK-7)",
                cards=_cards(in_play),
                expected=_cards(expected),
                wounds=sheet["wounds"],
            )
        )
    if len(sheet["exhaustion"]) < _token_floor(sheet):
        problems.append(
            say(
                "the exhaustion pile holds {count} cards, fewer than its {tokens} harm and "
                "wound tokens (ruling DK-5)",
                count=len(sheet["exhaustion"]),
                tokens=_token_floor(sheet),
            )
        )
    return problems
