"""What the base Ruleset does once for every ruleset: the rolls of a result, the checks
of a scheduled effect (a template method like choose/finish_choice), the options schema
checked once, and the one text module for summaries and campaign time (ruling G-1)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from rules.engine.dice import Dice, ScriptedGenerator
from rules.engine.interface import (
    ActionSpec,
    ChoiceOption,
    Context,
    Params,
    PendingChoice,
    Result,
    RuleError,
    Ruleset,
    Sheet,
    options_schema,
    params_schema,
)
from rules.engine.text import clock_text, sentence
from rules.engine.turn import Turn
from rules.engine.validation import copy_json


class Tiny(Ruleset):
    key = "tiny"
    name = "Tiny"
    blurb = "A ruleset for these tests."
    sheet_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"hp": {"type": "integer"}},
        "required": ["hp"],
    }
    creation_fields = ("hp",)
    actions = (ActionSpec("hit", "Hit", params_schema({})),)
    effect_payloads: ClassVar[dict[str, Any]] = {
        "bleed": params_schema({"amount": {"type": "integer"}}, ("amount",))
    }
    options_schema = options_schema(
        {
            "size": {
                "type": "integer",
                "minimum": 2,
                "maximum": 20,
                "default": 6,
                "title": "Size",
                "description": "The die's size.",
            }
        }
    )

    def default_sheet(self) -> Sheet:
        return {"hp": 10}

    def status(self, sheet: Any) -> str:
        return "standing"

    def action_hit(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        damage = dice.roll(f"1d{self.option(context, 'size')}", "damage").total
        sheet["hp"] -= damage
        turn = Turn(sheet, dice, context)
        turn.note(f"takes {damage} damage")
        turn.pending = PendingChoice("again", "Again?", (ChoiceOption("yes", "Yes"),))
        return turn.result()

    def finish_choice(
        self, sheet: Sheet, choice: PendingChoice, option: str, dice: Dice, context: Context
    ) -> Result:
        sheet["hp"] -= dice.roll("1d4", "again").total
        return Result(sheet=sheet, summary="again")

    def effect_bleed(self, sheet: Sheet, payload: Params, dice: Dice, context: Context) -> Result:
        sheet["hp"] -= int(payload["amount"]) + dice.roll("1d2", "bleed").total
        return Result(sheet=sheet, summary=sentence([]))


RULES = Tiny()


def dice(*faces: int) -> Dice:
    return Dice(ScriptedGenerator(faces))


def test_the_base_class_fills_in_the_rolls_of_an_action_a_choice_and_an_effect():
    rolled = dice(5, 3, 2)
    hit = RULES.resolve({"hp": 10}, "hit", {}, rolled, Context())
    assert [r.total for r in hit.rolls] == [5]
    assert hit.summary == "Takes 5 damage."
    assert hit.pending_choice is not None
    again = RULES.choose(hit.sheet, hit.pending_choice, "yes", rolled, Context())
    assert [r.label for r in again.rolls] == ["again"]  # only the rolls of this resolution
    bled = RULES.apply_effect(again.sheet, "bleed", {"amount": 1}, rolled, Context())
    assert [(r.label, r.total) for r in bled.rolls] == [("bleed", 2)]
    assert bled.sheet["hp"] == 10 - 5 - 3 - 1 - 2


def test_apply_effect_checks_the_kind_and_the_payload_before_the_ruleset_runs():
    with pytest.raises(RuleError, match="no scheduled effect 'poison'"):
        RULES.apply_effect({"hp": 1}, "poison", {}, dice(), Context())
    with pytest.raises(RuleError, match="payload of bleed"):
        RULES.apply_effect({"hp": 1}, "bleed", {"amount": "lots"}, dice(), Context())


def test_options_come_from_the_schema_and_are_checked_once_on_a_campaign():
    assert Tiny.options == {"size": 6}
    assert RULES.check_options({"size": 8}) == {"size": 8}
    for bad, message in (({"colour": 1}, "unknown option"), ({"size": 1}, "size")):
        with pytest.raises(RuleError, match=message):
            RULES.check_options(bad)
    # one rule for numbers, JSON Schema's (issue 27): 8.0 is the whole number 8
    checked = RULES.check_options({"size": 8.0})
    assert checked == {"size": 8} and type(checked["size"]) is int
    with pytest.raises(RuleError, match="size"):
        RULES.check_options({"size": 8.5})
    with pytest.raises(RuleError, match="campaign option size"):
        RULES.option(Context(options={"size": "big"}), "size")


def test_an_option_without_default_title_or_bounds_is_refused_where_it_is_written():
    with pytest.raises(TypeError, match="lacks default"):
        options_schema({"size": {"type": "integer", "title": "Size", "description": "."}})
    with pytest.raises(TypeError, match="minimum and a maximum"):
        options_schema(
            {"size": {"type": "integer", "default": 1, "title": "Size", "description": "."}}
        )


def test_one_sentence_and_one_clock_for_every_ruleset_ruling_g1():
    assert sentence(["takes 3 damage", "", "is down"]) == "Takes 3 damage; is down."
    assert sentence(["ends here."]) == "Ends here."
    assert sentence([]) == "Nothing happens."
    assert clock_text(0) == "Day 1, 00:00"
    assert clock_text(24 * 60 + 61) == "Day 2, 01:01"


def test_copy_json_copies_deeply_and_keeps_every_type():
    inner: dict[str, Any] = {
        "list": [1, {"x": 2}],
        "tuple": (1, [2]),
        "none": None,
        "flag": True,
        "f": 1.5,
    }
    value = {"a": inner, "b": [inner, "text"]}
    copied = copy_json(value)
    assert copied == value
    assert type(copied["a"]["tuple"]) is tuple
    copied["a"]["list"][1]["x"] = 3
    copied["a"]["tuple"][1].append(3)
    copied["b"][0]["flag"] = False
    assert value == {"a": inner, "b": [inner, "text"]}
    assert inner["list"][1]["x"] == 2 and inner["tuple"] == (1, [2]) and inner["flag"] is True
