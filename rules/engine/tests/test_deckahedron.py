"""Deckahedron rules with scripted decks and dice (DK-1..DK-9, docs/rulesets/deckahedron.md).

Sheets are built with a known deck order (top card first); the shuffle faces are
scripted: a Fisher-Yates shuffle of n cards draws n-1 dice of sizes n..2, and
``identity(n)`` leaves the order as it was.
"""

import copy
import csv
import re
from pathlib import Path

import pytest

from rules.engine.dice import Dice, HmacGenerator, ScriptedGenerator
from rules.engine.interface import (
    ActionBlocked,
    ChoiceOption,
    Context,
    PendingChoice,
    RuleError,
)
from rules.engine.registry import get_ruleset
from rules.engine.rulesets.deckahedron import (
    CARD_IDS,
    CARDS,
    DECK_CARD_IDS,
    DECK_FILE,
    RESULT_WORDS,
    STAMINA_CARD_IDS,
    WOUND_CHOICE,
    Deckahedron,
)

RS = Deckahedron()
REST = "..."  # in a pile list: every card not placed elsewhere, in card order
NON_STAMINA = [str(n) for n in range(1, 11)]
STAMINA = [str(n) for n in range(11, 21)]


def identity(n):
    """Shuffle faces that keep the order of n cards (each draw picks its own place)."""
    return list(range(n, 1, -1))


def make_sheet(deck=(REST,), discard=(), exhaustion=(), **fields):
    """A valid sheet; wound cards enter a pile only where listed."""
    piles = {"deck": list(deck), "discard": list(discard), "exhaustion": list(exhaustion)}
    placed = {card for pile in piles.values() for card in pile if card != REST}
    rest = [card for card in DECK_CARD_IDS if card not in placed]
    for name, pile in piles.items():
        if REST in pile:
            at = pile.index(REST)
            piles[name] = pile[:at] + rest + pile[at + 1 :]
    sheet = {
        "strength": 1,
        "dexterity": 1,
        "intelligence": 1,
        "harm": 0,
        "wounds": 0,
        "incapacitated": False,
        **piles,
    }
    sheet.update(fields)
    RS.validate_sheet(sheet)
    return sheet


def run(sheet, action, params=None, faces=(), context=None):
    """Resolve with scripted faces; every scripted face must be used."""
    generator = ScriptedGenerator(faces)
    before = copy.deepcopy(sheet)
    result = RS.resolve(sheet, action, params or {}, Dice(generator), context or Context())
    assert generator.remaining == 0
    assert sheet == before  # the engine never mutates the sheet it was given
    return result


def answer(result, option, faces=()):
    generator = ScriptedGenerator(faces)
    finished = RS.choose(result.sheet, result.pending_choice, option, Dice(generator), Context())
    assert generator.remaining == 0
    return finished


def flip(card, result):
    return {"card": card, "result": result, "stamina": CARDS[card].stamina, "wound": card[0] == "W"}


def between(first, last):
    return [str(n) for n in range(first, last + 1)]


# -- DK-1: the cards -------------------------------------------------------------------


def test_dk1_the_deck_has_20_cards_10_with_stamina_and_two_wound_cards():
    assert list(CARD_IDS) == [*between(1, 20), "W1", "W2"]
    assert list(STAMINA_CARD_IDS) == STAMINA
    assert CARDS["1"].results == ("xx", "xx", "xx", "xx")
    assert CARDS["2"].results == ("xx", "x", "vv", "xx")
    assert CARDS["11"].results == ("vv", "vv", "vv", "vv")
    assert CARDS["19"].results == ("vv", "v", "vv", "x")
    assert CARDS["20"].results == ("v", "v", "xx", "v")
    assert CARDS["W1"].results == ("xx", "xx", "xx", "x")
    assert CARDS["W2"].results == ("xx", "xx", "x", "xx")
    assert not CARDS["W1"].stamina and CARDS["W1"].wound
    assert CARDS["10"].result(1) == "v"
    assert CARDS["10"].result(2) == "xx"


def test_dk1_the_card_data_is_the_table_in_the_referee_docs():
    # The referee's page prints the whole deck; the server's data must be that table.
    docs = Path(__file__).resolve().parents[3] / "docs/rulesets/deckahedron.md"
    printed = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in docs.read_text().splitlines()
        if re.match(r"^\| (\d+|W\d) \|", line)
    ]
    with DECK_FILE.open(newline="") as handle:
        data = [list(row.values()) for row in csv.DictReader(handle)]
    assert printed == data
    assert len(printed) == 22


# -- DK-2: sheets ------------------------------------------------------------------------


def test_registry_serves_the_ruleset():
    ruleset = get_ruleset("deckahedron")
    assert isinstance(ruleset, Deckahedron)
    assert ruleset.name == "Deckahedron"
    described = ruleset.describe()
    assert [a["key"] for a in described["actions"]] == [
        "flip",
        "lose_stamina",
        "take_breather",
        "take_harm",
        "take_wound",
        "rest",
        "heal",
        "clear_incapacitation",
    ]
    assert {a["key"]: a["who"] for a in described["actions"]}["clear_incapacitation"] == "referee"
    assert described["options"] == {"rest_minutes": 480, "heal_minutes": 1440}


def test_dk2_new_sheet_shuffles_all_20_cards_with_the_dice_service():
    dice = Dice(ScriptedGenerator([1, *identity(19)]))
    sheet = RS.new_sheet({"strength": 3, "intelligence": 2}, dice)
    # The first draw (die of 20) swaps the bottom card 20 with the top card 1.
    assert sheet == {
        "strength": 3,
        "dexterity": 1,
        "intelligence": 2,
        "deck": ["20", *between(2, 19), "1"],
        "discard": [],
        "exhaustion": [],
        "harm": 0,
        "wounds": 0,
        "incapacitated": False,
    }
    [roll] = dice.rolls
    assert roll.expression == "shuffle(20)"
    assert roll.hidden  # project ruling DK-P2: the draws would reveal the deck's order
    assert roll.dice == (1, *identity(19))


def test_dk2_a_shuffle_is_reproducible_from_its_recorded_draws():
    dice = Dice(HmacGenerator(b"campaign seed"))
    sheet = RS.new_sheet({}, dice)
    assert sorted(sheet["deck"], key=int) == list(DECK_CARD_IDS)
    replay = RS.new_sheet({}, Dice(ScriptedGenerator(dice.rolls[0].dice)))
    assert replay["deck"] == sheet["deck"]


@pytest.mark.parametrize(
    "initial",
    [
        {"strength": 0},
        {"dexterity": 5},
        {"intelligence": "2"},
        {"strength": 1.5},
        {"deck": ["1"]},
        {"harm": 1},
    ],
)
def test_dk2_new_sheet_accepts_only_ranks_1_to_4(initial):
    # project ruling DK-P3
    with pytest.raises(RuleError):
        RS.new_sheet(initial, Dice(ScriptedGenerator(identity(20))))


def test_new_sheet_stores_a_whole_number_rank():
    sheet = RS.new_sheet({"dexterity": 4.0}, Dice(ScriptedGenerator(identity(20))))
    assert sheet["dexterity"] == 4
    assert type(sheet["dexterity"]) is int


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"deck": ["1", "1", *between(2, 20)]}, "non-unique"),
        ({"deck": between(2, 20), "discard": ["2"]}, "more than one pile: 2"),
        ({"deck": between(2, 20)}, "missing from every pile: 1"),
        ({"deck": [*between(1, 20), "W1"]}, "wound cards in the piles (W1) must be none"),
        ({"wounds": 1, "exhaustion": ["11"], "deck": [*NON_STAMINA, *between(12, 20)]}, "(none)"),
        ({"exhaustion": ["1"], "deck": between(2, 20)}, "exhaustion"),
        ({"harm": 1}, "fewer than its 1 harm and wound tokens"),
        ({"strength": 2.0}, "strength must be a whole number"),
        ({"harm": 3}, "harm"),
        ({"deck_size": 20}, "deck_size"),
    ],
)
def test_validate_sheet_keeps_every_card_in_exactly_one_place(change, message):
    sheet = make_sheet()
    sheet.update(change)
    with pytest.raises(RuleError, match="invalid sheet") as error:
        RS.validate_sheet(sheet)
    assert message in str(error.value)


def test_public_sheet_hides_the_deck_order_and_shows_its_size():
    # project ruling DK-P1: discard and exhaustion are shown as they lie, top first
    sheet = make_sheet(["20", "W1", "3", REST], discard=["5", "2"], exhaustion=["12"], wounds=1)
    public = RS.public_sheet(sheet)
    assert public["deck"] == [
        "1",
        "3",
        "4",
        *between(6, 11),
        *between(13, 20),
        "W1",
    ]
    assert public["deck_size"] == 18
    assert public["discard"] == ["5", "2"]
    assert public["exhaustion"] == ["12"]
    assert sheet["deck"][:3] == ["20", "W1", "3"]  # the stored sheet is untouched
    reordered = dict(sheet, deck=list(reversed(sheet["deck"])))
    assert RS.public_sheet(reordered) == public


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({}, "fresh"),
        ({"exhaustion": ["11"]}, "winded"),
        ({"exhaustion": ["11"], "harm": 1}, "harmed"),
        ({"exhaustion": ["11", "12"], "harm": 1, "wounds": 1, "discard": ["W1"]}, "wounded"),
        (
            {"exhaustion": ["11"], "incapacitated": True, "wounds": 1, "discard": ["W1"]},
            "incapacitated",
        ),
    ],
)
def test_status_is_one_word_worst_first(fields, status):
    # project ruling DK-P12
    assert RS.status(make_sheet(**fields)) == status


# -- DK-3: flips ---------------------------------------------------------------------------


def test_dk3_flip_reads_each_card_at_the_attributes_rank_and_discards_it():
    sheet = make_sheet(["2", "3", "4", REST], strength=2)
    result = run(sheet, "flip", {"attribute": "strength", "count": 3})
    assert result.summary == (
        "Flips 3 at Strength (Bulb): card 2 shows a cross, card 3 shows a cross, card 4 "
        "shows two checks."
    )
    assert result.outcome == {
        "attribute": "strength",
        "rank": 2,
        "count": 3,
        "cards": [flip("2", "x"), flip("3", "x"), flip("4", "vv")],
        "refills": 0,
        "stopped_by_wound": False,
    }
    assert result.sheet["discard"] == ["4", "3", "2"]
    assert result.sheet["deck"] == ["1", *between(5, 20)]
    assert result.rolls == ()
    assert result.pending_choice is None


def test_dk3_flip_uses_the_named_attribute_and_flips_one_by_default():
    sheet = make_sheet(["2", REST], strength=2, intelligence=3)
    result = run(sheet, "flip", {"attribute": "intelligence"})
    assert result.summary == "Flips 1 at Intelligence (Crescent): card 2 shows two checks."
    assert result.outcome["cards"] == [flip("2", "vv")]


def test_dk3_an_empty_deck_is_refilled_by_shuffling_the_discard_pile_in():
    sheet = make_sheet(["5"], discard=["1", "2", "3", "4", *between(6, 10)], exhaustion=STAMINA)
    # After 5 is flipped the discard pile is 5, 1, 2, 3, 4, 6..10; the first draw swaps
    # its bottom card 10 with its top card 5.
    result = run(sheet, "flip", {"attribute": "strength", "count": 2}, faces=[1, *identity(9)])
    assert result.outcome["cards"] == [flip("5", "x"), flip("10", "v")]
    assert result.outcome["refills"] == 1
    assert result.sheet["discard"] == ["10"]
    assert result.sheet["deck"] == ["1", "2", "3", "4", *between(6, 9), "5"]
    [roll] = result.rolls
    assert (roll.label, roll.expression, roll.hidden) == (
        "deck ran out: discard pile shuffled in",
        "shuffle(10)",
        True,
    )
    assert result.summary == (
        "Flips 2 at Strength (Anchor): card 5 shows a cross, card 10 shows a check (the "
        "deck ran out: discard pile shuffled in x1)."
    )


def wound_flip_sheet():
    return make_sheet(["12", "W1", "13", REST], exhaustion=["20"], wounds=1)


def test_dk3_a_wound_card_stops_the_flip_and_asks_about_the_stamina_search():
    # ruling G-3, project ruling DK-P4: the optional reshuffle is asked mid-resolution
    result = run(wound_flip_sheet(), "flip", {"attribute": "strength", "count": 3})
    assert result.outcome["cards"] == [flip("12", "xx"), flip("W1", "xx")]
    assert result.outcome["stopped_by_wound"] is True
    assert result.sheet["discard"] == ["W1", "12"]  # the wound card is discarded like any other
    assert result.sheet["deck"][0] == "13"
    assert result.sheet["exhaustion"] == ["20"]  # the Stamina is not lost before the answer
    choice = result.pending_choice
    assert choice.kind == WOUND_CHOICE
    assert choice.option_keys() == ("search", "reshuffle")
    assert choice.who == "owner"
    assert result.summary == (
        "Flips 3 at Strength (Anchor): card 12 shows two crosses, card W1 shows two "
        "crosses (wound card: a guttural noise, the flipping "
        "stops); the Stamina search for wound card W1 waits on a choice."
    )


def test_dk3_the_wound_card_costs_one_stamina_searching_the_deck_as_it_lies():
    paused = run(wound_flip_sheet(), "flip", {"attribute": "strength", "count": 3})
    result = answer(paused, "search")
    assert result.sheet["exhaustion"] == ["13", "20"]
    assert result.sheet["discard"] == ["W1", "12"]
    assert result.sheet["deck"] == [*between(1, 11), *between(14, 19)]
    assert result.outcome["stamina_loss"] == {
        "requested": 1,
        "lost": 1,
        "reshuffled_first": False,
        "exhausted_cards": ["13"],
        "discarded_cards": [],
        "reshuffles": 0,
        "incapacitated": False,
    }
    assert result.outcome["cards"] == [flip("12", "xx"), flip("W1", "xx")]
    assert result.pending_choice is None
    assert result.rolls == ()
    assert result.summary == (
        "Flips 3 at Strength (Anchor): card 12 shows two crosses, card W1 shows two "
        "crosses (wound card: a guttural noise, the flipping "
        "stops); wound card W1 costs 1 Stamina: loses 1 Stamina (13 to the exhaustion pile, "
        "0 other cards to discard)."
    )


def test_dk3_dk4_the_player_may_shuffle_the_discard_pile_in_before_the_search():
    paused = run(wound_flip_sheet(), "flip", {"attribute": "strength", "count": 3})
    # Deck 13, 1..11, 14..19 then discard W1, 12: the first draw swaps 12 (last) with 13.
    result = answer(paused, "reshuffle", faces=[1, *identity(19)])
    assert result.sheet["exhaustion"] == ["12", "20"]
    assert result.sheet["discard"] == []
    assert result.sheet["deck"] == [*between(1, 11), *between(14, 19), "W1", "13"]
    assert result.outcome["stamina_loss"]["reshuffled_first"] is True
    [roll] = result.rolls
    assert (roll.expression, roll.hidden) == ("shuffle(20)", True)


def test_dk3_wound_card_choice_rejects_unknown_options_and_foreign_choices():
    paused = run(wound_flip_sheet(), "flip", {"attribute": "strength", "count": 2})
    with pytest.raises(RuleError, match="unknown option 'maybe'"):
        answer(paused, "maybe")
    other = PendingChoice("something_else", "?", (ChoiceOption("a", "A"),))
    with pytest.raises(RuleError, match="no choice 'something_else'"):
        RS.choose(paused.sheet, other, "a", Dice(ScriptedGenerator([])), Context())
    broken = PendingChoice(WOUND_CHOICE, "?", paused.pending_choice.options, state={"action": "x"})
    with pytest.raises(RuleError, match="invalid choice state"):
        RS.choose(paused.sheet, broken, "search", Dice(ScriptedGenerator([])), Context())


def test_dk4_a_wound_card_met_in_the_stamina_search_costs_nothing_more():
    # project ruling DK-P4: only a flip for an attempt is stopped by a wound card
    sheet = make_sheet(["W1", "1", "11", REST], exhaustion=["20"], wounds=1)
    result = run(sheet, "lose_stamina", {"amount": 1})
    assert result.sheet["exhaustion"] == ["11", "20"]
    assert result.sheet["discard"] == ["1", "W1"]
    assert result.outcome["stamina_loss"]["discarded_cards"] == ["W1", "1"]
    assert result.pending_choice is None


# -- DK-4: losing Stamina ------------------------------------------------------------------


def test_dk4_each_point_flips_until_a_stamina_card_the_others_go_to_discard():
    sheet = make_sheet(["1", "2", "11", "3", "12", REST])
    result = run(sheet, "lose_stamina", {"amount": 2})
    assert result.sheet["exhaustion"] == ["12", "11"]
    assert result.sheet["discard"] == ["3", "2", "1"]
    assert result.sheet["deck"] == [*between(4, 10), *between(13, 20)]
    assert result.sheet["incapacitated"] is False
    assert result.summary == (
        "Loses 2 Stamina (11, 12 to the exhaustion pile, 3 other cards to discard)."
    )
    assert result.outcome == {
        "stamina_loss": {
            "requested": 2,
            "lost": 2,
            "reshuffled_first": False,
            "exhausted_cards": ["11", "12"],
            "discarded_cards": ["1", "2", "3"],
            "reshuffles": 0,
            "incapacitated": False,
        },
        "incapacitated": False,
    }


def test_dk4_reshuffle_first_shuffles_the_discard_pile_into_the_deck():
    sheet = make_sheet(["1", "2", "3", REST], discard=["11"])
    # Deck 1, 2, 3, 4..10, 12..20 then discard 11: the first draw swaps 11 with 1.
    result = run(sheet, "lose_stamina", {"reshuffle_first": True}, faces=[1, *identity(19)])
    assert result.sheet["exhaustion"] == ["11"]
    assert result.sheet["discard"] == []
    assert result.sheet["deck"] == [*between(2, 10), *between(12, 20), "1"]
    assert result.summary == (
        "Loses 1 Stamina (11 to the exhaustion pile, 0 other cards to discard; "
        "discard pile shuffled in first)."
    )


def test_dk4_reshuffle_first_with_an_empty_discard_pile_shuffles_nothing():
    # project ruling DK-P5
    result = run(make_sheet(["11", REST]), "lose_stamina", {"reshuffle_first": True})
    assert result.sheet["exhaustion"] == ["11"]
    assert result.outcome["stamina_loss"]["reshuffled_first"] is False
    assert result.rolls == ()


def test_dk4_the_search_goes_on_through_the_discard_pile_then_incapacitates():
    sheet = make_sheet(NON_STAMINA, discard=["11"], exhaustion=between(12, 20))
    # Point 1: 1..10 go to discard, the deck is empty, discard (10..1, 11) is shuffled in
    # unchanged and searched: 11 is found. Point 2: nothing is left anywhere.
    result = run(sheet, "lose_stamina", {"amount": 3}, faces=identity(11))
    assert result.sheet["incapacitated"] is True
    assert result.sheet["exhaustion"] == between(11, 20)
    assert result.sheet["deck"] == []
    assert result.sheet["discard"] == NON_STAMINA
    loss = result.outcome["stamina_loss"]
    assert (loss["lost"], loss["reshuffles"], loss["incapacitated"]) == (1, 1, True)
    assert loss["discarded_cards"] == [*NON_STAMINA, *reversed(NON_STAMINA)]
    assert result.outcome["incapacitated"] is True
    assert result.summary == (
        "Finds only 1 of 3 Stamina (11 to the exhaustion pile, 20 other cards to discard; the "
        "deck ran out, discard pile shuffled in x1) and is incapacitated: no Stamina card is "
        "left in the deck or the discard pile."
    )


def test_dk4_with_no_stamina_card_anywhere_no_shuffle_is_made():
    # project ruling DK-P6
    sheet = make_sheet(NON_STAMINA, exhaustion=STAMINA)
    result = run(sheet, "lose_stamina", {"amount": 1})
    assert result.sheet["incapacitated"] is True
    assert result.sheet["discard"] == list(reversed(NON_STAMINA))
    assert result.rolls == ()
    assert RS.status(result.sheet) == "incapacitated"


def test_dk4_losing_the_last_stamina_card_is_not_yet_incapacitation():
    sheet = make_sheet(["11", REST], exhaustion=between(12, 20))
    result = run(sheet, "lose_stamina", {"amount": 1})
    assert result.sheet["exhaustion"] == STAMINA
    assert result.sheet["incapacitated"] is False


# -- DK-5 and DK-6: taking a breather --------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "result", "faces", "regained", "foe", "text"),
    [
        ("19", "vv", [2], ["11", "12"], False, "regains 2 Stamina (1d4 = 2): 11, 12 shuffled"),
        ("13", "v", [1], ["11"], True, "regains 1 Stamina (1d4 = 1): 11 shuffled"),
        ("5", "x", [], ["11"], True, "regains 1 Stamina: 11 shuffled"),
        ("1", "xx", [], [], True, "regains nothing"),
    ],
)
def test_dk6_breather_results_as_the_text_lists_them(card, result, faces, regained, foe, text):
    sheet = make_sheet([card, REST], exhaustion=["11", "12", "14"], dexterity=1)
    deck_after_flip = sheet["deck"][1:]
    shuffled = len(deck_after_flip) + len(regained)
    shuffle = identity(shuffled) if regained else []
    outcome = run(sheet, "take_breather", {"attribute": "dexterity"}, faces=faces + shuffle)
    assert outcome.outcome["cards"] == [flip(card, result)]
    assert outcome.outcome["result"] == result
    assert outcome.outcome["regained_cards"] == regained
    assert outcome.outcome["stamina_regained"] == len(regained)
    assert outcome.outcome["regain_roll"] == (faces[0] if faces else None)
    assert outcome.outcome["foe_superior_position"] is foe
    assert outcome.sheet["deck"] == deck_after_flip + regained
    assert outcome.sheet["exhaustion"] == [c for c in ["11", "12", "14"] if c not in regained]
    assert outcome.sheet["discard"] == [card]
    words = RESULT_WORDS[result]
    expected = f"Takes a breather with Dexterity (Anchor): card {card} shows {words}; {text}"
    if regained:
        expected += " into the deck"
    if foe:
        expected += "; the foe moves to a superior position"
    assert outcome.summary == expected + "."
    shuffle_rolls = [(f"shuffle({shuffled})", True)] if regained else []
    assert [(r.expression, r.hidden) for r in outcome.rolls] == [("1d4", False)] * len(
        faces
    ) + shuffle_rolls


def test_dk6_breather_with_intelligence_reads_the_intelligence_rank():
    sheet = make_sheet(["2", REST], exhaustion=["11"], intelligence=3, dexterity=1)
    result = run(sheet, "take_breather", {"attribute": "intelligence"}, faces=[1, *identity(19)])
    assert result.outcome["cards"] == [flip("2", "vv")]
    assert result.outcome["foe_superior_position"] is False


def test_dk6_a_breather_cannot_use_strength():
    with pytest.raises(RuleError, match="attribute"):
        run(make_sheet(), "take_breather", {"attribute": "strength"})


def test_dk5_regained_stamina_never_leaves_fewer_cards_than_tokens():
    # project ruling DK-P7: regained cards come off the top of the exhaustion pile
    sheet = make_sheet(
        ["19", REST],
        discard=["W1"],
        exhaustion=["11", "12", "13", "14", "15"],
        harm=1,
        wounds=1,
        intelligence=1,
    )
    rest = [*NON_STAMINA, "16", "17", "18", "20"]
    result = run(sheet, "take_breather", {"attribute": "intelligence"}, faces=[4, *identity(17)])
    assert result.sheet["exhaustion"] == ["14", "15"]
    assert result.sheet["deck"] == [*rest, "11", "12", "13"]
    assert result.outcome["regain"] == 4
    assert result.outcome["stamina_regained"] == 3
    assert result.summary == (
        "Takes a breather with Intelligence (Anchor): card 19 shows two checks; regains 3 "
        "of 4 Stamina (1d4 = 4): "
        "11, 12, 13 shuffled into the deck (harm and wound tokens hold the rest on the "
        "exhaustion pile)."
    )


def test_dk5_at_the_token_floor_nothing_is_regained_and_nothing_shuffled():
    # project ruling DK-P7: the 1d4 is rolled all the same
    sheet = make_sheet(["19", REST], exhaustion=["11", "12"], harm=2)
    result = run(sheet, "take_breather", {"attribute": "dexterity"}, faces=[3])
    assert result.sheet["exhaustion"] == ["11", "12"]
    assert result.outcome["stamina_regained"] == 0
    assert [r.expression for r in result.rolls] == ["1d4"]


def test_dk6_a_wound_card_on_a_breather_costs_stamina_first_then_the_result_applies():
    # project ruling DK-P8
    sheet = make_sheet(["W1", REST], exhaustion=["20"], wounds=1, dexterity=4)
    paused = run(sheet, "take_breather", {"attribute": "dexterity"})
    assert paused.pending_choice.kind == WOUND_CHOICE
    assert paused.outcome["result"] == "x"  # W1 read at Dart
    # The search discards 1..10 and exhausts 11; the breather's x regains 1: card 11
    # (top of the pile) goes back, the wound token keeps 20 there.
    result = answer(paused, "search", faces=identity(9))
    assert result.sheet["exhaustion"] == ["20"]
    assert result.sheet["deck"] == [*between(12, 19), "11"]
    assert result.sheet["discard"] == [*reversed(NON_STAMINA), "W1"]
    assert result.outcome["stamina_loss"]["exhausted_cards"] == ["11"]
    assert result.outcome["regained_cards"] == ["11"]
    assert result.outcome["foe_superior_position"] is True
    assert result.summary == (
        "Takes a breather with Dexterity (Dart): card W1 shows a cross (wound card: a "
        "guttural noise, the "
        "flipping stops); wound card W1 costs 1 Stamina: loses 1 Stamina (11 to the "
        "exhaustion pile, 10 other cards to discard); the breather regains 1 Stamina: 11 "
        "shuffled into the deck; the foe moves to a superior position."
    )


def test_dk6_a_breather_that_incapacitates_regains_nothing():
    # project ruling DK-P8
    sheet = make_sheet(["W1", *NON_STAMINA], exhaustion=STAMINA, wounds=1, dexterity=4)
    paused = run(sheet, "take_breather", {"attribute": "dexterity"})
    result = answer(paused, "search")
    assert result.sheet["incapacitated"] is True
    assert result.sheet["exhaustion"] == STAMINA
    assert result.outcome["stamina_regained"] == 0
    assert result.outcome["foe_superior_position"] is True
    assert result.summary.endswith("; collapsing, they regain nothing.")


# -- DK-7: harm and wounds -------------------------------------------------------------------


def test_dk7_harm_loses_a_stamina_point_and_places_a_harm_token():
    sheet = make_sheet(["1", "11", REST])
    result = run(sheet, "take_harm", {"description": "a sprained wrist"})
    assert result.sheet["harm"] == 1
    assert result.sheet["exhaustion"] == ["11"]
    assert result.sheet["discard"] == ["1"]
    assert result.outcome["harm_became_wound"] is False
    assert result.summary == (
        "Takes a strain, sprain or bruise (a sprained wrist): loses 1 Stamina (11 to the "
        "exhaustion pile, 1 other card to discard); harm token 1 of 2 on the exhaustion pile."
    )


def test_dk7_a_third_harm_is_a_wound_instead():
    sheet = make_sheet(["13", REST], exhaustion=["11", "12"], harm=2)
    result = run(sheet, "take_harm", {})
    assert result.sheet["harm"] == 2
    assert result.sheet["wounds"] == 1
    assert result.sheet["exhaustion"] == ["13", "11", "12"]
    assert result.sheet["discard"] == ["W1"]
    assert result.outcome["harm_became_wound"] is True
    assert result.outcome["wound_card"] == "W1"
    assert result.summary == (
        "Takes a strain, sprain or bruise; with 2 harm tokens already it is a wound instead: "
        "loses 1 Stamina (13 to the exhaustion pile, 0 other cards to discard); wound token 1 "
        "of 2 on the exhaustion pile and wound card W1 on the discard pile."
    )


def test_dk7_wounds_put_w1_then_w2_on_the_discard_pile():
    sheet = make_sheet(["1", "11", "12", REST])
    first = run(sheet, "take_wound", {"description": "an arrow in the thigh"})
    assert first.sheet["wounds"] == 1
    assert first.sheet["discard"] == ["W1", "1"]
    assert first.sheet["exhaustion"] == ["11"]
    assert first.summary.startswith("Takes a wound (an arrow in the thigh): loses 1 Stamina")
    second = run(first.sheet, "take_wound", {})
    assert second.sheet["wounds"] == 2
    assert second.sheet["discard"] == ["W2", "W1", "1"]
    assert second.sheet["exhaustion"] == ["12", "11"]
    assert RS.status(second.sheet) == "wounded"


def test_dk7_a_third_wound_incapacitates_without_other_effect():
    sheet = make_sheet(["W1", "W2", REST], exhaustion=["11", "12"], wounds=2)
    result = run(sheet, "take_wound", {})
    assert result.sheet == dict(sheet, incapacitated=True)
    assert result.outcome == {"description": "", "third_wound": True, "incapacitated": True}
    assert result.summary == "Takes a wound: a third wound on top of 2: incapacitated."


def test_dk7_harm_with_two_harm_and_two_wounds_incapacitates():
    sheet = make_sheet(["W1", "W2", REST], exhaustion=["11", "12", "13", "14"], harm=2, wounds=2)
    result = run(sheet, "take_harm", {})
    assert result.sheet == dict(sheet, incapacitated=True)


def test_dk7_the_harm_token_is_placed_even_when_the_stamina_runs_out():
    # project ruling DK-P6
    sheet = make_sheet(NON_STAMINA, exhaustion=STAMINA)
    result = run(sheet, "take_harm", {})
    assert result.sheet["incapacitated"] is True
    assert result.sheet["harm"] == 1
    assert result.outcome["incapacitated"] is True


def test_dk4_reshuffle_first_applies_to_the_stamina_of_harm_and_wounds():
    # project ruling DK-P5
    sheet = make_sheet(["1", REST], discard=["11"])
    result = run(sheet, "take_wound", {"reshuffle_first": True}, faces=[1, *identity(19)])
    assert result.sheet["exhaustion"] == ["11"]
    assert result.sheet["discard"] == ["W1"]
    assert result.outcome["stamina_loss"]["reshuffled_first"] is True


# -- DK-8: rest and healing ------------------------------------------------------------------


def test_dk8_rest_removes_a_harm_token_and_keeps_one_random_card_per_token():
    # project rulings DK-P1 (kept cards stay in pile order), DK-P2, DK-P11
    sheet = make_sheet(
        [REST],
        discard=["W1", "1", "2"],
        exhaustion=["11", "12", "13", "14", "15"],
        harm=2,
        wounds=1,
    )
    deck = [*between(3, 10), *between(16, 20)]
    # Picks: 1d5 = 2 keeps 12, then 1d4 = 4 keeps 15 (of 11, 13, 14, 15).
    result = run(sheet, "rest", faces=[2, 4, *identity(16)])
    assert result.sheet["harm"] == 1
    assert result.sheet["wounds"] == 1
    assert result.sheet["exhaustion"] == ["12", "15"]
    assert result.sheet["deck"] == [*deck, "11", "13", "14"]
    assert result.sheet["discard"] == ["W1", "1", "2"]  # DK-8: the discard pile stays
    assert [(r.label, r.expression, r.hidden) for r in result.rolls] == [
        ("rest: card kept on the exhaustion pile", "1d5", False),
        ("rest: card kept on the exhaustion pile", "1d4", False),
        ("rest: exhaustion pile shuffled into the deck", "shuffle(16)", True),
    ]
    assert result.elapsed_minutes == 480
    assert result.outcome == {
        "harm_removed": True,
        "kept_cards": ["12", "15"],
        "returned_cards": ["11", "13", "14"],
        "incapacitation_ended": False,
        "incapacitated": False,
    }
    assert result.summary == (
        "Rests: removes a harm token; keeps 2 cards on the exhaustion pile (12, 15) for 2 "
        "remaining tokens and shuffles 3 into the deck."
    )


def test_dk8_rest_without_tokens_shuffles_the_whole_pile_back():
    sheet = make_sheet(["1", REST], exhaustion=["11", "12"])
    result = run(sheet, "rest", faces=identity(20), context=Context(options={"rest_minutes": 360}))
    assert result.sheet["exhaustion"] == []
    assert result.sheet["deck"] == ["1", *between(2, 10), *between(13, 20), "11", "12"]
    assert result.elapsed_minutes == 360
    assert result.summary.startswith("Rests: no harm token to remove; keeps 0 cards")
    assert RS.status(result.sheet) == "fresh"


@pytest.mark.parametrize("minutes", [-1, "8h", 1.5, None])
def test_a_bad_time_option_is_a_rule_error(minutes):
    with pytest.raises(RuleError, match="campaign option heal_minutes"):
        run(make_sheet(), "heal", context=Context(options={"heal_minutes": minutes}))


def test_dk8_rest_keeps_everything_when_the_tokens_cover_the_pile():
    sheet = make_sheet(["W1", REST], exhaustion=["11"], wounds=1)
    result = run(sheet, "rest")
    assert result.sheet == sheet
    assert result.rolls == ()


def test_dk7_dk8_healing_removes_a_wound_with_its_card_and_every_harm_token():
    # project ruling DK-P10: the latest wound card (W2) goes first
    sheet = make_sheet(
        ["W1", REST],
        discard=["W2", "1"],
        exhaustion=["11", "12", "13", "14", "15"],
        harm=2,
        wounds=2,
    )
    result = run(sheet, "heal", {"description": "the oasis"}, faces=[3, *identity(19)])
    assert result.sheet["wounds"] == 1
    assert result.sheet["harm"] == 0
    assert result.sheet["discard"] == ["1"]  # W2, the latest wound card, is gone
    assert result.sheet["exhaustion"] == ["13"]
    assert result.sheet["deck"] == ["W1", *between(2, 10), *between(16, 20), "11", "12", "14", "15"]
    assert result.elapsed_minutes == 1440
    assert result.outcome["wound_card_removed"] == "W2"
    assert result.outcome["harm_removed"] == 2
    assert result.summary == (
        "Spends a day healing (the oasis): removes a wound token and wound card W2, removes 2 "
        "harm tokens; keeps 1 card on the exhaustion pile (13) and shuffles 4 into the deck."
    )


def test_dk7_healing_takes_the_wound_card_out_of_the_deck_too():
    sheet = make_sheet(["2", "W1", REST], exhaustion=["11"], wounds=1)
    result = run(sheet, "heal", faces=identity(20))
    assert "W1" not in result.sheet["deck"]
    assert result.sheet["deck"][:2] == ["2", "1"]
    assert result.sheet["wounds"] == 0
    assert RS.status(result.sheet) == "fresh"


def test_healing_without_wounds_removes_the_harm():
    # project ruling DK-P11
    sheet = make_sheet(exhaustion=["11"], harm=1)
    result = run(sheet, "heal", faces=identity(20))
    assert (result.sheet["harm"], result.sheet["exhaustion"]) == (0, [])
    assert result.outcome["wound_card_removed"] is None


# -- DK-9: incapacitation --------------------------------------------------------------------


def incapacitated_sheet(**fields):
    return make_sheet(NON_STAMINA, exhaustion=STAMINA, incapacitated=True, **fields)


@pytest.mark.parametrize(
    ("action", "params"),
    [
        ("flip", {"attribute": "strength"}),
        ("lose_stamina", {}),
        ("take_breather", {"attribute": "dexterity"}),
        ("take_harm", {}),
        ("take_wound", {}),
    ],
)
def test_dk9_an_incapacitated_character_cannot_act(action, params):
    # project ruling DK-P9
    sheet = incapacitated_sheet()
    with pytest.raises(ActionBlocked, match="incapacitated and cannot") as error:
        run(sheet, action, params)
    assert "ruling DK-9" in str(error.value)


def test_dk9_rest_ends_incapacitation_when_stamina_is_back():
    sheet = incapacitated_sheet(harm=1)
    # Harm 1 -> 0: no token holds a card, all ten go back into the deck.
    result = run(sheet, "rest", faces=identity(20))
    assert result.sheet["incapacitated"] is False
    assert result.sheet["deck"] == [*NON_STAMINA, *STAMINA]
    assert result.outcome["incapacitation_ended"] is True
    assert result.summary.endswith("shuffles 10 into the deck; no longer incapacitated.")


def test_dk9_rest_with_two_wounds_leaves_the_character_incapacitated():
    sheet = make_sheet(["W1", "W2", REST], exhaustion=["11", "12"], wounds=2, incapacitated=True)
    result = run(sheet, "rest")
    assert result.sheet["incapacitated"] is True
    assert result.summary.endswith("; still incapacitated.")


def test_dk9_healing_ends_the_incapacitation_of_a_third_wound():
    sheet = make_sheet(["W1", "W2", REST], exhaustion=["11", "12"], wounds=2, incapacitated=True)
    result = run(sheet, "heal", faces=[1, *identity(20)])
    assert result.sheet["incapacitated"] is False
    assert result.sheet["wounds"] == 1
    assert result.sheet["exhaustion"] == ["11"]
    assert result.outcome["incapacitation_ended"] is True


def test_dk9_the_referee_may_clear_incapacitation():
    assert RS.action("clear_incapacitation").who == "referee"
    result = run(incapacitated_sheet(), "clear_incapacitation", context=Context(by_referee=True))
    assert result.sheet == dict(incapacitated_sheet(), incapacitated=False)
    assert result.summary == "The referee ends the character's incapacitation (ruling DK-9)."
    with pytest.raises(RuleError, match="not incapacitated"):
        run(make_sheet(), "clear_incapacitation")


# -- params ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "params"),
    [
        ("flip", {}),
        ("flip", {"attribute": "charisma"}),
        ("flip", {"attribute": "strength", "count": 0}),
        ("flip", {"attribute": "strength", "count": 21}),
        ("flip", {"attribute": "strength", "count": 1.5}),
        ("flip", {"attribute": "strength", "extra": 1}),
        ("lose_stamina", {"amount": 0}),
        ("lose_stamina", {"amount": 11}),
        ("lose_stamina", {"amount": "2"}),
        ("lose_stamina", {"reshuffle_first": "yes"}),
        ("take_breather", {}),
        ("take_harm", {"description": "x" * 301}),
        ("take_wound", {"amount": 1}),
        ("rest", {"hours": 8}),
        ("heal", {"description": 3}),
        ("clear_incapacitation", {"now": True}),
        ("dance", {}),
    ],
)
def test_bad_params_raise_rule_error(action, params):
    with pytest.raises(RuleError):
        run(make_sheet(), action, params)
