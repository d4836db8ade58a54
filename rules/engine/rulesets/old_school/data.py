"""Old school: constants, default tables and JSON schemas (rulings OS-1..OS-10).

Everything here is data: the rules that use it live in ``ruleset.py``. Project
rulings (OS-P1...) are written out in ``docs/rulesets/old_school.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.engine.dice import expression_pattern
from rules.engine.words import Message, say, word

ABILITIES: tuple[str, ...] = (
    "strength",
    "dexterity",
    "constitution",
    "intelligence",
    "wisdom",
    "charisma",
)
RACES: tuple[str, ...] = ("dwarf", "elf", "halfling", "human")
# Ruling OS-3: five save categories; the sheet stores each target as save_<category>.
SAVE_CATEGORIES: tuple[str, ...] = ("poison", "wands", "paralysis", "breath", "spells")
SAVE_NAMES: dict[str, str] = {
    "poison": word("death ray or poison"),
    "wands": word("magic wands"),
    "paralysis": word("paralysis or petrify"),
    "breath": word("dragon breath"),
    "spells": word("spells"),
}
# A save category as the summaries name it ("save vs poison").
SAVE_WORDS: dict[str, Message] = {
    "poison": word("poison"),
    "wands": word("wands"),
    "paralysis": word("paralysis"),
    "breath": word("breath"),
    "spells": word("spells"),
}
# An ability inside a sentence ("strength 0, OS-1") and at its start ("Strength 10 -> 9").
ABILITY_WORDS: dict[str, Message] = {
    "strength": word("strength"),
    "dexterity": word("dexterity"),
    "constitution": word("constitution"),
    "intelligence": word("intelligence"),
    "wisdom": word("wisdom"),
    "charisma": word("charisma"),
}
ABILITY_TITLES: dict[str, Message] = {
    "strength": word("Strength"),
    "dexterity": word("Dexterity"),
    "constitution": word("Constitution"),
    "intelligence": word("Intelligence"),
    "wisdom": word("Wisdom"),
    "charisma": word("Charisma"),
}
# Targets of a first-level fighter, a common starting point; referees set their own.
DEFAULT_SAVES: dict[str, int] = {
    "poison": 12,
    "wands": 13,
    "paralysis": 14,
    "breath": 15,
    "spells": 17,
}
STATES: tuple[str, ...] = ("alive", "down", "dead")
STATE_WORDS: dict[str, Message] = {
    "alive": word("alive"),
    "down": word("down"),
    "dead": word("dead"),
}
# Food and water in a sentence ("has food again", "day 2 without water").
SUPPLY_WORDS: dict[str, Message] = {"food": word("food"), "water": word("water")}

# Ruling G-1: the campaign clock counts minutes.
HOUR = 60
TURN = 10
DAY = 24 * HOUR
WEEK = 7 * DAY
YEAR = 365 * DAY

SLEEP_NEEDED_HOURS = 4  # ruling OS-8
SLEEP_PERIODS_KEPT = 50  # project ruling OS-P17
MAX_NIGHTS_WITHOUT_SLEEP = 1000  # project ruling OS-P17
# Project ruling OS-P17: why a character goes without sleep, as the referee marks it.
WITHOUT_SLEEP_REASONS: dict[str, str] = {
    "on_watch": word("on watch all night"),
    "forced_march": word("on a forced march"),
    "other": word("kept awake"),
}
AWAKE = word("awake")
DRUNK_DEXTERITY = -2  # ruling OS-9
DRUNK_SAVES = -2  # ruling OS-9
NOT_RESTING_DISEASE_PENALTY = -2  # ruling OS-6
MAX_FALL_DICE = 20  # ruling OS-9
THIRST_FAILURES_TO_DIE = 3  # ruling OS-7
DAY_REST_SPACING = DAY  # project ruling OS-P9
NIGHT_REST_SPACING = 12 * HOUR  # project ruling OS-P9
REST_STREAK_GAP = 2 * DAY  # project ruling OS-P10


@dataclass(frozen=True)
class AgingBands:
    """One row of the text's aging table (ruling OS-5)."""

    interval: int
    start: int  # first save, no modifier
    minus_two: int  # from this age the save is at -2
    minus_four: int  # from this age the save is at -4

    def penalty_at(self, age: int) -> int | None:
        """The save modifier if an aging save falls due at ``age``, else None."""
        if age < self.start or (age - self.start) % self.interval:
            return None
        if age >= self.minus_four:
            return -4
        if age >= self.minus_two:
            return -2
        return 0


# Ruling OS-5: the text's table. Elves do not age.
AGING: dict[str, AgingBands | None] = {
    "dwarf": AgingBands(interval=5, start=200, minus_two=250, minus_four=300),
    "elf": None,
    "halfling": AgingBands(interval=1, start=70, minus_two=80, minus_four=100),
    "human": AgingBands(interval=1, start=40, minus_two=50, minus_four=60),
}


def modifier(score: int) -> int:
    """Ruling OS-1; scores of 1 and 2 (only reached by loss) read as 3 (project ruling OS-P1)."""
    if score <= 3:
        return -3
    if score <= 5:
        return -2
    if score <= 8:
        return -1
    if score <= 12:
        return 0
    if score <= 15:
        return 1
    if score <= 17:
        return 2
    return 3


# Ruling OS-1: ability scores run 3-18; only a loss takes one lower (project ruling OS-P1).
SCORE_MIN = 3
SCORE_MAX = 18


# -- effects: what a critical injury, a poison or a disease does ----------------------

EFFECT_TYPES: tuple[str, ...] = ("none", "death", "damage", "ability_loss", "sleep")
# The engine's dice grammar (rules.engine.dice), plain rolls of up to 999 dice of 999 sides.
DICE_PATTERN = expression_pattern(max_count=999, max_sides=999)

EFFECT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": word(
        "What happens: none; death; damage (a fixed amount or dice, through the damage "
        "rules of OS-4); ability_loss (points per ability, temporary unless permanent); "
        "sleep (unconscious for some hours)."
    ),
    "properties": {
        "type": {"enum": list(EFFECT_TYPES)},
        "amount": {"type": "integer", "minimum": 1, "maximum": 1000},
        "dice": {"type": "string", "pattern": DICE_PATTERN, "maxLength": 12},
        "abilities": {
            "type": "object",
            "properties": {
                ability: {"type": "integer", "minimum": 1, "maximum": 18} for ability in ABILITIES
            },
            "additionalProperties": False,
            "minProperties": 1,
        },
        "permanent": {"type": "boolean"},
        "hours": {"type": "integer", "minimum": 1, "maximum": 720},
    },
    "required": ["type"],
    "additionalProperties": False,
    "allOf": [
        {
            "if": {"properties": {"type": {"const": "damage"}}},
            "then": {"oneOf": [{"required": ["amount"]}, {"required": ["dice"]}]},
        },
        {
            "if": {"properties": {"type": {"const": "ability_loss"}}},
            "then": {"required": ["abilities"]},
        },
        {"if": {"properties": {"type": {"const": "sleep"}}}, "then": {"required": ["hours"]}},
    ],
}

DEATH: dict[str, Any] = {"type": "death"}

# -- tables (editable per campaign) ------------------------------------------------------

CRITICAL_ENTRY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "min": {"type": "integer", "minimum": -1000, "maximum": 10000},
        "max": {
            "type": ["integer", "null"],
            "minimum": -1000,
            "maximum": 10000,
            "description": word("Highest roll of the range; null: this roll and every higher one."),
        },
        "description": {"type": "string", "minLength": 1, "maxLength": 500},
        "effect": {"anyOf": [{"type": "null"}, EFFECT_SCHEMA]},
        "source": {
            "type": "string",
            "maxLength": 200,
            "description": word("Where the entry is from."),
        },
    },
    "required": ["min", "max", "description"],
    "additionalProperties": False,
}
CRITICAL_TABLE_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": CRITICAL_ENTRY_SCHEMA,
    "maxItems": 200,
}

DISEASE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "description": {"type": "string", "maxLength": 500},
        "incubation_minutes": {"type": "integer", "minimum": 0, "maximum": 100 * YEAR},
        "interval_minutes": {"type": "integer", "minimum": 1, "maximum": 10 * YEAR},
        "infection_minutes": {"type": "integer", "minimum": 1, "maximum": 100 * YEAR},
        "effect": EFFECT_SCHEMA,
    },
    "required": ["incubation_minutes", "interval_minutes", "infection_minutes", "effect"],
    "additionalProperties": False,
}
DISEASE_TABLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "propertyNames": {"minLength": 1, "maxLength": 100},
    "additionalProperties": DISEASE_SCHEMA,
    "maxProperties": 500,
}


def _loss(permanent: bool, **abilities: int) -> dict[str, Any]:
    return {"type": "ability_loss", "abilities": abilities, "permanent": permanent}


PROJECT_TABLE_SOURCE = "Sawbones project default, not from the rule text (ruling OS-4)"


def _critical(
    low: int, high: int | None, description: str, effect: dict[str, Any] | None
) -> dict[str, Any]:
    """One row of the project's critical injury table, in the shape a referee edits."""
    return {
        "min": low,
        "max": high,
        "description": description,
        "effect": effect,
        "source": PROJECT_TABLE_SOURCE,
    }


# Ruling OS-4: the text names a "MEGA INJURY TABLE" but does not print it. This default
# table was written by the Sawbones project; it is NOT part of the rule text. Referees
# edit their campaign's copy. Rolled as 1d10 + the negative wounds reached.
PROJECT_CRITICAL_INJURIES: list[dict[str, Any]] = [
    _critical(1, 3, "Knocked flat: bruises and a ringing head, no lasting harm.", None),
    _critical(4, 5, "Deep gash: it bleeds freely and will scar, no lasting harm once bound.", None),
    _critical(6, 6, "Cracked ribs: every breath hurts.", _loss(False, strength=1)),
    _critical(7, 7, "Wrenched knee: walks with a limp for a while.", _loss(False, dexterity=1)),
    _critical(8, 8, "Concussion: the world swims.", _loss(False, intelligence=1, wisdom=1)),
    _critical(9, 9, "Broken arm: splinted, it heals in time.", _loss(False, strength=2)),
    _critical(10, 10, "Broken leg: splinted, it heals in time.", _loss(False, dexterity=2)),
    _critical(11, 11, "Lost fingers: two fingers of one hand are gone.", _loss(True, dexterity=1)),
    _critical(
        12,
        12,
        "Smashed face: teeth lost, nose broken, a disfiguring scar.",
        _loss(True, charisma=1),
    ),
    _critical(
        13, 13, "Torn muscles: a limb never regains its old strength.", _loss(True, strength=1)
    ),
    _critical(
        14,
        14,
        "Lost eye: depth and grace are gone, and so are good looks.",
        _loss(True, dexterity=1, charisma=1),
    ),
    _critical(
        15,
        15,
        "Internal injuries: something inside will never be right again.",
        _loss(True, constitution=1),
    ),
    _critical(
        16,
        16,
        "Skull fracture: memories and judgement suffer for good.",
        _loss(True, intelligence=1, wisdom=1),
    ),
    _critical(17, 17, "Crippled leg: a lifelong limp.", _loss(True, dexterity=2)),
    _critical(18, 18, "Maimed arm: a hand is lost.", _loss(True, strength=2, dexterity=1)),
    _critical(19, 19, "Ruined body: grievous wounds to the gut.", _loss(True, constitution=2)),
    _critical(20, None, "Killed outright.", DEATH),
]

# Ruling OS-6: the referee defines diseases; the text's own example comes preloaded.
DEFAULT_DISEASES: dict[str, dict[str, Any]] = {
    "Green River Fever": {
        "description": (
            "From the rule text: incubation one week, a save vs poison every four hours "
            "for three days, a point of Intelligence lost on each failed save."
        ),
        "incubation_minutes": WEEK,
        "interval_minutes": 4 * HOUR,
        "infection_minutes": 3 * DAY,
        "effect": _loss(False, intelligence=1),
    },
}

# -- the sheet -----------------------------------------------------------------------------

_MINUTE_OR_NULL: dict[str, Any] = {"type": ["integer", "null"], "minimum": 0}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": 10_000_000}


def _int(minimum: int, maximum: int, description: str = "") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "minimum": minimum, "maximum": maximum}
    if description:
        schema["description"] = description
    return schema


def _closed(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


DISEASE_ENTRY_SCHEMA: dict[str, Any] = _closed(
    {
        "name": {"type": "string", "minLength": 1, "maxLength": 100},
        "contracted_at": _int(0, 2**53, word("Campaign minute the disease was contracted.")),
        "incubation_minutes": DISEASE_SCHEMA["properties"]["incubation_minutes"],
        "interval_minutes": DISEASE_SCHEMA["properties"]["interval_minutes"],
        "saves_total": _int(1, 10_000_000),
        "saves_made": _COUNT,
        "saves_failed": _COUNT,
        "effect": EFFECT_SCHEMA,
        "hidden": {
            "type": "boolean",
            "description": word("Known to the referee only until its first save (ruling G-4)."),
        },
    }
)

_ability_fields: dict[str, Any] = {}
for _ability in ABILITIES:
    _named = ABILITY_WORDS[_ability]
    _ability_fields[_ability] = _int(0, 18, say("Current {ability} (ruling OS-1).", ability=_named))
    _ability_fields[f"max_{_ability}"] = _int(
        0, 18, say("Maximum {ability} (ruling OS-1).", ability=_named)
    )

_save_fields: dict[str, Any] = {
    f"save_{category}": _int(
        1, 30, say("Save target vs {save} (ruling OS-3).", save=SAVE_NAMES[category])
    )
    for category in SAVE_CATEGORIES
}

SHEET_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": word("Old school character sheet (rulings OS-1..OS-10)"),
    **_closed(
        {
            **_ability_fields,
            "level": _int(1, 50, word("Level, or hit dice for an NPC (ruling OS-2).")),
            "race": {"enum": list(RACES)},
            "age": _int(0, 100_000, word("Age in years (ruling OS-5).")),
            "birthdays": _int(0, 100_000, word("Yearly birthday effects applied so far.")),
            "wounds": _int(-1_000_000, 1_000_000, word("Current wounds (ruling OS-4).")),
            "max_wounds": _int(1, 1_000_000),
            **_save_fields,
            "state": {"enum": list(STATES)},
            "resting": {
                "type": "boolean",
                "description": word(
                    "At rest now: disease saves are at -2 otherwise (ruling OS-6)."
                ),
            },
            "conditions": _closed(
                {
                    "unconscious": {"type": "boolean"},
                    "unconscious_until": _MINUTE_OR_NULL,
                    "drunk": {"type": "boolean"},
                    "drunk_until": _MINUTE_OR_NULL,
                    "sleep_deprived_days": _COUNT,
                    "starving": {"type": "boolean", "description": word("Food is lacking (OS-7).")},
                    "thirsty": {"type": "boolean", "description": word("Water is lacking (OS-7).")},
                }
            ),
            "privation": _closed(
                {
                    "food_lacking_since": _MINUTE_OR_NULL,
                    "starvation_checks": _COUNT,
                    "water_lacking_since": _MINUTE_OR_NULL,
                    "thirst_checks": _COUNT,
                    "thirst_failures": _int(0, THIRST_FAILURES_TO_DIE),
                    "constitution_lost": _int(
                        0,
                        18,
                        word("Constitution lost to hunger or thirst (recovers twice as fast)."),
                    ),
                }
            ),
            "sleep": {
                **_closed(
                    {
                        "windows": _COUNT,
                        "hours": _int(
                            0, 10_000, word("Hours slept in the current 24-hour window.")
                        ),
                    }
                ),
                # Project ruling OS-P17. Optional: older sheets have neither.
                "properties": {
                    "windows": _COUNT,
                    "hours": _int(0, 10_000, word("Hours slept in the current 24-hour window.")),
                    "periods": {
                        "type": "array",
                        "maxItems": SLEEP_PERIODS_KEPT,
                        "description": word(
                            "Logged sleeps [from, to) in campaign minutes not yet "
                            "credited to a closed window."
                        ),
                        "items": {
                            "type": "array",
                            "items": _int(0, 2**53),
                            "minItems": 2,
                            "maxItems": 2,
                        },
                    },
                    "without": _int(
                        0,
                        MAX_NIGHTS_WITHOUT_SLEEP,
                        word("Windows marked without sleep, still to come."),
                    ),
                    "without_reason": {"type": "string", "maxLength": 100},
                },
            },
            "rest": _closed(
                {
                    "streak_days": _COUNT,
                    "last_day_rest_at": _MINUTE_OR_NULL,
                    "last_night_rest_at": _MINUTE_OR_NULL,
                }
            ),
            "diseases": {"type": "array", "items": DISEASE_ENTRY_SCHEMA, "maxItems": 100},
            "modifiers": _closed(
                {
                    ability: _int(-3, 3, word("Modifier of the score in play (OS-1, OS-9)."))
                    for ability in ABILITIES
                }
            ),
            "penalties": _closed(
                {
                    "rolls": _int(-10_000_000, 0, word("All rolls (sleep deprivation, OS-8).")),
                    "percentile": _int(-100_000_000, 0, word("Percentile rolls (OS-8).")),
                    "saves": _int(-10_000_000, 0, word("Saves (OS-8 and drunkenness, OS-9).")),
                }
            ),
        }
    ),
}


# The critical injuries the character suffered (ruling OS-4), newest last, so the sheet
# shows them and not only the log. Optional: sheets from before it have none.
CRITICAL_INJURIES_KEPT = 50
# Project ruling OS-P15: maximum wounds the floor of OS-P2 kept from going below 1, so a
# recovering Constitution gives back only what was really lost. Optional: older sheets
# have none (read as 0).
SHEET_SCHEMA["properties"]["wounds_withheld"] = _int(
    0, 1_000_000, word("Maximum wounds a Constitution loss could not take (ruling OS-P2).")
)
# Project ruling OS-P21: the d6 of each level gained (OS-P18), oldest first, so that a
# Constitution change moves each such level's wounds as its own roll says. Optional: older
# sheets have none (every level then moves by the modifier's change, OS-2).
LEVELS_KEPT = 50
SHEET_SCHEMA["properties"]["level_dice"] = {
    "type": "array",
    "maxItems": LEVELS_KEPT,
    "items": {"type": "integer", "minimum": 1, "maximum": 6},
    "description": word("The d6 rolled for each level gained (ruling OS-P21)."),
}
SHEET_SCHEMA["properties"]["critical_injuries"] = {
    "type": "array",
    "maxItems": CRITICAL_INJURIES_KEPT,
    "items": {
        "type": "object",
        "properties": {
            "roll": {"type": "integer"},
            "description": {"type": "string", "maxLength": 500},
            "at": {"type": "integer", "minimum": 0, "description": word("Campaign minute.")},
        },
        "required": ["roll", "description", "at"],
        "additionalProperties": False,
    },
}


def default_sheet() -> dict[str, Any]:
    sheet: dict[str, Any] = {}
    for ability in ABILITIES:
        sheet[ability] = 10
        sheet[f"max_{ability}"] = 10
    sheet.update(
        {
            "level": 1,
            "race": "human",
            "age": 20,
            "birthdays": 0,
            "wounds": 6,
            "max_wounds": 6,
        }
    )
    for category in SAVE_CATEGORIES:
        sheet[f"save_{category}"] = DEFAULT_SAVES[category]
    sheet.update(
        {
            "state": "alive",
            "resting": False,
            "conditions": {
                "unconscious": False,
                "unconscious_until": None,
                "drunk": False,
                "drunk_until": None,
                "sleep_deprived_days": 0,
                "starving": False,
                "thirsty": False,
            },
            "privation": {
                "food_lacking_since": None,
                "starvation_checks": 0,
                "water_lacking_since": None,
                "thirst_checks": 0,
                "thirst_failures": 0,
                "constitution_lost": 0,
            },
            "sleep": {"windows": 0, "hours": 0},
            "rest": {"streak_days": 0, "last_day_rest_at": None, "last_night_rest_at": None},
            "diseases": [],
            "modifiers": {ability: 0 for ability in ABILITIES},
            "penalties": {"rolls": 0, "percentile": 0, "saves": 0},
        }
    )
    return sheet


# -- scheduled effects' payloads ------------------------------------------------------------

EFFECT_PAYLOADS: dict[str, dict[str, Any]] = {
    "birthday": _closed({"n": _int(1, 100_000)}),
    "sleep_window": _closed({"n": _int(1, 10_000_000)}),
    "wake_up": _closed({"until": _int(0, 2**53)}),
    "sober_up": _closed({"until": _int(0, 2**53)}),
    "starvation_check": _closed({"since": _int(0, 2**53), "n": _int(1, 10_000_000)}),
    "thirst_check": _closed({"since": _int(0, 2**53), "n": _int(1, 10_000_000)}),
    "disease_save": _closed(
        {
            "disease": {"type": "string", "minLength": 1, "maxLength": 100},
            "since": _int(0, 2**53),
            "n": _int(1, 10_000_000),
        }
    ),
}


# -- words ------------------------------------------------------------------------------------

# What a critical injury's or a poison's effect comes from ("dies (poison)").
CRITICAL_INJURY = word("critical injury")
POISON = word("poison")

# What a character who is dead cannot do, by what the action does (its refusal, 409).
DEAD_CANNOT: dict[str, Message] = {
    "gain a level": word("The character is dead and cannot gain a level."),
    "take damage": word("The character is dead and cannot take damage."),
    "be healed": word("The character is dead and cannot be healed."),
    "lose ability points": word("The character is dead and cannot lose ability points."),
    "save": word("The character is dead and cannot save."),
    "be exposed to a disease": word("The character is dead and cannot be exposed to a disease."),
    "contract a disease": word("The character is dead and cannot contract a disease."),
    "be cured": word("The character is dead and cannot be cured."),
    "be poisoned": word("The character is dead and cannot be poisoned."),
    "drink": word("The character is dead and cannot drink."),
    "fall": word("The character is dead and cannot fall."),
    "search": word("The character is dead and cannot search."),
    "rest": word("The character is dead and cannot rest."),
    "eat or drink": word("The character is dead and cannot eat or drink."),
    "sleep": word("The character is dead and cannot sleep."),
    "go without sleep": word("The character is dead and cannot go without sleep."),
    "age": word("The character is dead and cannot age."),
}
UNCONSCIOUS_CANNOT: dict[str, Message] = {
    "drink": word("The character is unconscious and cannot drink."),
    "sleep": word("The character is unconscious and cannot sleep."),
    "search": word("The character is unconscious and cannot search."),
}
DOWN_CANNOT: dict[str, Message] = {
    "search": word("The character is down and cannot search."),
}

# A scheduled effect's kind in words ("nothing happens (sleep window): ...").
EFFECT_WORDS: dict[str, Message] = {
    "birthday": word("birthday"),
    "sleep_window": word("sleep window"),
    "wake_up": word("wake up"),
    "sober_up": word("sober up"),
    "starvation_check": word("starvation check"),
    "thirst_check": word("thirst check"),
    "disease_save": word("disease save"),
}

# The sheet's fields in words (rules.engine.text.field_words: a correction's refusal).
FIELD_WORDS: dict[str, Message] = {
    **ABILITY_WORDS,
    "max_strength": word("max strength"),
    "max_dexterity": word("max dexterity"),
    "max_constitution": word("max constitution"),
    "max_intelligence": word("max intelligence"),
    "max_wisdom": word("max wisdom"),
    "max_charisma": word("max charisma"),
    "level": word("level"),
    "race": word("race"),
    "age": word("age"),
    "birthdays": word("birthdays"),
    "wounds": word("wounds"),
    "max_wounds": word("max wounds"),
    "save_poison": word("save poison"),
    "save_wands": word("save wands"),
    "save_paralysis": word("save paralysis"),
    "save_breath": word("save breath"),
    "save_spells": word("save spells"),
    "state": word("state"),
    "resting": word("resting"),
    "conditions": word("conditions"),
    "privation": word("privation"),
    "sleep": word("sleep"),
    "rest": word("rest"),
    "diseases": word("diseases"),
    "modifiers": word("modifiers"),
    "penalties": word("penalties"),
    "wounds_withheld": word("wounds withheld"),
    "level_dice": word("level dice"),
    "critical_injuries": word("critical injuries"),
}
