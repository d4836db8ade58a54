"""Property tests: whatever happens to a Deckahedron character, no card is lost.

Random sequences of actions with random valid params (and random answers to the wound
card's choice) run on a real generator seeded by hypothesis. After every step:

* each of the 20 cards lies in exactly one pile;
* the wound cards in the piles are W1..Wn for n wound tokens, in the deck or discard;
* the exhaustion pile holds only Stamina cards, and never fewer than harm + wound
  tokens: this holds always, incapacitated or not, because every token comes with a
  lost Stamina point (or with all ten Stamina cards already exhausted) and DK-5, DK-8
  never take the pile below the tokens;
* an incapacitated character has 2 wounds or no Stamina card in the deck or discard;
* every random draw is in the recorded rolls: replaying them reproduces the step.
"""

import copy
from collections import Counter
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from rules.engine.dice import Dice, ScriptedGenerator, SystemGenerator
from rules.engine.interface import ActionBlocked, Context, RuleError
from rules.engine.rulesets.deckahedron import (
    ATTRIBUTES,
    CARDS,
    DECK_CARD_IDS,
    STAMINA_CARD_IDS,
    WOUND_CARD_IDS,
    Deckahedron,
)

RS = Deckahedron()
ACTION_KEYS = [spec.key for spec in RS.actions]
ALLOWED_WHEN_INCAPACITATED = {"rest", "heal", "clear_incapacitation"}
REFEREE = Context(by_referee=True)

description = st.text(max_size=300)
VALID_PARAMS = {
    "flip": st.fixed_dictionaries(
        {"attribute": st.sampled_from(ATTRIBUTES)}, optional={"count": st.integers(1, 20)}
    ),
    "lose_stamina": st.fixed_dictionaries(
        {}, optional={"amount": st.integers(1, 10), "reshuffle_first": st.booleans()}
    ),
    "take_breather": st.fixed_dictionaries(
        {"attribute": st.sampled_from(["intelligence", "dexterity"])}
    ),
    "take_harm": st.fixed_dictionaries(
        {}, optional={"description": description, "reshuffle_first": st.booleans()}
    ),
    "take_wound": st.fixed_dictionaries(
        {}, optional={"description": description, "reshuffle_first": st.booleans()}
    ),
    "rest": st.just({}),
    "heal": st.fixed_dictionaries({}, optional={"description": description}),
    "clear_incapacitation": st.just({}),
}


def check_invariants(sheet):
    RS.validate_sheet(sheet)
    piles = Counter(card for pile in ("deck", "discard", "exhaustion") for card in sheet[pile])
    for card in DECK_CARD_IDS:
        assert piles[card] == 1, f"card {card} is in {piles[card]} piles"
    wound_cards = [card for card in WOUND_CARD_IDS if piles[card]]
    assert wound_cards == list(WOUND_CARD_IDS[: sheet["wounds"]])
    assert all(piles[card] == 1 for card in wound_cards)
    assert set(sheet["exhaustion"]) <= set(STAMINA_CARD_IDS)
    assert len(sheet["exhaustion"]) >= sheet["harm"] + sheet["wounds"]
    in_play = sheet["deck"] + sheet["discard"]
    if sheet["incapacitated"]:
        assert sheet["wounds"] == 2 or not any(CARDS[card].stamina for card in in_play)
    public = RS.public_sheet(sheet)
    assert public["deck"] == sorted(sheet["deck"], key=list(CARDS).index)
    assert public["deck_size"] == len(sheet["deck"])
    assert (public["discard"], public["exhaustion"]) == (sheet["discard"], sheet["exhaustion"])
    assert RS.status(sheet) in {"incapacitated", "wounded", "harmed", "winded", "fresh"}


def replay_faces(result):
    return [face for roll in result.rolls for face in roll.dice]


def check_replay(result, rerun):
    """The recorded draws alone reproduce the step; every shuffle is a hidden roll."""
    assert all(roll.hidden for roll in result.rolls if roll.expression.startswith("shuffle"))
    generator = ScriptedGenerator(replay_faces(result))
    again = rerun(Dice(generator))
    assert generator.remaining == 0
    assert (again.sheet, again.summary, dict(again.outcome)) == (
        result.sheet,
        result.summary,
        dict(result.outcome),
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_any_sequence_of_actions_conserves_every_card(seed, data):
    generator = SystemGenerator(seed)
    ranks = data.draw(
        st.fixed_dictionaries({}, optional=dict.fromkeys(ATTRIBUTES, st.integers(1, 4)))
    )
    sheet = RS.new_sheet(ranks, Dice(generator))
    check_invariants(sheet)
    for _ in range(data.draw(st.integers(1, 40), label="steps")):
        action = data.draw(st.sampled_from(ACTION_KEYS), label="action")
        params = data.draw(VALID_PARAMS[action], label="params")
        before = copy.deepcopy(sheet)
        try:
            result = RS.resolve(sheet, action, params, Dice(generator), REFEREE)
        except ActionBlocked:
            event("an incapacitated character was blocked")
            assert sheet["incapacitated"] and action not in ALLOWED_WHEN_INCAPACITATED
            continue
        except RuleError:
            assert action == "clear_incapacitation" and not sheet["incapacitated"]
            continue
        assert sheet == before
        assert action in ALLOWED_WHEN_INCAPACITATED or not before["incapacitated"]
        check_replay(
            result, lambda dice, s=before, a=action, p=params: RS.resolve(s, a, p, dice, REFEREE)
        )
        while result.pending_choice is not None:
            event("a wound card stopped a flip")
            check_invariants(result.sheet)
            paused, choice = result.sheet, result.pending_choice
            option = data.draw(st.sampled_from(choice.option_keys()), label="option")
            result = RS.choose(paused, choice, option, Dice(generator), REFEREE)
            check_replay(
                result, lambda dice, s=paused, c=choice, o=option: RS.choose(s, c, o, dice, REFEREE)
            )
        sheet = result.sheet
        check_invariants(sheet)
        if sheet["incapacitated"] and not before["incapacitated"]:
            event(f"incapacitated by {action} with {sheet['wounds']} wounds")
        if before["incapacitated"] and not sheet["incapacitated"]:
            event(f"incapacitation ended by {action}")
        if any(roll.label.startswith("deck ran out") for roll in result.rolls):
            event("the deck ran out")


def bad_values(schema):
    """Values that break one property's schema."""
    kind = schema.get("type")
    options: list[st.SearchStrategy[Any]] = [st.none(), st.lists(st.integers(), max_size=2)]
    if "enum" in schema:
        options += [st.text().filter(lambda v: v not in schema["enum"]), st.integers()]
    elif kind == "integer":
        low, high = schema["minimum"], schema["maximum"]
        options += [
            st.integers(max_value=low - 1),
            st.integers(min_value=high + 1),
            st.floats(allow_nan=False).filter(lambda v: not v.is_integer()),
            st.text(),
            st.booleans(),
        ]
    elif kind == "boolean":
        options += [st.integers(), st.text()]
    elif kind == "string":
        options += [st.integers(), st.text(min_size=schema["maxLength"] + 1)]
    return st.one_of(options)


@st.composite
def bad_params(draw):
    action = draw(st.sampled_from(ACTION_KEYS))
    spec = RS.action(action)
    params = dict(draw(VALID_PARAMS[action]))
    properties = spec.params["properties"]
    ways = ["unknown key"] + (["bad value"] if properties else [])
    ways += ["missing key"] if spec.params["required"] else []
    way = draw(st.sampled_from(ways))
    if way == "unknown key":
        key = draw(st.text(min_size=1, max_size=12).filter(lambda k: k not in properties))
        params[key] = draw(st.integers() | st.text() | st.booleans())
    elif way == "bad value":
        key = draw(st.sampled_from(sorted(properties)))
        params[key] = draw(bad_values(properties[key]))
    else:
        del params[draw(st.sampled_from(spec.params["required"]))]
    return action, params


@settings(max_examples=300, deadline=None)
@given(case=bad_params(), seed=st.integers(0, 2**32 - 1))
def test_bad_params_raise_rule_error_and_change_nothing(case, seed):
    action, params = case
    sheet = RS.new_sheet({}, Dice(SystemGenerator(seed)))
    before = copy.deepcopy(sheet)
    dice = Dice(SystemGenerator(seed))
    try:
        RS.resolve(sheet, action, params, dice, REFEREE)
    except RuleError as error:
        assert f"invalid params for {action}" in str(error)
    else:
        raise AssertionError(f"{action} accepted {params!r}")
    assert sheet == before
    assert dice.rolls == []
