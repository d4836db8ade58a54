"""Hit dice: hit points, injuries and healing (chapter 6 of the rule text).

Hit points are re-rolled at every rest instead of healing; damage beyond them
("overflow") forces two injury saves. How this module reads the text is fixed by
rulings HD-1..HD-9 in ``RULINGS.md`` and by the project rulings HD-P1..HD-P12 in
``docs/rulesets/hit_dice.md``; both are cited beside the code that applies them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any, ClassVar

from rules.engine.dice import Dice, Roll
from rules.engine.interface import (
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
    ScheduledEffect,
    Sheet,
    options_schema,
    params_schema,
)
from rules.engine.odds import (
    Odds,
    certain,
    chance_at_least,
    d,
    from_die,
    grouped,
    lowest_of,
    sum_of,
)
from rules.engine.text import sentence
from rules.engine.turn import Turn
from rules.engine.words import Message, say, say_plural, word

INJURY_DC_BASE = 20  # 6.6 / ruling HD-4: DC 20 + overflow
DEFAULT_WORSEN_DC = 20  # ruling HD-7
SHORT_REST_MINUTES = 10  # ruling HD-2
LONG_REST_MINUTES = 8 * 60  # ruling HD-3
# HD-6; the sheet keeps the English text (data), a summary says the message.
DEFAULT_MINOR_WOUND_SAID = word("Shallow cut: -2 to heavy physical tasks until the next long rest")
DEFAULT_MINOR_WOUND = str(DEFAULT_MINOR_WOUND_SAID)
MAJOR_WOUND_PLACEHOLDER = "Major wound: awaiting the referee's description"
MAX_MINUTES = 365 * 24 * 60  # a worsening period of at most a year (G-1)

STATES = ("standing", "collapsed", "dead")
STATE_WORDS: Mapping[str, Message] = {
    "standing": word("standing"),
    "collapsed": word("collapsed"),
    "dead": word("dead"),
}
CHOICE_DEATH_OR_MAJOR = "death_or_major_wound"
CHOICE_BYPASS = "bypass"
EFFECT_WORSENS = "wound_worsens"
# What a dead character cannot do, as the refusal says it (_check_alive).
DEAD_CANNOT: Mapping[str, Message] = {
    "answer a choice": word("The character is dead and cannot answer a choice."),
    "be hurt": word("The character is dead and cannot be hurt."),
    "die again": word("The character is dead and cannot die again."),
    "have a wound described": word("The character is dead and cannot have a wound described."),
    "have a wound treated": word("The character is dead and cannot have a wound treated."),
    "rest": word("The character is dead and cannot rest."),
    "stand up": word("The character is dead and cannot stand up."),
    "take damage": word("The character is dead and cannot take damage."),
}
NO_MAJOR_WOUND = word("The character has no major wound to die of.")
NOT_COLLAPSED = word("The character is not collapsed.")
STANDS_UP = word("stands up again")
# Ability losses under these names also lower the matching save modifier (ruling HD-P6).
SAVE_ABILITIES = {"strength": "strength_save", "will": "will_save"}

_ABILITY_LOSSES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "propertyNames": {"pattern": "^[a-z][a-z_]{0,29}$"},
    "additionalProperties": {"type": "integer", "minimum": 1, "maximum": 30},
    "maxProperties": 12,
    "title": word("Ability losses"),
    "description": word("Each ability the wound lowers, with the points it loses."),
}
_WORSENS_EVERY_SCHEMA: dict[str, Any] = {
    "type": ["integer", "null"],
    "minimum": 1,
    "maximum": MAX_MINUTES,
    "title": word("Worsens every (minutes)"),
    # ruling HD-7; null: never
    "description": word(
        "How often the wound worsens while untreated; leave empty if it never does."
    ),
}
_WORSEN_DC_SCHEMA: dict[str, Any] = {
    "type": "integer",
    "title": word("Difficulty of the worsening's injury saves"),
    "minimum": 1,
    "maximum": 100,
    "default": DEFAULT_WORSEN_DC,
}
_SAVE_MODIFIER_SCHEMA: dict[str, Any] = {
    "type": "integer",
    "minimum": -30,
    "maximum": 50,
    "default": 10,
}

WOUND_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 1, "description": word("Stable, never reused.")},
        "kind": {"enum": ["minor", "major"]},
        "description": {"type": "string", "minLength": 1, "maxLength": 500},
        "treated": {"type": "boolean"},
        "ability_losses": _ABILITY_LOSSES_SCHEMA,
        "worsens_every": _WORSENS_EVERY_SCHEMA,
        "worsen_dc": _WORSEN_DC_SCHEMA,
        "until_long_rest": {
            "type": "boolean",
            "description": word("Its penalty ends at the next long rest (rulings HD-3, HD-6)."),
        },
        "expired": {
            "type": "boolean",
            "description": word("A long rest has ended its 'until the next long rest' penalty."),
        },
        "cause": {"type": "string", "maxLength": 200},
        "received_at": {"type": "integer", "minimum": 0, "description": word("Campaign minute.")},
    },
    "required": [
        "id",
        "kind",
        "description",
        "treated",
        "ability_losses",
        "worsens_every",
        "worsen_dc",
        "until_long_rest",
        "expired",
        "cause",
        "received_at",
    ],
    "additionalProperties": False,
}

SHEET_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": word("Hit dice character sheet (ruling HD-1)"),
    "type": "object",
    "properties": {
        "level": {"type": "integer", "minimum": 1, "maximum": 20, "default": 1},
        "hit_dice": {
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "default": 1,
            "description": word("Equal to level for player characters (6.2); free for NPCs."),
        },
        "hp": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 0},
        "fatigue": {"type": "integer", "minimum": 0, "maximum": 100, "default": 0},
        "major_wound_marks": {"type": "integer", "minimum": 0, "maximum": 100, "default": 0},
        "strength_save": _SAVE_MODIFIER_SCHEMA,
        "will_save": _SAVE_MODIFIER_SCHEMA,
        "wounds": {"type": "array", "items": WOUND_SCHEMA, "maxItems": 200, "default": []},
        "state": {"enum": list(STATES), "default": "standing"},
    },
    "required": [
        "level",
        "hit_dice",
        "hp",
        "fatigue",
        "major_wound_marks",
        "strength_save",
        "will_save",
        "wounds",
        "state",
    ],
    "additionalProperties": False,
}

_WOUND_ID = {"type": "integer", "minimum": 1, "description": word("The wound's id.")}
_DAMAGE = {"type": "integer", "minimum": 1, "maximum": 10000}

ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(
        key="damage",
        label=word("Take damage"),
        params=params_schema(
            {
                "amount": _DAMAGE,
                "give_up": {
                    "type": "boolean",
                    "default": False,
                    "description": word("Fail the will injury save on purpose (6.8, ruling HD-4)."),
                },
            },
            required=("amount",),
        ),
        description=word(
            "Hit points absorb the damage; any overflow forces two injury saves "
            "at DC 20 + overflow (6.6, ruling HD-4)."
        ),
    ),
    ActionSpec(
        key="bypass",
        label=word("Effect bypasses hit points"),
        params=params_schema(
            {
                "damage": _DAMAGE,
                "attacker_level": {"type": "integer", "minimum": 1, "maximum": 100},
            },
            required=("damage", "attacker_level"),
        ),
        who="referee",
        description=word(
            "The character chooses: pay 10 hp per attacker level/HD, or take "
            "injury saves at DC 20 + damage (6.12, ruling HD-8)."
        ),
    ),
    ActionSpec(
        key="short_rest",
        label=word("Short rest"),
        params=params_schema({"reroll": {"type": "boolean"}}, required=("reroll",)),
        description=word(
            "Ten minutes; re-rolling hp rolls (HD + fatigue)d6 keeping the lowest HD, "
            "then adds a point of fatigue (6.4, 6.5, ruling HD-2)."
        ),
    ),
    ActionSpec(
        key="long_rest",
        label=word("Night's sleep"),
        params=params_schema({}),
        description=word(
            "Eight hours; fatigue back to 0, hp re-rolled with HD d6 (6.5, ruling HD-3)."
        ),
    ),
    ActionSpec(
        key="treat_wound",
        label=word("Treat a wound"),
        params=params_schema({"wound": _WOUND_ID}, required=("wound",)),
        description=word(
            "Marks a wound treated: no infection risk, no further worsening (HD-6, HD-7)."
        ),
    ),
    ActionSpec(
        key="describe_wound",
        label=word("Describe a wound"),
        params=params_schema(
            {
                "wound": _WOUND_ID,
                "description": {"type": "string", "minLength": 1, "maxLength": 500},
                "ability_losses": _ABILITY_LOSSES_SCHEMA,
                "worsens_every": _WORSENS_EVERY_SCHEMA,
                "worsen_dc": _WORSEN_DC_SCHEMA,
                "until_long_rest": {"type": "boolean"},
            },
            required=("wound", "description"),
        ),
        who="referee",
        description=word(
            "The referee's description of a wound, its ability losses and how often "
            "it worsens while untreated (6.9, 6.10, rulings HD-6, HD-7)."
        ),
    ),
    ActionSpec(
        key="die_of_wounds",
        label=word("Die of wounds"),
        params=params_schema({}),
        # 6.10, ruling HD-9
        description=word("The player lets the character die of their major wounds."),
        confirm=word(
            "Let this character die of their major wounds? Only the referee's undo "
            "brings them back."
        ),
    ),
    ActionSpec(
        key="stand_up",
        label=word("Stand up"),
        params=params_schema({}),
        who="referee",
        description=word(
            "The referee ends a collapse before the next rest (project ruling HD-P1)."
        ),
    ),
)


def _modifier_text(modifier: int) -> str:
    return f"{modifier:+d}" if modifier else ""


def _save_text(which: str, roll: Roll, modifier: int, dc: int, passed: bool) -> Message:
    values = {"die": roll.kept[0], "modifier": _modifier_text(modifier), "total": roll.total}
    if which == "strength":
        if passed:
            return say(
                "strength injury save {die}{modifier}={total} vs DC {dc} passes", **values, dc=dc
            )
        return say("strength injury save {die}{modifier}={total} vs DC {dc} fails", **values, dc=dc)
    if passed:
        return say("will injury save {die}{modifier}={total} vs DC {dc} passes", **values, dc=dc)
    return say("will injury save {die}{modifier}={total} vs DC {dc} fails", **values, dc=dc)


def _save_loss_refusal(
    ability: str, *, before: int, after: int, minimum: int, maximum: int
) -> Message:
    """Project ruling HD-P6: an ability loss would take its save out of bounds."""
    if ability == "strength":
        return say(
            "That strength loss would take strength_save from {before} to {after}, "
            "outside {minimum}..{maximum}.",
            before=before,
            after=after,
            minimum=minimum,
            maximum=maximum,
        )
    return say(
        "That will loss would take will_save from {before} to {after}, "
        "outside {minimum}..{maximum}.",
        before=before,
        after=after,
        minimum=minimum,
        maximum=maximum,
    )


def _death_or_major_choice(dc: int, marks: int, level: int, cause: str) -> PendingChoice:
    """6.7, rulings HD-4 and G-3: the player chooses death or a major wound."""
    return PendingChoice(
        kind=CHOICE_DEATH_OR_MAJOR,
        prompt=say(
            "The strength injury save vs DC {dc} failed: die outright, or take a major wound?",
            dc=dc,
        ),
        options=(
            ChoiceOption(
                "major_wound",
                # The English says "marks" for one too; the count lets a language
                # say it right.
                say_plural(
                    "Take a major wound (major wound mark {mark}; at {count} marks "
                    "a failed strength injury save kills)",
                    "Take a major wound (major wound mark {mark}; at {count} marks "
                    "a failed strength injury save kills)",
                    level,
                    mark=marks + 1,
                ),
            ),
            ChoiceOption(
                "death",
                word("Die outright"),
                confirm=word("Die outright? Only the referee's undo brings the character back."),
            ),
        ),
        state={"dc": dc, "cause": cause},
        who="owner",
    )


def _saves_after_losses(
    sheet: Sheet, wound: Mapping[str, Any], new_losses: Mapping[str, int]
) -> list[Message]:
    """Project ruling HD-P6: a described wound's strength or will losses move the saves
    by what changed since its last description (in place); what each became, in words."""
    parts = []
    save_bounds = SHEET_SCHEMA["properties"]["strength_save"]
    for ability, save_field in SAVE_ABILITIES.items():
        delta = new_losses.get(ability, 0) - int(wound["ability_losses"].get(ability, 0))
        if not delta:
            continue
        before = int(sheet[save_field])
        after = before - delta
        if not save_bounds["minimum"] <= after <= save_bounds["maximum"]:
            raise RuleError(
                _save_loss_refusal(
                    ability,
                    before=before,
                    after=after,
                    minimum=save_bounds["minimum"],
                    maximum=save_bounds["maximum"],
                )
            )
        sheet[save_field] = after
        parts.append(
            say("strength save {before} -> {after}", before=before, after=after)
            if ability == "strength"
            else say("will save {before} -> {after}", before=before, after=after)
        )
    return parts


def _worsen_key(wound_id: int) -> str:
    return f"wound:{wound_id}:worsens"


def _worsen_effect(wound: Mapping[str, Any]) -> ScheduledEffect:
    """The next worsening of an untreated wound (ruling HD-7)."""
    return ScheduledEffect(
        kind=EFFECT_WORSENS,
        due_in=int(wound["worsens_every"]),
        payload={"wound": wound["id"]},
        key=_worsen_key(int(wound["id"])),
    )


def _worsening(wound: Mapping[str, Any]) -> bool:
    return wound["worsens_every"] is not None and not wound["treated"]


@lru_cache(maxsize=512)
def _reroll_odds(action: str, count: int, keep: int) -> Odds:
    """hp re-rolled as the lowest ``keep`` of ``count`` d6: the same for every sheet with
    these numbers, so computed once (up to 200 dice: bench/odds.py)."""
    die = sum_of(count, 6) if keep == count else lowest_of(count, keep, 6)
    note = (
        say("hp re-rolled with {dice}d6.", dice=count)
        if keep == count
        else say("hp re-rolled with {dice}d6, keeping the lowest {keep}.", dice=count, keep=keep)
    )
    return from_die(action, die, lambda hp: (str(hp), say("hp {hp}", hp=hp)), notes=(note,))


# The outcomes of a pair of injury saves (Odds labels), by the strength save's verdict
# ("dies" when its failure kills, ruling HD-5) and the will save's.
INJURY_LABELS: Mapping[tuple[str, str], Message] = {
    ("pass", "pass"): word("Minor wound, keeps standing"),
    ("pass", "fail"): word("Minor wound, collapses"),
    ("pass", "given_up"): word("Minor wound, collapses (gave up)"),
    ("fail", "pass"): word("Chooses death or a major wound, keeps standing"),
    ("fail", "fail"): word("Chooses death or a major wound, collapses"),
    ("fail", "given_up"): word("Chooses death or a major wound, collapses (gave up)"),
    ("dies", "pass"): word("Dies"),
    ("dies", "fail"): word("Dies"),
    ("dies", "given_up"): word("Dies"),
}

# What hit dice resolutions find (Ruleset.outcome_properties): damage and its saves,
# rests, wounds, a bypass's price, a level.
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_TEXT = {"type": "string"}
_IDS = {"type": "array", "items": {"type": "integer"}}
OUTCOME_PROPERTIES: Mapping[str, Any] = {
    "absorbed": _INT,
    "amount": _INT,
    "can_pay": _BOOL,
    "choice": _TEXT,
    "collapsed": _BOOL,
    "cost": _INT,
    "damage": _INT,
    "dc": _INT,
    "died": _BOOL,
    "fatigue": _INT,
    "hp": _INT,
    "infection_risk": _IDS,
    "level": _INT,
    "major_wound": _INT,
    "major_wound_marks": _INT,
    "major_wounds": _IDS,
    "minor_wound": _INT,
    "needs_description": _BOOL,
    "overflow": _INT,
    "paid": _INT,
    "penalties_ended": _IDS,
    "reroll": _BOOL,
    "state": _TEXT,
    "stood_up": _BOOL,
    "strength_save": _TEXT,
    "treated": _BOOL,
    "will_save": _TEXT,
    "worsened": _BOOL,
    "worsens_every": {"type": ["integer", "null"]},
    "wound": _INT,
}


class HitDice(Ruleset):
    """Chapter 6 of the hit dice text: hit points, injuries and healing."""

    key = "hit_dice"
    name = word("Hit dice")
    blurb = word("Hit points re-rolled at every rest; overflow damage forces injury saves.")
    sheet_schema: ClassVar[Mapping[str, Any]] = SHEET_SCHEMA
    creation_fields = ("level", "strength_save", "will_save")
    actions: ClassVar[tuple[ActionSpec, ...]] = ACTIONS
    # The payload is checked by effect_wound_worsens, which names what is missing.
    effect_payloads: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        EFFECT_WORSENS: {"type": "object"}
    }
    outcome_properties: ClassVar[Mapping[str, Any]] = OUTCOME_PROPERTIES
    options_schema: ClassVar[Mapping[str, Any]] = options_schema(
        {
            # 6.12: "by default" 10 hp per level or HD of the attacker (ruling HD-8, HD-P10).
            "bypass_hp_per_level": {
                "type": "integer",
                "minimum": 1,
                "maximum": 1000,
                "default": 10,
                "title": word("Bypass hp per level"),
                "description": word(
                    "Hit points a character pays per level of the attacker "
                    "to stop an effect that bypasses hit points."
                ),
            }
        }
    )

    # -- sheets -----------------------------------------------------------------
    def default_sheet(self) -> Sheet:
        return {
            "level": 1,
            "hit_dice": 1,
            "hp": 0,
            "fatigue": 0,
            "major_wound_marks": 0,
            "strength_save": 10,  # ruling HD-1
            "will_save": 10,  # ruling HD-1
            "wounds": [],
            "state": "standing",
        }

    def new_sheet(self, initial: Mapping[str, Any], dice: Dice) -> Sheet:
        """Defaults, then ``initial``; hit dice follow the level (6.2, ruling HD-1) and
        hp not given is rolled as after a rest (6.1, project ruling HD-P7)."""
        data = copy.deepcopy(dict(initial))
        sheet = self.default_sheet()
        sheet.update(data)
        if "hit_dice" not in data and isinstance(sheet["level"], int):
            sheet["hit_dice"] = sheet["level"]
        self.validate_sheet(sheet)
        if "hp" not in data:
            sheet["hp"] = dice.roll(f"{sheet['hit_dice']}d6", word("Starting hp")).total
        return sheet

    def level_up(
        self, sheet: Mapping[str, Any], dice: Dice, context: Context, *, player_character: bool
    ) -> Result:
        """A level more; a player character's hit dice follow the level (6.2, ruling HD-1),
        an NPC's stay as they are. Hit points come with the next rest (project ruling HD-P13)."""
        new = copy.deepcopy(dict(sheet))
        if new["state"] == "dead":
            raise ActionBlocked(word("The character is dead and cannot gain a level."))
        level = int(new["level"])
        if level >= 20:
            raise RuleError(word("level 20 is the highest level"))
        new["level"] = level + 1
        summary = say("rises to level {level}.", level=level + 1)
        if player_character:
            new["hit_dice"] = level + 1
            summary = say(
                "rises to level {level} with {hit_dice} hit dice.",
                level=level + 1,
                hit_dice=level + 1,
            )
        self.validate_sheet(new)
        return Result(sheet=new, summary=summary, outcome={"level": level + 1})

    def validate_sheet(
        self, sheet: Mapping[str, Any], valid: Mapping[str, Any] | None = None
    ) -> None:
        super().validate_sheet(sheet, valid)
        ids = [wound["id"] for wound in sheet["wounds"]]
        if len(ids) != len(set(ids)):
            raise RuleError(word("invalid sheet: wounds: two wounds share an id"))

    def out_of_bounds(self, sheet: Mapping[str, Any]) -> tuple[OutOfBounds, ...]:
        """Project ruling HD-P14: hp at most what the hit dice can roll (6 per die). Project
        ruling HD-P15: major wound marks at most the level (a major wound can be chosen
        only below it, HD-5)."""
        problems = []
        marks, level = int(sheet["major_wound_marks"]), int(sheet["level"])
        if marks > level:
            problems.append(
                OutOfBounds(
                    ("major_wound_marks", "level"),
                    say(
                        "{marks} major wound marks is more than the level, {level}: a character "
                        "takes a mark only below their level, and at it the next failed strength "
                        "save kills",
                        marks=marks,
                        level=level,
                    ),
                )
            )
        most = 6 * int(sheet["hit_dice"])
        if sheet["hp"] > most:
            problems.append(
                OutOfBounds(
                    ("hp", "hit_dice"),
                    # The English says "hit dice" for one die too; the count lets a language
                    # say it right.
                    say_plural(
                        "hp {hp} is above {most}, the most {count} hit dice can roll",
                        "hp {hp} is above {most}, the most {count} hit dice can roll",
                        int(sheet["hit_dice"]),
                        hp=sheet["hp"],
                        most=most,
                    ),
                )
            )
        return tuple(problems)

    def status(self, sheet: Mapping[str, Any]) -> str:
        """The sheet's state word: standing, collapsed or dead (project ruling HD-P1)."""
        state = str(sheet["state"])
        return STATE_WORDS.get(state, state)

    def unavailable(self, sheet: Mapping[str, Any], action: str) -> str | None:
        """The same refusals as the actions' own checks, said before anyone tries."""
        if sheet["state"] == "dead":
            return word("The character is dead.")
        if action == "die_of_wounds" and not any(w["kind"] == "major" for w in sheet["wounds"]):
            return NO_MAJOR_WOUND  # project ruling HD-P9
        if action == "stand_up" and sheet["state"] != "collapsed":
            return NOT_COLLAPSED  # project ruling HD-P1
        if action in ("describe_wound", "treat_wound") and not sheet["wounds"]:
            return word("The character has no wound.")
        if action == "treat_wound" and all(w.get("treated") for w in sheet["wounds"]):
            return word("Every wound is treated already.")
        return None

    def edit_values(
        self, sheet: Mapping[str, Any], action: str, chosen: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Describing a wound again starts from its description, losses and worsening."""
        if action != "describe_wound" or not sheet["wounds"]:
            return {}
        wounds = {int(w["id"]): w for w in sheet["wounds"]}
        try:
            wound = wounds[int(chosen.get("wound", 0))]
        except (KeyError, TypeError, ValueError):
            wound = sheet["wounds"][0]
        return {
            "wound": wound["id"],
            "description": wound["description"],
            "ability_losses": dict(wound["ability_losses"]),
            "worsens_every": wound["worsens_every"],
            "worsen_dc": wound["worsen_dc"],
            "until_long_rest": wound["until_long_rest"],
        }

    # -- helpers ----------------------------------------------------------------
    @staticmethod
    def _check_alive(sheet: Mapping[str, Any], doing: str) -> None:
        if sheet["state"] == "dead":
            raise ActionBlocked(DEAD_CANNOT[doing])

    @staticmethod
    def _find_wound(sheet: Mapping[str, Any], wound_id: int) -> dict[str, Any]:
        for wound in sheet["wounds"]:
            if wound["id"] == wound_id:
                result: dict[str, Any] = wound
                return result
        raise RuleError(say("The character has no wound {wound}.", wound=wound_id))

    def _bypass_cost_per_level(self, context: Context) -> int:
        """10 hp per attacker level by default; a campaign option (project ruling HD-P10)."""
        return int(self.option(context, "bypass_hp_per_level"))

    @staticmethod
    def _add_wound(
        sheet: Sheet, kind: str, description: str, cause: str, context: Context
    ) -> dict[str, Any]:
        """A new wound with the next id; ids are never reused (project ruling HD-P11)."""
        wound: dict[str, Any] = {
            "id": max((int(w["id"]) for w in sheet["wounds"]), default=0) + 1,
            "kind": kind,
            "description": description,
            "treated": False,
            "ability_losses": {},
            "worsens_every": None,
            "worsen_dc": DEFAULT_WORSEN_DC,
            "until_long_rest": kind == "minor",  # ruling HD-6: the default cut's penalty
            "expired": False,
            "cause": cause[:200],
            "received_at": max(0, context.clock),
        }
        sheet["wounds"].append(wound)
        return wound

    @staticmethod
    def _die(sheet: Sheet) -> tuple[str, ...]:
        """Mark the character dead; the keys of the worsenings to cancel."""
        sheet["state"] = "dead"
        return tuple(_worsen_key(int(w["id"])) for w in sheet["wounds"] if _worsening(w))

    def _injury_saves(
        self,
        sheet: Sheet,
        dc: int,
        *,
        give_up: bool,
        cause: str,
        minor_description: Message,
        dice: Dice,
        context: Context,
    ) -> Turn:
        """The pair of injury saves of 6.6-6.8 and 6.11 (rulings HD-4, HD-5, G-5).

        Both saves are always rolled, strength first (project ruling HD-P2).
        """
        injury = Turn(sheet, dice, context)
        strength = int(sheet["strength_save"])
        s_roll = dice.roll(
            f"1d20{_modifier_text(strength)}", say("Strength injury save vs DC {dc}", dc=dc)
        )
        s_ok = s_roll.total >= dc  # ruling G-5: no automatic success or failure
        injury.notes.append(_save_text("strength", s_roll, strength, dc, s_ok))
        if give_up:  # 6.8, ruling HD-4: failed on purpose, declared before the roll
            w_ok = False
            injury.notes.append(word("gives up, failing the will injury save on purpose"))
        else:
            will = int(sheet["will_save"])
            w_roll = dice.roll(
                f"1d20{_modifier_text(will)}", say("Will injury save vs DC {dc}", dc=dc)
            )
            w_ok = w_roll.total >= dc
            injury.notes.append(_save_text("will", w_roll, will, dc, w_ok))
        injury.outcome.update(
            {
                "dc": dc,
                "strength_save": "pass" if s_ok else "fail",
                "will_save": "given_up" if give_up else ("pass" if w_ok else "fail"),
            }
        )

        marks, level = int(sheet["major_wound_marks"]), int(sheet["level"])
        if s_ok:  # 6.7: a minor wound
            # The sheet keeps the English description (data); the summary says the message.
            wound = self._add_wound(sheet, "minor", str(minor_description), cause, context)
            injury.notes.append(
                say(
                    "minor wound {wound}: {description}",
                    wound=wound["id"],
                    description=minor_description,
                )
            )
            injury.outcome["minor_wound"] = wound["id"]
        elif marks >= level:  # 6.11, ruling HD-5: no choice, death
            injury.cancels.extend(self._die(sheet))
            injury.notes.append(
                say_plural(
                    "with {count} major wound mark at level {level} "
                    "the failed strength save kills outright",
                    "with {count} major wound marks at level {level} "
                    "the failed strength save kills outright",
                    marks,
                    level=level,
                )
            )
            injury.outcome["died"] = True
        else:  # 6.7, rulings HD-4 and G-3: the player chooses death or a major wound
            injury.pending = _death_or_major_choice(dc, marks, level, cause)
            injury.notes.append(word("the player must choose death or a major wound"))
            injury.outcome["choice"] = CHOICE_DEATH_OR_MAJOR

        if not w_ok and sheet["state"] == "standing":  # 6.8
            sheet["state"] = "collapsed"
            injury.notes.append(word("collapses"))
            injury.outcome["collapsed"] = True
        elif sheet["state"] == "collapsed":  # project ruling HD-P1
            injury.notes.append(word("stays collapsed"))
        return injury

    # -- actions ----------------------------------------------------------------
    def action_damage(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """6.6-6.8, rulings HD-4 and HD-5."""
        self._check_alive(sheet, "take damage")
        amount = int(params["amount"])
        give_up = bool(params.get("give_up", False))
        hp = int(sheet["hp"])
        absorbed = min(hp, amount)
        overflow = amount - absorbed
        sheet["hp"] = hp - absorbed
        taken = {"amount": amount, "absorbed": absorbed, "hp": hp, "after": sheet["hp"]}
        outcome: dict[str, Any] = {
            "amount": amount,
            "absorbed": absorbed,
            "overflow": overflow,
            "hp": sheet["hp"],
        }
        if overflow == 0:
            parts = [
                say(
                    "takes {amount} damage: {absorbed} absorbed by hp ({hp} -> {after}), "
                    "no overflow and no injury",
                    **taken,
                )
            ]
            if give_up:  # project ruling HD-P3
                parts.append(word("there is no injury save to give up on"))
            return Result(sheet=sheet, summary=sentence(parts), outcome=outcome)
        dc = INJURY_DC_BASE + overflow  # 6.6, ruling HD-4
        injury = self._injury_saves(
            sheet,
            dc,
            give_up=give_up,
            cause=str(
                say("{amount} damage, overflow {overflow}", amount=amount, overflow=overflow)
            ),
            minor_description=DEFAULT_MINOR_WOUND_SAID,
            dice=dice,
            context=context,
        )
        outcome.update(injury.outcome)
        outcome["state"] = sheet["state"]
        return Result(
            sheet=sheet,
            summary=sentence(
                [
                    say(
                        "takes {amount} damage: {absorbed} absorbed by hp ({hp} -> {after}), "
                        "overflow {overflow}",
                        **taken,
                        overflow=overflow,
                    ),
                    *injury.notes,
                ]
            ),
            pending_choice=injury.pending,
            cancel_effects=tuple(injury.cancels),
            outcome=outcome,
        )

    def action_bypass(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """6.12, ruling HD-8: pay 10 hp per attacker level (if hp covers it) or take saves."""
        self._check_alive(sheet, "be hurt")
        damage = int(params["damage"])
        attacker_level = int(params["attacker_level"])
        cost = self._bypass_cost_per_level(context) * attacker_level
        dc = INJURY_DC_BASE + damage
        hp = int(sheet["hp"])
        can_pay = hp >= cost
        options: list[ChoiceOption] = []
        if can_pay:
            options.append(
                ChoiceOption(
                    "pay",
                    say(
                        "Pay {cost} hp (hp {hp} -> {after}) and take no injury",
                        cost=cost,
                        hp=hp,
                        after=hp - cost,
                    ),
                )
            )
        options += [
            ChoiceOption("injury", say("Take the injury saves at DC {dc}", dc=dc)),
            ChoiceOption(
                "injury_give_up",
                say("Take the injury saves at DC {dc}, giving up on the will save", dc=dc),
            ),
        ]
        asked = {"damage": damage, "level": attacker_level, "cost": cost, "dc": dc}
        choice = PendingChoice(
            kind=CHOICE_BYPASS,
            prompt=say(
                "An effect bypasses hit points ({damage} damage, attacker level/HD {level}): "
                "pay {cost} hp or take injury saves at DC {dc}?",
                **asked,
            )
            if can_pay
            else say(
                "An effect bypasses hit points ({damage} damage, attacker level/HD {level}): "
                "hp {hp} cannot pay {cost}; take injury saves at DC {dc}?",
                **asked,
                hp=hp,
            ),
            options=tuple(options),
            state={"damage": damage, "attacker_level": attacker_level, "cost": cost, "dc": dc},
            who="owner",
        )
        if can_pay:
            tail = say(
                "the player chooses to pay {cost} hp or take injury saves at DC {dc}",
                cost=cost,
                dc=dc,
            )
        else:
            tail = say(
                "hp {hp} cannot cover the {cost} hp cost, so the player only chooses how to "
                "take the injury saves at DC {dc}",
                hp=hp,
                cost=cost,
                dc=dc,
            )
        summary = sentence(
            [
                say(
                    "an effect bypasses hit points: {damage} damage from an attacker of "
                    "level/HD {level}",
                    damage=damage,
                    level=attacker_level,
                ),
                tail,
            ]
        )
        return Result(
            sheet=sheet,
            summary=summary,
            pending_choice=choice,
            outcome={"damage": damage, "cost": cost, "dc": dc, "can_pay": can_pay},
        )

    def action_short_rest(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """6.4, 6.5, ruling HD-2; a collapsed character gets up (project ruling HD-P1)."""
        self._check_alive(sheet, "rest")
        parts: list[str] = []
        outcome: dict[str, Any] = {"reroll": bool(params["reroll"])}
        hp, hd, fatigue = int(sheet["hp"]), int(sheet["hit_dice"]), int(sheet["fatigue"])
        if params["reroll"]:
            if fatigue >= SHEET_SCHEMA["properties"]["fatigue"]["maximum"]:
                raise RuleError(
                    say("Fatigue is at its maximum of {fatigue}: sleep first.", fatigue=fatigue)
                )
            expression = f"{hd + fatigue}d6kl{hd}" if fatigue else f"{hd}d6"
            roll = dice.roll(
                expression,
                say("Short rest hp re-roll ({hd} HD, {fatigue} fatigue)", hd=hd, fatigue=fatigue),
            )
            sheet["hp"] = roll.total  # replaces hp even when lower (6.4)
            sheet["fatigue"] = fatigue + 1  # 6.5
            rolled = {"expression": expression, "total": roll.total, "hp": hp}
            if fatigue:
                parts.append(
                    say(
                        "short rest: hp re-rolled {expression} = {total} (rolled {dice}, "
                        "kept the lowest {kept}), hp {hp} -> {total}",
                        **rolled,
                        dice=str(list(roll.dice)),
                        kept=str(list(roll.kept)),
                    )
                )
            else:
                parts.append(
                    say(
                        "short rest: hp re-rolled {expression} = {total}, hp {hp} -> {total}",
                        **rolled,
                    )
                )
            parts.append(say("fatigue {before} -> {after}", before=fatigue, after=fatigue + 1))
        else:
            parts.append(
                say(
                    "short rest without re-rolling: hp stays {hp}, fatigue stays {fatigue}",
                    hp=hp,
                    fatigue=fatigue,
                )
            )
        if sheet["state"] == "collapsed":
            sheet["state"] = "standing"
            parts.append(STANDS_UP)
            outcome["stood_up"] = True
        outcome.update({"hp": sheet["hp"], "fatigue": sheet["fatigue"]})
        return Result(
            sheet=sheet,
            summary=sentence(parts),
            outcome=outcome,
            elapsed_minutes=SHORT_REST_MINUTES,
        )

    def action_long_rest(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """6.5, rulings HD-3 and HD-6; a collapsed character gets up (HD-P1)."""
        self._check_alive(sheet, "rest")
        hp, hd, fatigue = int(sheet["hp"]), int(sheet["hit_dice"]), int(sheet["fatigue"])
        sheet["fatigue"] = 0  # ruling HD-3: first the reset, then the re-roll
        roll = dice.roll(f"{hd}d6", say("Night's sleep hp re-roll ({hd} HD)", hd=hd))
        sheet["hp"] = roll.total
        parts = [
            say("night's sleep: fatigue {fatigue} -> 0", fatigue=fatigue),
            say(
                "hp re-rolled {hd}d6 = {total}, hp {hp} -> {total}", hd=hd, total=roll.total, hp=hp
            ),
        ]
        ended = []
        for wound in sheet["wounds"]:
            if wound["until_long_rest"] and not wound["expired"]:
                wound["expired"] = True
                ended.append(wound["id"])
        if ended:
            parts.append(
                say_plural(
                    "the penalties 'until the next long rest' of wound {wounds} end",
                    "the penalties 'until the next long rest' of wounds {wounds} end",
                    len(ended),
                    wounds=list(ended),
                )
            )
        at_risk = [w for w in sheet["wounds"] if w["kind"] == "minor" and not w["treated"]]
        if at_risk:
            # The English says "wounds" for one too; the count lets a language say it right.
            parts.append(
                say_plural(
                    "untreated minor wounds at risk of infection: {wounds}",
                    "untreated minor wounds at risk of infection: {wounds}",
                    len(at_risk),
                    wounds=[
                        say(
                            "wound {wound} ({description})",
                            wound=w["id"],
                            description=w["description"],
                        )
                        for w in at_risk
                    ],
                )
            )
        outcome: dict[str, Any] = {
            "hp": sheet["hp"],
            "fatigue": 0,
            "penalties_ended": ended,
            "infection_risk": [w["id"] for w in at_risk],
        }
        if sheet["state"] == "collapsed":
            sheet["state"] = "standing"
            parts.append(STANDS_UP)
            outcome["stood_up"] = True
        return Result(
            sheet=sheet,
            summary=sentence(parts),
            outcome=outcome,
            elapsed_minutes=LONG_REST_MINUTES,
        )

    def action_treat_wound(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Rulings HD-6 (no infection risk) and HD-7 (no more worsening); project ruling HD-P8."""
        self._check_alive(sheet, "have a wound treated")
        wound = self._find_wound(sheet, int(params["wound"]))
        if wound["treated"]:
            raise RuleError(say("Wound {wound} is already treated.", wound=wound["id"]))
        cancel: tuple[str, ...] = ()
        parts = [
            say(
                "wound {wound} ({description}) is treated",
                wound=wound["id"],
                description=wound["description"],
            )
        ]
        if _worsening(wound):
            cancel = (_worsen_key(int(wound["id"])),)
            parts.append(word("it stops worsening"))
        if wound["kind"] == "minor":
            parts.append(word("it is no longer at risk of infection"))
        wound["treated"] = True
        return Result(
            sheet=sheet,
            summary=sentence(parts),
            cancel_effects=cancel,
            outcome={"wound": wound["id"], "treated": True},
        )

    def action_describe_wound(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """6.9, 6.10, rulings HD-6 and HD-7; project rulings HD-P5 and HD-P6."""
        self._check_alive(sheet, "have a wound described")
        wound = self._find_wound(sheet, int(params["wound"]))
        wound_id = int(wound["id"])
        new_losses: dict[str, int] = dict(params.get("ability_losses", {}))
        described = {"wound": wound_id, "description": params["description"]}
        parts = [
            say("wound {wound} (minor) is now: {description}", **described)
            if wound["kind"] == "minor"
            else say("wound {wound} (major) is now: {description}", **described)
        ]
        if new_losses:
            # each loss as the referee named the ability: "-2 strength"
            losses = [f"-{points} {name}" for name, points in new_losses.items()]
            parts.append(say("ability losses {losses}", losses=losses))
        parts += _saves_after_losses(sheet, wound, new_losses)  # project ruling HD-P6
        old_every = wound["worsens_every"]
        new_every = params.get("worsens_every")
        wound.update(
            {
                "description": params["description"],
                "ability_losses": new_losses,
                "worsens_every": new_every,
                "worsen_dc": int(params.get("worsen_dc", DEFAULT_WORSEN_DC)),
                "until_long_rest": bool(params.get("until_long_rest", wound["kind"] == "minor")),
            }
        )
        effects: tuple[ScheduledEffect, ...] = ()
        cancel: tuple[str, ...] = ()
        if new_every is not None:
            # The English says "minutes" for one too; the count lets a language say it right.
            parts.append(
                say_plural(
                    "it worsens every {count} minutes unless treated (injury saves at DC {dc})",
                    "it worsens every {count} minutes unless treated (injury saves at DC {dc})",
                    int(new_every),
                    dc=wound["worsen_dc"],
                )
            )
        if not wound["treated"] and new_every != old_every:  # project ruling HD-P5
            if old_every is not None:
                cancel = (_worsen_key(wound_id),)
            if new_every is not None:
                effects = (_worsen_effect(wound),)  # ruling HD-7
                parts.append(
                    say_plural(
                        "first worsening in {count} minutes",
                        "first worsening in {count} minutes",
                        int(new_every),
                    )
                )
            else:
                parts.append(word("it no longer worsens"))
        elif wound["treated"] and new_every is not None:
            parts.append(word("it is treated, so it does not worsen"))
        return Result(
            sheet=sheet,
            summary=sentence(parts),
            effects=effects,
            cancel_effects=cancel,
            outcome={"wound": wound_id, "worsens_every": new_every},
        )

    def action_die_of_wounds(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """6.10, ruling HD-9; only with a major wound (project ruling HD-P9)."""
        self._check_alive(sheet, "die again")
        majors = [int(w["id"]) for w in sheet["wounds"] if w["kind"] == "major"]
        if not majors:
            raise RuleError(NO_MAJOR_WOUND)
        cancel = self._die(sheet)
        return Result(
            sheet=sheet,
            summary=sentence(
                [
                    say_plural(
                        "dies of their major wound ({wounds}), as the player chose",
                        "dies of their major wounds ({wounds}), as the player chose",
                        len(majors),
                        wounds=majors,
                    )
                ]
            ),
            cancel_effects=cancel,
            outcome={"died": True, "major_wounds": majors},
        )

    def action_stand_up(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """Project ruling HD-P1: the referee may end a collapse before a rest."""
        self._check_alive(sheet, "stand up")
        if sheet["state"] != "collapsed":
            raise RuleError(NOT_COLLAPSED)
        sheet["state"] = "standing"
        return Result(
            sheet=sheet,
            summary=word("Stands up again, as the referee rules."),
            outcome={"state": "standing"},
        )

    # -- choices ----------------------------------------------------------------
    # -- odds (exact, before the roll) -------------------------------------------
    def _injury_odds(
        self,
        sheet: Mapping[str, Any],
        action: str,
        dc: int,
        *,
        give_up: bool,
        notes: list[Message],
    ) -> Odds:
        """The pair of injury saves at ``dc`` (rulings HD-4, HD-5, G-5), as four outcomes.

        Keys give each save's verdict, strength first: ``strength:pass,will:fail``.
        """
        strength = chance_at_least(d(20) + int(sheet["strength_save"]), dc)
        will = Fraction(0) if give_up else chance_at_least(d(20) + int(sheet["will_save"]), dc)
        will_verdicts = (
            [("given_up", Fraction(1))] if give_up else [("pass", will), ("fail", 1 - will)]
        )
        doomed = int(sheet["major_wound_marks"]) >= int(sheet["level"])  # ruling HD-5
        weighted = []
        for s_key, s_chance in (("pass", strength), ("fail", 1 - strength)):
            for w_key, w_chance in will_verdicts:
                label = INJURY_LABELS["dies" if doomed and s_key == "fail" else s_key, w_key]
                weighted.append((f"strength:{s_key},will:{w_key}", label, s_chance * w_chance))
        notes.append(say("Both injury saves are against DC {dc}.", dc=dc))
        return grouped(action, weighted, notes=notes)

    def odds_damage(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        self._check_alive(sheet, "take damage")
        amount, hp = int(params["amount"]), int(sheet["hp"])
        if amount <= hp:
            return certain(
                "damage",
                say(
                    "Hit points absorb it all ({hp} -> {after}): no injury save.",
                    hp=hp,
                    after=hp - amount,
                ),
                key="no_injury",
            )
        overflow = amount - hp
        notes = [
            say(
                "{hp} hp absorb {hp} of the {amount} damage; {overflow} overflow.",
                hp=hp,
                amount=amount,
                overflow=overflow,
            )
        ]
        give_up = bool(params.get("give_up", False))
        return self._injury_odds(
            sheet, "damage", INJURY_DC_BASE + overflow, give_up=give_up, notes=notes
        )

    def odds_bypass(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        self._check_alive(sheet, "be hurt")
        cost = self._bypass_cost_per_level(context) * int(params["attacker_level"])
        notes = [
            say(
                "These are the odds if the character takes the injury saves; paying {cost} hp "
                "instead rolls nothing.",
                cost=cost,
            )
            if int(sheet["hp"]) >= cost
            else say(
                "Paying {cost} hp is not possible with {hp} hp: the saves are taken.",
                cost=cost,
                hp=sheet["hp"],
            )
        ]
        dc = INJURY_DC_BASE + int(params["damage"])
        return self._injury_odds(sheet, "bypass", dc, give_up=False, notes=notes)

    def odds_short_rest(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        self._check_alive(sheet, "rest")
        if not params["reroll"]:
            return certain(
                "short_rest",
                say(
                    "hp stays {hp}, fatigue stays {fatigue}.",
                    hp=sheet["hp"],
                    fatigue=sheet["fatigue"],
                ),
            )
        hd, fatigue = int(sheet["hit_dice"]), int(sheet["fatigue"])
        return _reroll_odds("short_rest", hd + fatigue, hd)  # ruling HD-2

    def odds_long_rest(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        self._check_alive(sheet, "rest")
        hd = int(sheet["hit_dice"])
        return _reroll_odds("long_rest", hd, hd)  # ruling HD-3: fatigue resets first

    def choice_death_or_major_wound(
        self, sheet: Sheet, choice: PendingChoice, option: str, dice: Dice, context: Context
    ) -> Result:
        """Answer a death-or-major-wound choice (6.7)."""
        self._check_alive(sheet, "answer a choice")
        return self._choose_death_or_major(sheet, option, dict(choice.state), dice, context)

    def choice_bypass(
        self, sheet: Sheet, choice: PendingChoice, option: str, dice: Dice, context: Context
    ) -> Result:
        """Answer a bypass choice (HD-8)."""
        self._check_alive(sheet, "answer a choice")
        return self._choose_bypass(sheet, option, dict(choice.state), dice, context)

    def _choose_death_or_major(
        self, sheet: Sheet, option: str, state: dict[str, Any], dice: Dice, context: Context
    ) -> Result:
        if option == "death":
            cancel = self._die(sheet)
            return Result(
                sheet=sheet,
                summary=word(
                    "Chooses death: the character dies of the failed strength injury save."
                ),
                cancel_effects=cancel,
                outcome={"died": True},
            )
        marks, level = int(sheet["major_wound_marks"]), int(sheet["level"])
        if marks >= level:  # rulings HD-5, HD-P12: the marks reached level meanwhile
            # The English says "marks" for one too; the count lets a language say it right.
            raise RuleError(
                say_plural(
                    "With {count} major wound marks at level {level} no further major wound "
                    "can be chosen; only death remains.",
                    "With {count} major wound marks at level {level} no further major wound "
                    "can be chosen; only death remains.",
                    marks,
                    level=level,
                )
            )
        cause = str(state.get("cause", "failed strength injury save"))
        wound = self._add_wound(sheet, "major", MAJOR_WOUND_PLACEHOLDER, cause, context)
        sheet["major_wound_marks"] = marks + 1  # 6.11
        return Result(
            sheet=sheet,
            summary=sentence(
                [
                    say(
                        "chooses a major wound: wound {wound}, major wound mark {mark} "
                        "at level {level}",
                        wound=wound["id"],
                        mark=marks + 1,
                        level=level,
                    ),
                    word("the referee describes it"),
                ]
            ),
            outcome={
                "major_wound": wound["id"],
                "major_wound_marks": marks + 1,
                "needs_description": True,
            },
        )

    def _choose_bypass(
        self, sheet: Sheet, option: str, state: dict[str, Any], dice: Dice, context: Context
    ) -> Result:
        damage, cost, dc = int(state["damage"]), int(state["cost"]), int(state["dc"])
        hp = int(sheet["hp"])
        if option == "pay":
            if hp < cost:  # project ruling HD-P12
                raise RuleError(
                    say("hp {hp} no longer covers the {cost} hp cost.", hp=hp, cost=cost)
                )
            sheet["hp"] = hp - cost
            return Result(
                sheet=sheet,
                summary=say(
                    "Pays {cost} hp to stop the effect (hp {hp} -> {after}); no injury.",
                    cost=cost,
                    hp=hp,
                    after=hp - cost,
                ),
                outcome={"paid": cost, "hp": sheet["hp"]},
            )
        injury = self._injury_saves(
            sheet,
            dc,
            give_up=option == "injury_give_up",
            cause=str(say("effect bypassing hit points, {damage} damage", damage=damage)),
            minor_description=DEFAULT_MINOR_WOUND_SAID,
            dice=dice,
            context=context,
        )
        outcome = {"paid": 0, **injury.outcome, "state": sheet["state"]}
        return Result(
            sheet=sheet,
            summary=sentence(
                [
                    say("takes the injury saves at DC {dc}: {save}", dc=dc, save=injury.notes[0]),
                    *injury.notes[1:],
                ]
            ),
            pending_choice=injury.pending,
            cancel_effects=tuple(injury.cancels),
            outcome=outcome,
        )

    # -- scheduled effects --------------------------------------------------------
    def effect_wound_worsens(
        self, new_sheet: Sheet, payload: Params, dice: Dice, context: Context
    ) -> Result:
        """``wound_worsens``: a new pair of injury saves (ruling HD-7, project ruling HD-P4)."""
        wound_id = payload.get("wound")
        if isinstance(wound_id, bool) or not isinstance(wound_id, int):
            raise RuleError(word("A wound_worsens effect needs the wound's id."))
        wound = self._find_wound(new_sheet, wound_id)
        quiet = {"wound": wound_id, "worsened": False}
        if new_sheet["state"] == "dead":
            return Result(
                sheet=new_sheet,
                summary=say(
                    "Wound {wound} does not worsen: the character is dead.", wound=wound_id
                ),
                outcome=quiet,
            )
        if wound["treated"]:
            return Result(
                sheet=new_sheet,
                summary=say("Wound {wound} was treated and no longer worsens.", wound=wound_id),
                outcome=quiet,
            )
        if wound["worsens_every"] is None:
            return Result(
                sheet=new_sheet,
                summary=say("Wound {wound} no longer worsens.", wound=wound_id),
                outcome=quiet,
            )
        injury = self._injury_saves(
            new_sheet,
            int(wound["worsen_dc"]),
            give_up=False,
            cause=str(say("wound {wound} worsening", wound=wound_id)),
            minor_description=say(
                "Wound {wound} worsened: -2 to heavy physical tasks until the next long rest",
                wound=wound_id,
            ),
            dice=dice,
            context=context,
        )
        effects: tuple[ScheduledEffect, ...] = ()
        if new_sheet["state"] != "dead":
            effects = (_worsen_effect(wound),)
            # The English says "minutes" for one too; the count lets a language say it right.
            injury.notes.append(
                say_plural(
                    "it worsens again in {count} minutes unless treated",
                    "it worsens again in {count} minutes unless treated",
                    int(wound["worsens_every"]),
                )
            )
        result = Result(
            sheet=new_sheet,
            summary=sentence(
                [
                    say("wound {wound} worsens: {save}", wound=wound_id, save=injury.notes[0]),
                    *injury.notes[1:],
                ]
            ),
            pending_choice=injury.pending,
            effects=effects,
            cancel_effects=tuple(injury.cancels),
            outcome={
                "wound": wound_id,
                "worsened": True,
                **injury.outcome,
                "state": new_sheet["state"],
            },
        )
        self.validate_sheet(result.sheet)
        return result
