"""Warband: skirmish injuries, the wounds buffer, falls and ledges.

Units are characters; a warband is the group of units whose sheets carry its name. An
attack that got through reads its injury off the Injury Check chart from the attack's
own d20 as the table reports it (ruling WB-1); falls and some spells roll the Injury
Roll table on the server's dice. Wounds are a buffer in front of both (WB-2). States
go from worst: incapacitated, stunned, dazed, staggered, none, and recover one step at
the warband's upkeep and at the end of its turn (WB-3), driven by the battle's phases.

The two tables are data below (``INJURY_CHECK_CHART``, ``INJURY_ROLL_TABLE``);
``docs/rulesets/warband.md`` prints them for referees (a test keeps the two equal) and
lists the rulings WB-1..WB-6 and the project rulings WB-P1.. cited beside the code.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

from rules.engine.dice import EXPRESSION_PATTERN, Dice, DiceError, DiceExpression, Roll
from rules.engine.interface import (
    ActionBlocked,
    ActionSpec,
    Context,
    OddsUnavailable,
    OutOfBounds,
    Params,
    Result,
    RuleError,
    Ruleset,
    Sheet,
    options_schema,
    params_schema,
)
from rules.engine.odds import Odds, TooManyPaths, die_outcomes, expression_die, grouped
from rules.engine.rulesets.warband_odds import injury_roll_outcomes, ledge_outcomes
from rules.engine.text import sentence
from rules.engine.validation import validate
from rules.engine.words import Message, say, word

# -- data ----------------------------------------------------------------------------------

# Ruling WB-3: states from the least to the most severe; the index is the severity.
INJURIES: tuple[str, ...] = ("none", "staggered", "dazed", "stunned", "incapacitated")
SEVERITY: dict[str, int] = {injury: rank for rank, injury in enumerate(INJURIES)}
ATTACKS: tuple[str, ...] = ("melee", "ranged", "spell")


@dataclass(frozen=True)
class TableRow:
    """One row of a d20 table: totals ``low``..``high`` give ``injury``."""

    low: int
    high: int
    injury: str


# The Injury Check chart: the successful attack check's d20, with injury modifiers.
INJURY_CHECK_CHART: tuple[TableRow, ...] = (
    TableRow(1, 14, "dazed"),
    TableRow(15, 17, "stunned"),
    TableRow(18, 20, "incapacitated"),
)
# The Injury Roll table: a d20 the server rolls (falls, some spells); 1-11 does nothing.
INJURY_ROLL_TABLE: tuple[TableRow, ...] = (
    TableRow(1, 11, "none"),
    TableRow(12, 14, "dazed"),
    TableRow(15, 17, "stunned"),
    TableRow(18, 20, "incapacitated"),
)
TABLE_LOW, TABLE_HIGH = 1, 20  # ruling WB-1: a value below 1 reads as 1, above 20 as 20

FALL_FREE_INCHES = 2  # ruling WB-5: +2 per full inch above 2"
FALL_BONUS_PER_INCH = 2
LEDGE_MIN_DROP = 2  # ruling WB-5: a drop of at least 2"
LEDGE_MAX_SIDES = 8  # project ruling WB-P10: the sides a unit could fall from
DAZED_MOVE = 1  # a dazed unit moves 1" at most

DEFAULT_PHASES: tuple[str, ...] = ("upkeep", "move", "ranged", "melee", "end")
UPKEEP: Final = "upkeep"
END: Final = "end"
DEFAULT_ROUT_PERCENT = 50  # ruling WB-6: half the warband's units, rounded up

# What each state means at the table, for the sheet's public form and the pages.
INJURY_MEANS: dict[str, Message] = {
    "none": word("Fighting fit: it moves and acts normally."),
    "staggered": word(
        "Staggered: it moves at half speed and makes every check with disadvantage until "
        "the end of its turn."
    ),
    "dazed": word(
        'Dazed: it can only move 1", and may use it to disengage from melee only if every '
        "enemy that could attack it has another target that is not stunned or dazed; "
        "attackers have advantage, and if it fails a defence in melee it is incapacitated."
    ),
    "stunned": word(
        "Stunned: it cannot act. An enemy in melee may attack it only if it has no other "
        "target that is not stunned or dazed, and such an attack incapacitates it."
    ),
    "incapacitated": word(
        "Incapacitated: it is off the board for the rest of the battle and rolls on the Scars "
        "table afterwards."
    ),
}

# The states in words: the party list's word for each (an unhurt unit is "standing"),
# and a table's result read after a colon ("none" is no effect).
STATUS_WORDS: dict[str, Message] = {
    "none": word("standing"),
    "staggered": word("staggered"),
    "dazed": word("dazed"),
    "stunned": word("stunned"),
    "incapacitated": word("incapacitated"),
}
TABLE_WORDS: dict[str, Message] = {**STATUS_WORDS, "none": word("no effect")}
# The sheet's fields in words (rules.engine.text.field_words says them so).
FIELD_WORDS: tuple[Message, ...] = (
    word("warband"),
    word("wounds"),
    word("max wounds"),
    word("injury"),
    word("agility"),
    word("move"),
    word("scars"),
)

SCARS_TABLE = "scars"
# Ruling WB-6: the Scars table is the referee's; the project ships it empty.
DEFAULT_SCARS_TABLE: dict[str, Any] = {"dice": "1d20", "rows": []}

# -- schemas -------------------------------------------------------------------------------

_WARBAND_NAME: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 60,
    "pattern": r"\S",
    "description": word("The name of the unit's warband."),
}
_SCAR_TEXT: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 300}

SHEET_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": word("Warband unit sheet"),
    "type": "object",
    "properties": {
        "warband": _WARBAND_NAME,
        "wounds": {"type": "integer", "minimum": 0, "maximum": 20, "default": 1},
        "max_wounds": {
            "type": "integer",
            "minimum": 1,
            "maximum": 20,
            "default": 1,
            "description": word("Wounds when fit; heroes have more than 1."),  # ruling WB-2
        },
        "injury": {"enum": list(INJURIES), "default": "none"},
        "agility": {
            "type": "integer",
            "minimum": 1,
            "maximum": 40,
            "default": 10,
            "description": word("Target number of the unit's agility checks."),
        },
        "move": {
            "type": "number",
            "minimum": 0,
            "maximum": 60,
            "default": 6,
            "description": word("Move in inches."),
        },
        "scars": {"type": "array", "items": _SCAR_TEXT, "maxItems": 100, "default": []},
    },
    "required": ["warband", "wounds", "max_wounds", "injury", "agility", "move", "scars"],
    "additionalProperties": False,
}

OPTIONS_SCHEMA: dict[str, Any] = options_schema(
    {
        "phases": {  # ruling WB-6
            "type": "array",
            "items": {"type": "string", "pattern": "^[a-z][a-z_]{0,29}$"},
            "minItems": 2,
            "maxItems": 12,
            "uniqueItems": True,
            "default": list(DEFAULT_PHASES),
            "title": word("Phases"),
            "description": word("The phases of a warband's turn, from upkeep to end."),
        },
        "rout_threshold_percent": {  # ruling WB-6
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "default": DEFAULT_ROUT_PERCENT,
            "title": word("Rout threshold percent"),
            "description": word(
                "Rout checks are due once this share of a warband's units, "
                "rounded up, is incapacitated."
            ),
        },
    }
)

SCARS_TABLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "dice": {
            "type": "string",
            "maxLength": 20,
            "pattern": EXPRESSION_PATTERN,
            "description": word("What the referee rolls on the table: 1d20, 2d6, 1d66 is not one."),
        },
        "rows": {
            "type": "array",
            "maxItems": 200,
            "items": {
                "type": "object",
                "properties": {
                    "min": {"type": "integer", "minimum": -1000, "maximum": 1000},
                    "max": {"type": "integer", "minimum": -1000, "maximum": 1000},
                    "scar": _SCAR_TEXT,
                },
                "required": ["min", "max", "scar"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["dice", "rows"],
    "additionalProperties": False,
}

_MODIFIERS: dict[str, Any] = {
    "type": "integer",
    "minimum": -50,
    "maximum": 50,
    "default": 0,
    "description": word("Injury modifiers (or agility modifiers for a ledge), added to the d20."),
}
_INCHES: dict[str, Any] = {"type": "number", "minimum": 0, "maximum": 1000}

ACTIONS: tuple[ActionSpec, ...] = (
    # rulings WB-1, WB-2, WB-4
    ActionSpec(
        key="injury_check",
        label=word("Injury check"),
        params=params_schema(
            {
                "attack_roll": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 20,
                    "description": word(
                        "The d20 of the successful attack check, as rolled at the table."
                    ),
                },
                "attack": {"enum": list(ATTACKS)},
                "modifiers": _MODIFIERS,
                "attacker_has_other_target": {
                    "type": "boolean",
                    "default": False,
                    "description": word(
                        "In melee: the attacker has another valid target that is "
                        "not stunned or dazed, so a stunned unit cannot be its target "
                        "(project ruling WB-P11)."
                    ),
                },
            },
            required=("attack_roll", "attack"),
        ),
        description=word(
            "A successful attack reads its injury off the Injury Check chart; wounds "
            "absorb it first."
        ),
    ),
    # ruling WB-2
    ActionSpec(
        key="injury_roll",
        label=word("Injury roll"),
        params=params_schema({"modifiers": _MODIFIERS}),
        description=word(
            "The server rolls a d20 on the Injury Roll table; only an injuring result "
            "costs a wound."
        ),
    ),
    # ruling WB-5
    ActionSpec(
        key="fall",
        label=word("Fall"),
        params=params_schema(
            {
                "height_inches": {**_INCHES, "description": word("How far it falls.")},
                "modifiers": _MODIFIERS,
            },
            required=("height_inches",),
        ),
        description=word('An injury roll with +2 for every full inch above 2".'),
    ),
    # rulings G-5, WB-5
    ActionSpec(
        key="ledge_check",
        label=word("Ledge check"),
        params=params_schema(
            {
                "drop_inches": {**_INCHES, "minimum": LEDGE_MIN_DROP},
                "modifiers": _MODIFIERS,
                "sides": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": LEDGE_MAX_SIDES,
                    "default": 1,
                    "description": word(
                        "How many sides it could fall from; a fall picks one at "
                        "random (project ruling WB-P10)."
                    ),
                },
            },
            required=("drop_inches",),
        ),
        description=word(
            'A dazed or stunned unit within 1" of a drop of 2" or more makes an '
            "agility check; failing, it falls."
        ),
    ),
    # the text's Dazed rules, project ruling WB-P11
    ActionSpec(
        key="disengage",
        label=word("Disengage"),
        params=params_schema(
            {
                "enemies_have_other_targets": {
                    "type": "boolean",
                    "description": word(
                        "Every enemy that could target it in the coming melee has "
                        "another valid target that is not stunned or dazed."
                    ),
                }
            },
            required=("enemies_have_other_targets",),
        ),
        description=word(
            'A dazed unit in melee uses its 1" of move to disengage, in the move '
            "phase, only if every enemy that could target it has another valid target that is "
            "not stunned or dazed."
        ),
    ),
    # ruling WB-3
    ActionSpec(
        key="recover",
        label=word("Recover after the battle"),
        params=params_schema({}),
        who="referee",
        description=word("A unit that was not incapacitated is back to full wounds, unhurt."),
    ),
    # ruling WB-6, project ruling WB-P5
    ActionSpec(
        key="roll_scars",
        label=word("Roll for scars"),
        params=params_schema({}),
        who="referee",
        description=word(
            "An incapacitated unit rolls on the campaign's Scars table after the "
            "battle and keeps the scar."
        ),
    ),
)

# -- the tables as functions ---------------------------------------------------------------


def clamp_table_value(value: int) -> int:
    """Ruling WB-1 (and project ruling WB-P3 for rolls): read below 1 as 1, above 20 as 20."""
    return max(TABLE_LOW, min(TABLE_HIGH, value))


def _read(table: Sequence[TableRow], value: int) -> str:
    clamped = clamp_table_value(value)
    for row in table:
        if row.low <= clamped <= row.high:
            return row.injury
    raise AssertionError(f"the table has no row for {clamped}")  # the tables cover 1-20


def injury_check_result(value: int) -> str:
    """The Injury Check chart on the (clamped) value."""
    return _read(INJURY_CHECK_CHART, value)


def injury_roll_result(value: int) -> str:
    """The Injury Roll table on the (clamped) total; ``none`` is no effect."""
    return _read(INJURY_ROLL_TABLE, value)


def fall_modifier(height_inches: float) -> int:
    """Ruling WB-5: +2 for every full inch above 2" (2.9" +0, 3" +2, 4.5" +4, 10" +16)."""
    full_inches = math.floor(height_inches)
    return FALL_BONUS_PER_INCH * max(0, full_inches - FALL_FREE_INCHES)


def move_now(sheet: Mapping[str, Any]) -> float:
    """Inches the unit may move in its state (the text's Injury Types)."""
    injury = sheet["injury"]
    move = float(sheet["move"])
    if injury == "staggered":
        return move / 2
    if injury == "dazed":
        return min(float(DAZED_MOVE), move)
    if injury in ("stunned", "incapacitated"):
        return 0.0
    return move


def _inches(value: float) -> str:
    """A length in inches as a number for a message that writes the inch mark after it."""
    return f"{value:g}"


def _signed(value: int) -> str:
    """ " + 2", " - 3" or nothing, to write a d20 and its modifiers for people."""
    if not value:
        return ""
    return f" {'+' if value > 0 else '-'} {abs(value)}"


# -- who may be attacked in melee, who may leave it (the text's Stunned and Dazed rules) ----
def melee_target_refusal(
    injury: str, attack: str, attacker_has_other_target: bool
) -> Message | None:
    """Why an enemy may not attack a unit in ``injury`` in melee, or None if it may.

    The text: "A Stunned unit cannot be targeted by an enemy in Melee, if that enemy has
    another valid target that is not Stunned or Dazed" (project ruling WB-P11).
    """
    if attack == "melee" and injury == "stunned" and attacker_has_other_target:
        return word(
            "A stunned unit cannot be attacked in melee while the attacker has another target "
            "that is not stunned or dazed."
        )
    return None


# Why a unit that is not dazed does not disengage by this rule (disengage_refusal).
_NOT_DAZED: dict[str, Message] = {
    "none": word(
        'Only a dazed unit disengages with its 1" of move; this one is unhurt and moves by '
        "the ordinary rules."
    ),
    "staggered": word(
        'Only a dazed unit disengages with its 1" of move; this one is staggered and moves '
        "by the ordinary rules."
    ),
    "incapacitated": word(
        'Only a dazed unit disengages with its 1" of move; this one is incapacitated and '
        "moves by the ordinary rules."
    ),
}


def disengage_refusal(injury: str, enemies_have_other_targets: bool) -> Message | None:
    """Why a unit in ``injury`` may not disengage now, or None if it may.

    The text: a Dazed unit "may only Disengage if all enemies that could target it in the
    upcoming Melee Combat have another valid target that is not Stunned or Dazed"
    (project ruling WB-P11). A stunned unit cannot do anything; a unit in better shape
    moves out of melee by the ordinary rules, not by this one.
    """
    if injury == "stunned":
        return word("A stunned unit cannot do anything, so it cannot disengage.")
    if injury != "dazed":
        return _NOT_DAZED[injury]
    if not enemies_have_other_targets:
        return word(
            "A dazed unit may disengage only if every enemy that could attack it has another "
            "target that is not stunned or dazed."
        )
    return None


# -- battles (pure: the Django side stores the state) --------------------------------------

Moment = Literal["upkeep", "end"]


@dataclass(frozen=True)
class BattleState:
    """Where a battle stands: turn number, index of the active warband, phase."""

    turn: int
    active: int
    phase: str


@dataclass(frozen=True)
class Recovery:
    """A warband whose units recover as the battle moves on (ruling WB-3)."""

    warband: int  # index in the battle's turn order
    moment: Moment


def battle_start(phases: Sequence[str]) -> BattleState:
    """Turn 1, the first warband active, in its upkeep (ruling WB-6)."""
    return BattleState(turn=1, active=0, phase=phases[0])


def battle_next(
    state: BattleState, phases: Sequence[str], warbands: int
) -> tuple[BattleState, tuple[Recovery, ...]]:
    """The next phase, and the recoveries it brings (rulings WB-3, WB-6).

    After the active warband's last phase comes the next warband's upkeep; after the
    last warband the turn number goes up. Leaving a warband's end phase recovers its
    staggered units; entering a warband's upkeep recovers its stunned and dazed ones.
    A phase that the campaign's options no longer list counts as the last one
    (project ruling WB-P7).
    """
    if warbands < 1:
        raise RuleError(word("a battle needs at least one warband"))
    index = phases.index(state.phase) if state.phase in phases else len(phases) - 1
    if index + 1 < len(phases):
        return BattleState(state.turn, state.active, phases[index + 1]), ()
    following = state.active + 1
    turn = state.turn
    if following >= warbands:
        following, turn = 0, turn + 1
    recoveries = (Recovery(state.active, END), Recovery(following, UPKEEP))
    return BattleState(turn, following, phases[0]), recoveries


def rout_threshold(units: int, percent: int) -> int:
    """Ruling WB-6: ``percent`` of the warband's units, rounded up (default half)."""
    return math.ceil(units * percent / 100)


def rout_checks_due(units: int, incapacitated: int, percent: int) -> bool:
    """True once the warband's incapacitated units reach its rout threshold (WB-6)."""
    return units > 0 and incapacitated >= rout_threshold(units, percent)


# -- the ruleset ---------------------------------------------------------------------------


# What warband resolutions find (Ruleset.outcome_properties): injury rolls, falls,
# scars, a battle's moments.
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_TEXT = {"type": "string"}
OUTCOME_PROPERTIES: Mapping[str, Any] = {
    "absorbed": _TEXT,
    "agility_roll": _INT,
    "attack": _TEXT,
    "attack_roll": _INT,
    "changed": _BOOL,
    "disengaged": _BOOL,
    "fall_modifier": _INT,
    "fall_side": _TEXT,
    "from": _TEXT,
    "height_inches": {"type": "number"},
    "injury": _TEXT,
    "injury_roll": _INT,
    "moment": _TEXT,
    "move_inches": _INT,
    "passed": _BOOL,
    "scar": _TEXT,
    "scars_roll": _INT,
    "table_result": _TEXT,
    "value": _INT,
    "wounds": _INT,
}


class Warband(Ruleset):
    """The injury chapter of the warband text, with rulings WB-1..WB-6."""

    key = "warband"
    name = "Warband"
    blurb = word(
        "Skirmish battles: injuries from the attack's own d20, wounds as a buffer, falls, "
        "ledges, recovery turn by turn, rout."
    )
    creation_fields = ("warband", "max_wounds", "agility", "move")
    sheet_schema: ClassVar[Mapping[str, Any]] = SHEET_SCHEMA
    actions: ClassVar[tuple[ActionSpec, ...]] = ACTIONS
    outcome_properties: ClassVar[Mapping[str, Any]] = OUTCOME_PROPERTIES
    options_schema: ClassVar[Mapping[str, Any]] = OPTIONS_SCHEMA
    tables: ClassVar[Mapping[str, Any]] = {SCARS_TABLE: DEFAULT_SCARS_TABLE}  # ruling WB-6
    table_schemas: ClassVar[Mapping[str, Mapping[str, Any]]] = {SCARS_TABLE: SCARS_TABLE_SCHEMA}
    example_initial: ClassVar[Mapping[str, Any]] = {"warband": "The Grey Company"}

    # -- sheets ----------------------------------------------------------------------------
    def default_sheet(self) -> Sheet:
        """Every field at its default; ``warband`` has none and must be given."""
        return {
            "warband": "",
            "wounds": 1,
            "max_wounds": 1,
            "injury": "none",
            "agility": 10,
            "move": 6,
            "scars": [],
        }

    def new_sheet(self, initial: Mapping[str, Any], dice: Dice) -> Sheet:
        """Defaults, then ``initial``; wounds not given start full (project ruling WB-P1)."""
        given = copy.deepcopy(dict(initial))
        name = given.get("warband")
        if not isinstance(name, str) or not name.strip():
            raise RuleError(word("A unit needs the name of its warband."))
        given["warband"] = name.strip()
        sheet = self.default_sheet()
        sheet.update(given)
        if "wounds" not in given:
            sheet["wounds"] = sheet["max_wounds"]
        self.validate_sheet(sheet)
        return sheet

    def validate_sheet(
        self, sheet: Mapping[str, Any], valid: Mapping[str, Any] | None = None
    ) -> None:
        super().validate_sheet(sheet, valid)
        if sheet["wounds"] > sheet["max_wounds"]:
            raise RuleError(
                say(
                    "invalid sheet: wounds: {wounds} is more than max_wounds {max_wounds}",
                    wounds=sheet["wounds"],
                    max_wounds=sheet["max_wounds"],
                )
            )

    def unavailable(self, sheet: Mapping[str, Any], action: str) -> Message | None:
        """The same refusals as the actions' own checks, said before anyone tries: an
        incapacitated unit is off the board (issue 24: the page offered its actions)."""
        injury = sheet["injury"]
        if injury == "incapacitated":
            if action == "recover":
                return word("The unit was incapacitated: roll on the Scars table for it instead.")
            if action != "roll_scars":
                return word("The unit is incapacitated and off the board for this battle.")
        elif action == "roll_scars":
            return word("Only a unit incapacitated in the battle rolls for scars.")
        if action == "ledge_check" and injury not in ("dazed", "stunned"):
            return word("Only a dazed or stunned unit checks its footing at a ledge.")
        return None

    def out_of_bounds(self, sheet: Mapping[str, Any]) -> tuple[OutOfBounds, ...]:
        """Project ruling WB-P13: wounds at most the unit's maximum."""
        if sheet["wounds"] > sheet["max_wounds"]:
            why = say(
                "wounds {wounds} is above the maximum {max_wounds}",
                wounds=sheet["wounds"],
                max_wounds=sheet["max_wounds"],
            )
            return (OutOfBounds(("wounds", "max_wounds"), why),)
        return ()

    def status(self, sheet: Mapping[str, Any]) -> Message:
        """The injury word; an unhurt unit is "standing"."""
        return STATUS_WORDS[str(sheet["injury"])]

    @property
    def public_sheet_schema(self) -> dict[str, Any]:
        schema = copy.deepcopy(dict(self.sheet_schema))
        schema["properties"]["injury_means"] = {
            "type": "string",
            "description": word("what the unit's injury means now, in words"),
        }
        schema["properties"]["move_now"] = {
            "type": "number",
            "minimum": 0,
            "description": word("how far the unit may move now, in inches"),
        }
        schema["required"] = [*schema.get("required", []), "injury_means", "move_now"]
        return schema

    def public_sheet(self, sheet: Mapping[str, Any]) -> Sheet:
        """The sheet, plus what its state means now and how far it may move."""
        public = super().public_sheet(sheet)  # a copy
        public["injury_means"] = INJURY_MEANS[sheet["injury"]]
        public["move_now"] = move_now(sheet)
        return public

    # -- options and tables ----------------------------------------------------------------
    def validate_options(self, options: Mapping[str, Any]) -> None:
        """Phases from ``upkeep`` to ``end`` (project ruling WB-P6), a rout percentage."""
        validate(dict(options), self.options_schema, word("campaign options"))
        phases = options.get("phases", self.options["phases"])
        if phases[0] != UPKEEP or phases[-1] != END:
            raise RuleError(
                word(
                    "The phases of a turn must begin with upkeep and finish with end, so that "
                    "units recover when they should."
                )
            )

    def phases(self, context: Context) -> list[str]:
        phases: list[str] = list(self.option(context, "phases"))
        self.validate_options({"phases": phases})
        return phases

    def rout_percent(self, context: Context) -> int:
        return int(self.option(context, "rout_threshold_percent"))

    def validate_table(self, key: str, data: Any) -> None:
        """The Scars table: a dice expression and rows covering each total once."""
        if key != SCARS_TABLE:
            super().validate_table(key, data)
            return
        try:  # the dice first: its pattern's words would be no help to a referee
            if isinstance(data, Mapping) and isinstance(data.get("dice"), str):
                DiceExpression.parse(data["dice"])
        except DiceError as error:
            why = error.args[0] if error.args and isinstance(error.args[0], str) else str(error)
            raise RuleError(say("invalid scars table: dice: {error}", error=why)) from None
        validate(data, SCARS_TABLE_SCHEMA, word("scars table"))
        expression = DiceExpression.parse(data["dice"])
        if not data["rows"]:
            return  # empty is allowed: it is what the project ships (ruling WB-6)
        kept = expression.keep_count
        low = kept + expression.modifier
        high = kept * expression.sides + expression.modifier
        covered: dict[int, str] = {}
        for row in data["rows"]:
            if row["max"] < row["min"]:
                raise RuleError(
                    say(
                        "invalid scars table: the row {low}-{high} ends before it starts",
                        low=row["min"],
                        high=row["max"],
                    )
                )
            for total in range(row["min"], row["max"] + 1):
                if total in covered:
                    raise RuleError(
                        say(
                            "invalid scars table: {total} is in two rows ({first} and {second})",
                            total=total,
                            first=repr(covered[total]),
                            second=repr(row["scar"]),
                        )
                    )
                covered[total] = row["scar"]
        missing = [total for total in range(low, high + 1) if total not in covered]
        if missing:
            raise RuleError(
                say(
                    "invalid scars table: {dice} can roll {total}, which no row covers",
                    dice=str(expression),
                    total=missing[0],
                )
            )

    # -- shared steps ----------------------------------------------------------------------
    @staticmethod
    def _on_board(sheet: Mapping[str, Any], action: str) -> None:
        if sheet["injury"] == "incapacitated":
            raise ActionBlocked(OFF_BOARD[action])

    @staticmethod
    def _injure(
        sheet: Sheet, injury: str, *, never_lessens: bool
    ) -> tuple[Message, dict[str, Any]]:
        """Apply ``injury`` through the wounds buffer (ruling WB-2); text and facts.

        With ``never_lessens`` (ranged and spell checks, ruling WB-4; injury rolls,
        project ruling WB-P2) an injury no worse than the current one changes nothing
        and costs no wound.
        """
        before = str(sheet["injury"])
        wounds = int(sheet["wounds"])
        if injury == "none":
            return TABLE_WORDS["none"], {"injury": before, "wounds": wounds, "changed": False}
        if never_lessens and SEVERITY[injury] <= SEVERITY[before]:
            return (
                _NO_WORSE[before],
                {"injury": before, "wounds": wounds, "changed": False},
            )
        if wounds > 1:  # ruling WB-2: loses a wound instead
            sheet["wounds"] = wounds - 1
            return (
                say(
                    "it loses a wound instead (wounds {wounds} -> {left})",
                    wounds=wounds,
                    left=wounds - 1,
                ),
                {"injury": before, "wounds": wounds - 1, "changed": True, "absorbed": injury},
            )
        # Here the injury is worse than the current one: melee reaches this only for an
        # unhurt or staggered unit (WB-4 took the dazed and stunned ones).
        sheet["wounds"] = 0
        sheet["injury"] = injury
        text = _NOW[injury] if wounds == 0 else _LAST_WOUND[injury]
        return text, {"injury": injury, "wounds": 0, "changed": True}

    def _injury_roll(
        self, sheet: Sheet, modifiers: int, dice: Dice, label: Message, height_bonus: int = 0
    ) -> tuple[list[Message], dict[str, Any]]:
        """Roll the Injury Roll table; only an injuring result costs a wound (WB-2).

        ``height_bonus``: a fall from a ledge, whose roll says the height's bonus (it is
        ``modifiers``)."""
        roll = dice.roll(f"1d20{modifiers:+d}" if modifiers else "1d20", label)
        result = injury_roll_result(roll.total)
        text, facts = self._injure(sheet, result, never_lessens=True)
        shown = _roll_text(roll, modifiers)
        if height_bonus:
            said = say(
                "injury roll (+{bonus} for the height) {roll}: {result}",
                bonus=height_bonus,
                roll=shown,
                result=TABLE_WORDS[result],
            )
        else:
            said = say("injury roll {roll}: {result}", roll=shown, result=TABLE_WORDS[result])
        return (
            [said, text] if result != "none" else [said],
            {"injury_roll": roll.total, "table_result": result, **facts},
        )

    # -- actions ---------------------------------------------------------------------------
    # -- odds: one d20 on the Injury Roll table, through the wounds buffer -------------
    def odds_injury_roll(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        self._on_board(sheet, "injury_roll")
        modifiers = int(params.get("modifiers", 0))
        weighted = injury_roll_outcomes(sheet, modifiers, injury_roll_result, self._injure)
        return grouped("injury_roll", weighted)

    def odds_fall(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        self._on_board(sheet, "fall")
        bonus = fall_modifier(float(params["height_inches"]))  # ruling WB-5
        modifiers = bonus + int(params.get("modifiers", 0))
        weighted = injury_roll_outcomes(sheet, modifiers, injury_roll_result, self._injure)
        note = say("+{bonus} on the injury roll for the height.", bonus=bonus)
        return grouped("fall", weighted, notes=(note,))

    def odds_ledge_check(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        self._on_board(sheet, "ledge_check")
        if sheet["injury"] not in ("dazed", "stunned"):
            raise ActionBlocked(_NO_LEDGE_CHECK[str(sheet["injury"])])
        bonus = fall_modifier(float(params["drop_inches"]))
        weighted, _ = ledge_outcomes(
            sheet, int(params.get("modifiers", 0)), bonus, injury_roll_result, self._injure
        )
        notes = [say("Agility check against {target}.", target=sheet["agility"])]
        sides = int(params.get("sides", 1))
        if sides > 1:
            notes.append(say("A fall is from one of {sides} sides, rolled at random.", sides=sides))
        return grouped("ledge_check", weighted, notes=tuple(notes))

    def action_injury_check(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Rulings WB-1 (the table's d20, clamped), WB-2 (wounds), WB-4 (melee, ranged)."""
        self._on_board(sheet, "injury_check")
        attack = str(params["attack"])
        attack_roll = int(params["attack_roll"])
        modifiers = int(params.get("modifiers", 0))
        before = str(sheet["injury"])
        outcome: dict[str, Any] = {"attack": attack, "attack_roll": attack_roll}
        refusal = melee_target_refusal(
            before, attack, bool(params.get("attacker_has_other_target", False))
        )
        if refusal is not None:
            raise ActionBlocked(refusal)
        if attack == "melee" and before in ("stunned", "dazed"):
            # Ruling WB-4: incapacitated outright, no check and no roll; its wounds are
            # already spent (project ruling WB-P4).
            sheet["injury"] = "incapacitated"
            sheet["wounds"] = 0
            return Result(
                sheet=sheet,
                summary=sentence([_ATTACKED_IN_MELEE[before]]),
                outcome={**outcome, "injury": "incapacitated", "wounds": 0, "changed": True},
            )
        total = attack_roll + modifiers
        value = clamp_table_value(total)
        result = injury_check_result(value)
        text, facts = self._injure(sheet, result, never_lessens=attack != "melee")
        shown = f"{attack_roll}{_signed(modifiers)}"
        reading: str = shown
        if value != total:  # ruling WB-1
            reading = say("{roll} = {total}, read as {value}", roll=shown, total=total, value=value)
        elif modifiers:
            reading = f"{shown} = {value}"
        return Result(
            sheet=sheet,
            summary=sentence([_injury_check_text(attack, reading, result), text]),
            outcome={**outcome, "value": value, "table_result": result, **facts},
        )

    def action_injury_roll(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """The Injury Roll table on a server d20 (rulings G-2, WB-2)."""
        self._on_board(sheet, "injury_roll")
        parts, outcome = self._injury_roll(
            sheet, int(params.get("modifiers", 0)), dice, word("Injury roll")
        )
        return Result(sheet=sheet, summary=sentence(parts), outcome=outcome)

    def action_fall(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """Ruling WB-5: an injury roll, +2 per full inch above 2"."""
        self._on_board(sheet, "fall")
        height = float(params["height_inches"])
        inches = _inches(height)
        bonus = fall_modifier(height)
        parts, outcome = self._injury_roll(
            sheet,
            bonus + int(params.get("modifiers", 0)),
            dice,
            say('Injury roll for a {inches}" fall', inches=inches),
        )
        if bonus:
            head = say('falls {inches}" (+{bonus} for the height)', inches=inches, bonus=bonus)
        else:
            head = say('falls {inches}"', inches=inches)
        return Result(
            sheet=sheet,
            summary=sentence([head, *parts]),
            outcome={"height_inches": height, "fall_modifier": bonus, **outcome},
        )

    def action_ledge_check(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Ruling WB-5: the agility check (G-5); a failure falls the drop at once."""
        self._on_board(sheet, "ledge_check")
        if sheet["injury"] not in ("dazed", "stunned"):
            raise ActionBlocked(_NO_LEDGE_CHECK[str(sheet["injury"])])
        drop = float(params["drop_inches"])
        inches = _inches(drop)
        modifiers = int(params.get("modifiers", 0))
        target = int(sheet["agility"])
        roll = dice.roll(
            f"1d20{modifiers:+d}" if modifiers else "1d20",
            say("Agility check vs {target}", target=target),
        )
        passed = roll.total >= target  # ruling G-5: no automatic success or failure
        shown = _roll_text(roll, modifiers)
        outcome: dict[str, Any] = {"agility_roll": roll.total, "passed": passed}
        if passed:
            head = say(
                'agility check at a {inches}" drop {roll} vs {target}: keeps its footing',
                inches=inches,
                roll=shown,
                target=target,
            )
            return Result(sheet=sheet, summary=sentence([head]), outcome=outcome)
        sides = int(params.get("sides", 1))
        if sides > 1:  # the text: "determine which side it does so at random" (WB-P10)
            side = dice.roll(
                f"1d{sides}", say("Which of {sides} sides it falls from", sides=sides)
            ).total
            head = say(
                'agility check at a {inches}" drop {roll} vs {target}: fails and falls from '
                "side {side} of {sides} (rolled)",
                inches=inches,
                roll=shown,
                target=target,
                side=side,
                sides=sides,
            )
            outcome["fall_side"] = side
        else:
            head = say(
                'agility check at a {inches}" drop {roll} vs {target}: fails and falls',
                inches=inches,
                roll=shown,
                target=target,
            )
        bonus = fall_modifier(drop)
        parts, fall = self._injury_roll(
            sheet,
            bonus,
            dice,
            say('Injury roll for a {inches}" fall', inches=inches),
            height_bonus=bonus,
        )
        return Result(
            sheet=sheet,
            summary=sentence([head, *parts]),
            outcome={**outcome, "fall_modifier": bonus, **fall},
        )

    def action_disengage(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """The text's Dazed rules (project ruling WB-P11): leave only when no enemy that
        could target it is left without another target that is not stunned or dazed."""
        self._on_board(sheet, "disengage")
        refusal = disengage_refusal(
            str(sheet["injury"]), bool(params["enemies_have_other_targets"])
        )
        if refusal is not None:
            raise ActionBlocked(refusal)
        return Result(
            sheet=sheet,
            summary=sentence([word('dazed, it uses its 1" of move to disengage from the melee')]),
            outcome={"disengaged": True, "move_inches": DAZED_MOVE},
        )

    def action_recover(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """After a battle, full wounds and no injury, unless incapacitated (scars instead)."""
        if sheet["injury"] == "incapacitated":
            raise ActionBlocked(
                word(
                    "The unit was incapacitated: roll on the Scars table for it instead, which "
                    "brings it back for the next battle."
                )
            )
        said = _recovered(str(sheet["injury"]), sheet["wounds"], sheet["max_wounds"])
        sheet["wounds"] = sheet["max_wounds"]
        sheet["injury"] = "none"
        return Result(
            sheet=sheet,
            summary=sentence([said]),
            outcome={"injury": "none", "wounds": sheet["wounds"]},
        )

    def _scars_table(self, sheet: Mapping[str, Any], context: Context) -> dict[str, Any]:
        """The campaign's Scars table, if this unit may roll on it now (ruling WB-6)."""
        if sheet["injury"] != "incapacitated":
            raise ActionBlocked(_NO_SCARS[str(sheet["injury"])])
        table: dict[str, Any] = context.table(self, SCARS_TABLE)
        self.validate_table(SCARS_TABLE, table)
        if not table["rows"]:
            raise ActionBlocked(
                word(
                    "The campaign's Scars table is empty: the referee must fill it in before a "
                    "unit can roll on it."
                )
            )
        if len(sheet["scars"]) >= SHEET_SCHEMA["properties"]["scars"]["maxItems"]:
            raise RuleError(word("The unit has as many scars as a sheet can hold."))
        return table

    def odds_roll_scars(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        """Each row of the Scars table by the chance of its totals (ruling WB-6)."""
        table = self._scars_table(sheet, context)
        try:
            die = expression_die(str(DiceExpression.parse(table["dice"])))
        except TooManyPaths:
            raise OddsUnavailable(
                word("The Scars table's dice have too many totals to list.")
            ) from None
        weighted = [
            (f"scar:{index}", str(row["scar"]), probability)
            for total, probability in die_outcomes(die)
            for index, row in enumerate(table["rows"])
            if row["min"] <= total <= row["max"]
        ]
        note = say("{dice} on the Scars table.", dice=str(table["dice"]))
        return grouped("roll_scars", weighted, notes=(note,))

    def action_roll_scars(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Ruling WB-6 and project ruling WB-P5: the scar, then back for the next battle."""
        table = self._scars_table(sheet, context)
        roll = dice.roll(str(DiceExpression.parse(table["dice"])), word("Scars table"))
        scar = next(
            str(row["scar"]) for row in table["rows"] if row["min"] <= roll.total <= row["max"]
        )
        sheet["scars"].append(scar)
        sheet["injury"] = "none"
        sheet["wounds"] = sheet["max_wounds"]
        return Result(
            sheet=sheet,
            summary=sentence(
                [
                    say(
                        "rolls {dice} = {total} on the Scars table: {scar}",
                        dice=str(roll.expression),
                        total=roll.total,
                        scar=scar,
                    ),
                    word("back for the next battle with full wounds"),
                ]
            ),
            outcome={"scar": scar, "scars_roll": roll.total},
        )

    # -- battle recovery (rulings WB-3, WB-6) ----------------------------------------------
    def battle_recovery(self, sheet: Mapping[str, Any], moment: Moment) -> Result | None:
        """The recovery ``moment`` brings this unit, or None when it has nothing to recover.

        At its warband's upkeep: stunned -> dazed, dazed -> staggered. Leaving its end
        phase: staggered -> none. Incapacitated lasts the battle. Wounds do not come
        back during a battle (project ruling WB-P1).
        """
        before = str(sheet["injury"])
        steps = {UPKEEP: {"stunned": "dazed", "dazed": "staggered"}, END: {"staggered": "none"}}
        after = steps[moment].get(before)
        if after is None:
            return None
        new_sheet: Sheet = copy.deepcopy(dict(sheet))
        new_sheet["injury"] = after
        self.validate_sheet(new_sheet)
        return Result(
            sheet=new_sheet,
            summary=sentence([_RECOVERS[(moment, before)]]),
            outcome={"moment": moment, "from": before, "injury": after},
        )


def _roll_text(roll: Roll, modifiers: int) -> str:
    die = roll.dice[0]
    if not modifiers:
        return str(die)
    return f"{die}{_signed(modifiers)} = {roll.total}"


# -- what the rules say of a unit's state, a message for each state -------------------------
# (whole sentences: the state is part of the words, not a value put into them)

_INJURED_AGAIN = word(
    "The unit is incapacitated and off the board for this battle, so it cannot be injured again."
)
# Why an incapacitated unit cannot take ``action`` (Warband._on_board).
OFF_BOARD: dict[str, Message] = {
    "injury_check": _INJURED_AGAIN,
    "injury_roll": _INJURED_AGAIN,
    "fall": word("The unit is incapacitated and off the board for this battle, so it cannot fall."),
    "ledge_check": word(
        "The unit is incapacitated and off the board for this battle, so it cannot check its "
        "footing."
    ),
    "disengage": word(
        "The unit is incapacitated and off the board for this battle, so it cannot disengage."
    ),
}
# An injury no worse than the unit's state (Warband._injure, never_lessens).
_NO_WORSE: dict[str, Message] = {
    "staggered": word("that is no worse than being staggered already, so nothing changes"),
    "dazed": word("that is no worse than being dazed already, so nothing changes"),
    "stunned": word("that is no worse than being stunned already, so nothing changes"),
    "incapacitated": word("that is no worse than being incapacitated already, so nothing changes"),
}
# The injury taken with no wound left, and with the last one.
_NOW: dict[str, Message] = {
    "dazed": word("it is now dazed"),
    "stunned": word("it is now stunned"),
    "incapacitated": word("it is now incapacitated"),
}
_LAST_WOUND: dict[str, Message] = {
    "dazed": word("wounds 1 -> 0 and it is dazed"),
    "stunned": word("wounds 1 -> 0 and it is stunned"),
    "incapacitated": word("wounds 1 -> 0 and it is incapacitated"),
}
# Ruling WB-4: attacked in melee while stunned or dazed.
_ATTACKED_IN_MELEE: dict[str, Message] = {
    "stunned": word(
        "attacked in melee while stunned, it cannot defend itself and is incapacitated"
    ),
    "dazed": word("attacked in melee while dazed, it fails its defence and is incapacitated"),
}
# A unit that is neither dazed nor stunned does not check its footing.
_NO_LEDGE_CHECK: dict[str, Message] = {
    "none": word(
        "Only a dazed or stunned unit must check its footing at a ledge; this one is unhurt."
    ),
    "staggered": word(
        "Only a dazed or stunned unit must check its footing at a ledge; this one is staggered."
    ),
    "incapacitated": word(
        "Only a dazed or stunned unit must check its footing at a ledge; this one is incapacitated."
    ),
}
# A unit that was not incapacitated does not roll for scars.
_NO_SCARS: dict[str, Message] = {
    "none": word("Only a unit incapacitated in the battle rolls for scars; this one is unhurt."),
    "staggered": word(
        "Only a unit incapacitated in the battle rolls for scars; this one is staggered."
    ),
    "dazed": word("Only a unit incapacitated in the battle rolls for scars; this one is dazed."),
    "stunned": word(
        "Only a unit incapacitated in the battle rolls for scars; this one is stunned."
    ),
}
# Ruling WB-3: each step of recovery in a battle (Warband.battle_recovery).
_RECOVERS: dict[tuple[str, str], Message] = {
    (UPKEEP, "stunned"): word("recovers at its warband's upkeep: stunned -> dazed"),
    (UPKEEP, "dazed"): word("recovers at its warband's upkeep: dazed -> staggered"),
    (END, "staggered"): word("recovers at the end of its turn: staggered -> unhurt"),
}


def _injury_check_text(attack: str, reading: str, result: str) -> Message:
    """The Injury Check chart read for an ``attack`` (ruling WB-1)."""
    shown = TABLE_WORDS[result]
    if attack == "melee":
        return say("melee injury check on {reading}: {result}", reading=reading, result=shown)
    if attack == "ranged":
        return say("ranged injury check on {reading}: {result}", reading=reading, result=shown)
    return say("spell injury check on {reading}: {result}", reading=reading, result=shown)


def _recovered(injury: str, wounds: int, most: int) -> Message:
    """Recovery after the battle from ``injury`` with ``wounds`` of ``most`` (ruling WB-3)."""
    if injury == "staggered":
        return say(
            "recovers after the battle: from staggered, wounds {wounds}/{max_wounds} to full "
            "wounds, unhurt",
            wounds=wounds,
            max_wounds=most,
        )
    if injury == "dazed":
        return say(
            "recovers after the battle: from dazed, wounds {wounds}/{max_wounds} to full "
            "wounds, unhurt",
            wounds=wounds,
            max_wounds=most,
        )
    if injury == "stunned":
        return say(
            "recovers after the battle: from stunned, wounds {wounds}/{max_wounds} to full "
            "wounds, unhurt",
            wounds=wounds,
            max_wounds=most,
        )
    return say(
        "recovers after the battle: from none, wounds {wounds}/{max_wounds} to full wounds, unhurt",
        wounds=wounds,
        max_wounds=most,
    )
