"""Old school: ability loss, wounds, aging, disease, privation and healing.

Rulings OS-1..OS-10 in ``RULINGS.md`` settle what the rule text leaves open, and the
project rulings OS-P1... in ``docs/rulesets/old_school.md`` settle the rest. Both are
cited beside the code that applies them.

Every periodic rule is a scheduled effect on the campaign clock (ruling G-1): each
carries a token in its payload that must match the sheet, so an effect that no longer
applies (the character is dead, awake, fed, cured...) or was already applied does
nothing but say so, and chains (disease saves, daily checks, birthdays) schedule their
next link only when they apply.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar

from rules.engine.dice import Dice, DiceError
from rules.engine.interface import (
    ActionBlocked,
    ActionSpec,
    Context,
    OutOfBounds,
    Params,
    Result,
    RuleError,
    Ruleset,
    ScheduledEffect,
    Sheet,
    options_schema,
    params_schema,
)
from rules.engine.odds import Odds
from rules.engine.rulesets.old_school import data, odds
from rules.engine.rulesets.old_school.data import (
    ABILITIES,
    ABILITY_TITLES,
    ABILITY_WORDS,
    AGING,
    CRITICAL_TABLE_SCHEMA,
    DAY,
    DEATH,
    DISEASE_TABLE_SCHEMA,
    HOUR,
    SAVE_CATEGORIES,
    SAVE_WORDS,
    SUPPLY_WORDS,
    TURN,
    YEAR,
    modifier,
)
from rules.engine.text import clock_text
from rules.engine.turn import Turn
from rules.engine.validation import validate
from rules.engine.words import Message, say, say_plural, word

# Sheet fields the engine keeps itself: set by actions and effects, never at creation.
MANAGED_FIELDS: tuple[str, ...] = (
    "birthdays",
    "state",
    "conditions",
    "privation",
    "sleep",
    "rest",
    "diseases",
    "modifiers",
    "penalties",
    "critical_injuries",
    "wounds_withheld",
    "level_dice",
)

OPTIONS_SCHEMA: dict[str, Any] = options_schema(
    {
        "hostile_place": {  # ruling OS-10
            "type": "boolean",
            "default": False,
            "title": word("Hostile place"),
            "description": word(
                "The party is in a dungeon or a place as hostile: rests recover nothing."
            ),
        },
        "drunk_hours": {  # project ruling OS-P6
            "type": "integer",
            "minimum": 1,
            "maximum": 72,
            "default": 4,
            "title": word("Hours drunk"),
            "description": word("How long drunkenness lasts when the referee does not say."),
        },
        "track_sleep": {  # project ruling OS-P8
            "type": "boolean",
            "default": True,
            "title": word("Track sleep"),
            "description": word(
                "Missed sleep adds deprivation; off, the daily sleep window still passes but "
                "adds none."
            ),
        },
    }
)

_DISEASE_NAME: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 100,
    "description": word("The name of a disease in the campaign's disease table."),
}
_MODIFIER: dict[str, Any] = {
    "type": "integer",
    "minimum": -20,
    "maximum": 20,
    "default": 0,
    "description": word("The referee's situational modifier to the save."),
}


def _supplies_schema() -> dict[str, Any]:
    schema = params_schema(
        {
            "food": {"type": "boolean", "description": word("Unticked: food is lacking (OS-7).")},
            "water": {"type": "boolean", "description": word("Unticked: water is lacking (OS-7).")},
        }
    )
    schema["minProperties"] = 1
    return schema


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(
        "damage",
        word("Take damage"),
        params_schema({"amount": {"type": "integer", "minimum": 1, "maximum": 1000}}, ("amount",)),
        who="referee",
        description=word(
            "Wounds drop; falling below 0 means a critical injury roll, and once below 0 "
            "any further damage kills (OS-4)."
        ),
    ),
    ActionSpec(
        "heal",
        word("Heal wounds"),
        params_schema({"amount": {"type": "integer", "minimum": 1, "maximum": 1000}}, ("amount",)),
        who="referee",
        description=word(
            "Magical or other healing the referee grants, never above maximum (OS-10)."
        ),
    ),
    ActionSpec(
        "ability_loss",
        word("Lose ability points"),
        params_schema(
            {
                "ability": {"enum": list(ABILITIES)},
                "amount": {"type": "integer", "minimum": 1, "maximum": 18},
                "permanent": {"type": "boolean", "default": False},
            },
            ("ability", "amount"),
        ),
        who="referee",
        description=word(
            "Temporary loss lowers the current score, permanent the maximum too (OS-1)."
        ),
    ),
    ActionSpec(
        "save",
        word("Saving throw"),
        params_schema(
            {
                "category": {"enum": list(SAVE_CATEGORIES)},
                "modifier": _MODIFIER,
                "reason": {
                    "type": "string",
                    "maxLength": 100,
                    "description": word("What the save is for, shown in the roll's label."),
                },
            },
            ("category",),
        ),
        description=word("d20 + modifiers against the sheet's target (OS-3, G-5)."),
    ),
    ActionSpec(
        "expose_disease",
        word("Expose to a disease"),
        params_schema({"disease": _DISEASE_NAME, "modifier": _MODIFIER}, ("disease",)),
        who="referee",
        description=word(
            "The referee's hidden save vs poison; a failure contracts it (OS-6, G-4)."
        ),
    ),
    ActionSpec(
        "contract_disease",
        word("Contract a disease"),
        params_schema(
            {
                "disease": _DISEASE_NAME,
                "hidden": {
                    "type": "boolean",
                    "default": True,
                    "description": word("Keep it from the player until its first save (G-4)."),
                },
            },
            ("disease",),
        ),
        who="referee",
        description=word("The character catches the disease with no exposure save (OS-6)."),
    ),
    ActionSpec(
        "cure_disease",
        word("Cure a disease"),
        params_schema({"disease": _DISEASE_NAME}, ("disease",)),
        who="referee",
        description=word("Ends an active disease: its remaining saves are cancelled."),
    ),
    ActionSpec(
        "poison",
        word("Poison or drug"),
        params_schema(
            {
                "save": {
                    "type": "boolean",
                    "default": True,
                    "description": word("No save when a drug is taken on purpose."),
                },
                "modifier": _MODIFIER,
                "effect": data.EFFECT_SCHEMA,
            }
        ),
        who="referee",
        description=word(
            "Save vs poison or suffer the effect, death unless the referee says otherwise."
        ),
    ),
    ActionSpec(
        "drink",
        word("Drink to excess"),
        params_schema(
            {
                "hours": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 72,
                    "description": word(
                        "Hours until sober; referee only (default: campaign option)."
                    ),
                }
            }
        ),
        description=word("Drunk: -2 Dexterity and -2 to all saves until sober (OS-9)."),
    ),
    ActionSpec(
        "fall",
        word("Fall"),
        params_schema({"feet": {"type": "integer", "minimum": 0, "maximum": 10000}}, ("feet",)),
        who="referee",
        description=word("1d6 per full 10 feet, at most 20d6 (OS-9)."),
    ),
    ActionSpec(
        "search",
        word("Search for traps and secret mechanisms"),
        params_schema(
            {
                "squares": {"type": "integer", "minimum": 1, "maximum": 100},
                "chance": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 6,
                    "description": word("In 6; referee only (default 1)."),
                },
            },
            ("squares",),
        ),
        description=word("1 in 6; one turn (10 minutes) per 10-foot square searched (OS-9)."),
    ),
    ActionSpec(
        "night_rest",
        word("Night's rest"),
        params_schema({}),
        description=word("1 wound back at half wounds or more; counts as a proper sleep (OS-10)."),
    ),
    ActionSpec(
        "day_rest",
        word("Day of rest"),
        params_schema({"bed": {"type": "boolean", "default": False}}),
        description=word("1d3 wounds (1 below half), +1 in a bed, ability points back (OS-10)."),
    ),
    ActionSpec(
        "set_supplies",
        word("Food and water"),
        _supplies_schema(),
        who="referee",
        description=word(
            "Mark food or water lacking or restored; daily checks while lacking (OS-7)."
        ),
    ),
    ActionSpec(
        "sleep",
        word("Sleep"),
        params_schema({"hours": {"type": "integer", "minimum": 1, "maximum": 24}}, ("hours",)),
        description=word("Hours slept in the current 24-hour window (OS-8)."),
    ),
    ActionSpec(
        "go_without_sleep",
        word("Go without sleep"),
        params_schema(
            {
                "reason": {
                    "enum": list(data.WITHOUT_SLEEP_REASONS),
                    "default": "on_watch",
                    "description": word(
                        "On watch all night, a forced march, or kept awake otherwise."
                    ),
                },
                "nights": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": data.MAX_NIGHTS_WITHOUT_SLEEP,
                    "default": 1,
                    "description": word("How many nights, this one first; 0 clears the mark."),
                },
            }
        ),
        who="referee",
        description=word(
            "Characters sleep each night unless marked here; only marked nights can "
            "bring sleep deprivation (OS-8, OS-P17)."
        ),
    ),
    ActionSpec(
        "set_resting",
        word("Resting or not"),
        params_schema({"resting": {"type": "boolean"}}, ("resting",)),
        description=word("Whether the character is at rest now (disease saves, OS-6)."),
    ),
    ActionSpec(
        "magical_aging",
        word("Magical aging"),
        params_schema({"years": {"type": "integer", "minimum": 1, "maximum": 1000}}, ("years",)),
        who="referee",
        description=word("Ages the character at once, with every aging save due (OS-5)."),
    ),
)


CRITICAL_INJURY = data.CRITICAL_INJURY
POISON = data.POISON
NO_EFFECT = word("the poison has no effect")
SECRET_NOTE = word("the referee makes a secret note on the character's health")
HOSTILE_PLACE = word("no recovery in a hostile place (OS-10)")
NOT_WOUNDED = word("is not wounded")
DISEASE_TABLE = word("disease table")
# Project ruling OS-P10: a day without food or water (starving, thirsty) is no day of rest.
NO_DAY_OF_REST: dict[tuple[bool, bool], Message] = {
    (True, False): word("without food it is no day of rest: no recovery"),
    (False, True): word("without water it is no day of rest: no recovery"),
    (True, True): word("without food and water it is no day of rest: no recovery"),
}


def ability_change(ability: str, before: int, after: int) -> Message:
    """ "Strength 10 -> 9": a score's change in a summary."""
    return say(
        "{ability} {before} -> {after}", ability=ABILITY_TITLES[ability], before=before, after=after
    )


def save_penalty(sheet: Mapping[str, Any]) -> int:
    """Sleep deprivation (OS-8) and drunkenness (OS-9) on every save."""
    conditions = sheet["conditions"]
    drunk = data.DRUNK_SAVES if conditions["drunk"] else 0
    return drunk - int(conditions["sleep_deprived_days"])


def refresh_derived(sheet: Sheet) -> None:
    """Recompute the read-only helpers the sheet shows: modifiers and penalties."""
    conditions = sheet["conditions"]
    mods = {}
    for ability in ABILITIES:
        score = int(sheet[ability])
        if ability == "dexterity" and conditions["drunk"]:
            score = max(0, score + data.DRUNK_DEXTERITY)  # ruling OS-9
        mods[ability] = modifier(score)
    sheet["modifiers"] = mods
    days = int(conditions["sleep_deprived_days"])
    sheet["penalties"] = {"rolls": -days, "percentile": -10 * days, "saves": save_penalty(sheet)}
    privation = sheet["privation"]
    deficit = int(sheet["max_constitution"]) - int(sheet["constitution"])
    privation["constitution_lost"] = max(0, min(int(privation["constitution_lost"]), deficit))


def pending_keys(sheet: Mapping[str, Any]) -> list[str]:
    """Keys of every effect the sheet is waiting for (cancelled when the character dies)."""
    conditions = sheet["conditions"]
    privation = sheet["privation"]
    keys: list[str] = []
    if conditions["unconscious"] and conditions["unconscious_until"] is not None:
        keys.append(f"wake_up:{conditions['unconscious_until']}")
    if conditions["drunk"] and conditions["drunk_until"] is not None:
        keys.append(f"sober_up:{conditions['drunk_until']}")
    if conditions["starving"]:
        keys.append(
            f"starvation:{privation['food_lacking_since']}:{privation['starvation_checks'] + 1}"
        )
    if conditions["thirsty"]:
        keys.append(f"thirst:{privation['water_lacking_since']}:{privation['thirst_checks'] + 1}")
    for entry in sheet["diseases"]:
        keys.append(f"disease:{entry['name']}:{entry['saves_made'] + 1}")
    keys.append(f"sleep_window:{sheet['sleep']['windows'] + 1}")
    keys.append(f"birthday:{sheet['birthdays'] + 1}")
    return keys


# Each ability with its maximum's field, named once (every new sheet is checked).
_ABILITY_MAXIMA = tuple((ability, f"max_{ability}") for ability in ABILITIES)


class _Turn(Turn):
    """The scratchpad of one resolution, with the old school's conditions and saves."""

    def __init__(self, ruleset: OldSchool, sheet: Sheet, dice: Dice, context: Context) -> None:
        super().__init__(sheet, dice, context)
        self.ruleset = ruleset
        self.muted = False
        self.muted_notes: list[str] = []

    # -- bookkeeping ------------------------------------------------------------------
    @property
    def conditions(self) -> dict[str, Any]:
        conditions: dict[str, Any] = self.sheet["conditions"]
        return conditions

    @property
    def privation(self) -> dict[str, Any]:
        privation: dict[str, Any] = self.sheet["privation"]
        return privation

    @property
    def dead(self) -> bool:
        return bool(self.sheet["state"] == "dead")

    def note(self, text: str, *, loud: bool = False) -> None:
        if self.muted and not loud:
            self.muted_notes.append(text)
        else:
            self.notes.append(text)

    def option(self, key: str) -> Any:
        return self.ruleset.option(self.context, key)

    def finish(self) -> None:
        refresh_derived(self.sheet)
        self.outcome.setdefault("state", self.sheet["state"])

    # -- saves --------------------------------------------------------------------------
    def save(
        self, category: str, reason: str, extra: int = 0, *, hidden: bool = False
    ) -> tuple[bool, str]:
        """Ruling G-5 and OS-3: d20 + modifiers >= the sheet's target passes."""
        target = int(self.sheet[f"save_{category}"])
        bonus = extra + save_penalty(self.sheet)
        expression = "1d20" if bonus == 0 else f"1d20{bonus:+d}"
        named = SAVE_WORDS[category]
        label = (
            say("save vs {category} ({reason})", category=named, reason=reason)
            if reason
            else say("save vs {category}", category=named)
        )
        roll = self.dice.roll(expression, label, hidden=hidden)
        passed = roll.total >= target
        shown = f"{roll.dice[0]}{bonus:+d}={roll.total}" if bonus else str(roll.total)
        if passed:
            said = say(
                "save vs {category} {roll} vs {target} passes",
                category=named,
                roll=shown,
                target=target,
            )
        else:
            said = say(
                "save vs {category} {roll} vs {target} fails",
                category=named,
                roll=shown,
                target=target,
            )
        return passed, said

    # -- state changes --------------------------------------------------------------------
    def die(self, why: str) -> None:
        if self.dead:
            return
        for key in pending_keys(self.sheet):
            self.cancel(key)
        self.effects.clear()  # a dead character waits for nothing
        self.sheet["state"] = "dead"
        self.sheet["resting"] = False
        self.note(say("dies ({why})", why=why), loud=True)

    def end_rest(self) -> None:
        """Project ruling OS-P10: strenuous events end resting and the week of rest."""
        if self.sheet["resting"]:
            self.note(word("is no longer resting"))
        self.sheet["resting"] = False
        self.sheet["rest"]["streak_days"] = 0

    def knock_out(self, hours: int | None = None, why: str = "") -> None:
        """Unconscious until a wake_up effect: 1d6 hours at 0 wounds or below (OS-4)."""
        if self.dead:
            return
        conditions = self.conditions
        if hours is None:
            if conditions["unconscious"]:
                return  # already out: the wake-up already scheduled stands
            hours = self.dice.roll("1d6", word("hours until waking")).total
        until = self.clock + hours * HOUR
        if conditions["unconscious"] and conditions["unconscious_until"] >= until:
            self.note(
                say(
                    "stays unconscious until {time}",
                    time=clock_text(conditions["unconscious_until"]),
                )
            )
            return
        if conditions["unconscious"]:
            self.cancel(f"wake_up:{conditions['unconscious_until']}")
        conditions["unconscious"] = True
        conditions["unconscious_until"] = until
        self.schedule("wake_up", hours * HOUR, {"until": until}, f"wake_up:{until}")
        if why:
            self.note(
                say_plural(
                    "falls unconscious ({why}) and will wake after {count} hours",
                    "falls unconscious ({why}) and will wake after {count} hours",
                    hours,
                    why=why,
                )
            )
        else:
            self.note(
                say_plural(
                    "falls unconscious and will wake after {count} hours",
                    "falls unconscious and will wake after {count} hours",
                    hours,
                )
            )

    def wake(self, why: str) -> None:
        conditions = self.conditions
        if not conditions["unconscious"]:
            return
        self.cancel(f"wake_up:{conditions['unconscious_until']}")
        conditions["unconscious"] = False
        conditions["unconscious_until"] = None
        self.note(why)

    def wounds_changed(self) -> None:
        """Wounds moved without damage (Constitution, healing): update down / alive."""
        if self.dead:
            return
        sheet = self.sheet
        if sheet["wounds"] <= 0 and sheet["state"] == "alive":
            sheet["state"] = "down"
            self.note(say("is down at {wounds} wounds", wounds=sheet["wounds"]))
            self.knock_out()  # project ruling OS-P3
        elif sheet["wounds"] > 0 and sheet["state"] == "down":
            sheet["state"] = "alive"
            self.note(word("is back above 0 wounds and can stand again"))

    def take_damage(self, amount: int, source: str = "") -> None:
        """Ruling OS-4; ``source`` names where the damage comes from (a poison...)."""
        sheet = self.sheet
        if self.dead:
            self.note(word("is already dead"))
            return
        self.end_rest()
        before = int(sheet["wounds"])
        sheet["wounds"] = before - amount
        if before < 0:
            if source:
                self.note(
                    say(
                        "takes {amount} damage from {source} while below 0 wounds",
                        amount=amount,
                        source=source,
                    )
                )
            else:
                self.note(say("takes {amount} damage while below 0 wounds", amount=amount))
            self.die(word("any damage below 0 wounds kills, OS-4"))
            return
        after = sheet["wounds"]
        if source:
            self.note(
                say(
                    "takes {amount} damage from {source}: wounds {before} -> {after}",
                    amount=amount,
                    source=source,
                    before=before,
                    after=after,
                )
            )
        else:
            self.note(
                say(
                    "takes {amount} damage: wounds {before} -> {after}",
                    amount=amount,
                    before=before,
                    after=after,
                )
            )
        if sheet["wounds"] > 0:
            return
        sheet["state"] = "down"
        if sheet["wounds"] < 0:
            self.note(word("falls prone"))
            self.critical_injury(-int(sheet["wounds"]))
        self.knock_out()

    def critical_injury(self, below: int) -> None:
        """Ruling OS-4: 1d10 + the negative wounds on the campaign's table."""
        table = self.ruleset.critical_table(self.context)
        roll = self.dice.roll(f"1d10+{below}", CRITICAL_INJURY)
        entry = next(
            (
                row
                for row in table
                if row["min"] <= roll.total and (row["max"] is None or roll.total <= row["max"])
            ),
            None,
        )
        if entry is None:
            self.note(
                say(
                    "critical injury 1d10+{below}={roll}: no entry on the table",
                    below=below,
                    roll=roll.total,
                )
            )
            self.outcome["critical_injury"] = {"roll": roll.total, "description": None}
            return
        described = str(entry["description"]).rstrip(".")
        self.note(
            say(
                "critical injury 1d10+{below}={roll}: {description}",
                below=below,
                roll=roll.total,
                description=described,
            )
        )
        injuries = self.sheet.setdefault("critical_injuries", [])
        injuries.append(
            {"roll": roll.total, "description": str(entry["description"])[:500], "at": self.clock}
        )
        del injuries[: -data.CRITICAL_INJURIES_KEPT]
        self.outcome["critical_injury"] = {"roll": roll.total, "description": entry["description"]}
        effect = entry.get("effect")
        if effect is not None:
            self.apply_spec(effect, CRITICAL_INJURY)

    def heal(self, amount: int, what: str) -> int:
        """Never above maximum (OS-10). Returns the wounds actually regained."""
        sheet = self.sheet
        before = int(sheet["wounds"])
        sheet["wounds"] = min(int(sheet["max_wounds"]), before + amount)
        gained = int(sheet["wounds"]) - before
        self.note(
            say(
                "{what}: wounds {before} -> {after} of {most}",
                what=what,
                before=before,
                after=sheet["wounds"],
                most=sheet["max_wounds"],
            )
        )
        self.wounds_changed()
        return gained

    def constitution_changed(self, before: int, after: int) -> None:
        """Ruling OS-2: the modifier's change x level on current and maximum wounds.

        Project ruling OS-P21: a level gained with a d6 (OS-P18) moves by what that d6
        gives at the new modifier, at least 1, less what it gave at the old one, so that
        recovering leaves the maximum what it would have been without the loss.
        """
        old, new = modifier(before), modifier(after)
        level = int(self.sheet["level"])
        rolled = [int(face) for face in self.sheet.get("level_dice", [])][:level]
        delta = (new - old) * (level - len(rolled)) + sum(
            max(1, face + new) - max(1, face + old) for face in rolled
        )
        if delta == 0:
            return
        sheet = self.sheet
        wounds, most = int(sheet["wounds"]), int(sheet["max_wounds"])
        withheld = int(sheet.get("wounds_withheld", 0))
        if delta < 0:
            sheet["max_wounds"] = max(1, most + delta)  # project ruling OS-P2
            withheld += int(sheet["max_wounds"]) - (most + delta)
        else:
            # Project ruling OS-P15: what the floor of OS-P2 kept back is not given twice.
            repaid = min(withheld, delta)
            withheld -= repaid
            sheet["max_wounds"] = most + delta - repaid
        if withheld or "wounds_withheld" in sheet:
            sheet["wounds_withheld"] = withheld
        sheet["wounds"] = min(wounds + delta, int(sheet["max_wounds"]))
        self.note(
            say(
                "Constitution modifier {before} -> {after} changes wounds by {delta} "
                "({wounds}/{most} -> {new_wounds}/{new_most})",
                before=f"{modifier(before):+d}",
                after=f"{modifier(after):+d}",
                delta=f"{delta:+d}",
                wounds=wounds,
                most=most,
                new_wounds=sheet["wounds"],
                new_most=sheet["max_wounds"],
            )
        )
        self.wounds_changed()

    def lose_ability(
        self, ability: str, amount: int, *, permanent: bool, privation: bool = False
    ) -> None:
        """Ruling OS-1: temporary loss lowers the score, permanent loss the maximum too."""
        if self.dead:
            return
        sheet = self.sheet
        before, most = int(sheet[ability]), int(sheet[f"max_{ability}"])
        sheet[ability] = max(0, before - amount)
        if permanent:
            sheet[f"max_{ability}"] = max(0, most - amount)
        if permanent:
            self.note(
                say(
                    "{ability} {before} -> {after} for good (maximum {most} -> {new_most})",
                    ability=ABILITY_TITLES[ability],
                    before=before,
                    after=sheet[ability],
                    most=most,
                    new_most=sheet[f"max_{ability}"],
                )
            )
        else:
            self.note(ability_change(ability, before, int(sheet[ability])))
        if privation and ability == "constitution":  # ruling OS-7
            lost = int(self.privation["constitution_lost"]) + before - int(sheet[ability])
            self.privation["constitution_lost"] = min(18, lost)
        if ability == "constitution":
            self.constitution_changed(before, int(sheet[ability]))
        if sheet[ability] == 0:
            self.die(say("{ability} 0, OS-1", ability=ABILITY_WORDS[ability]))

    def regain_ability(self, ability: str, amount: int) -> int:
        """Never above the maximum (OS-10). Returns the points regained."""
        sheet = self.sheet
        before = int(sheet[ability])
        sheet[ability] = min(int(sheet[f"max_{ability}"]), before + amount)
        if ability == "constitution":
            self.constitution_changed(before, int(sheet[ability]))
        return int(sheet[ability]) - before

    def apply_spec(self, effect: Mapping[str, Any], source: str) -> None:
        """A critical injury's, poison's or disease's effect (see data.EFFECT_SCHEMA)."""
        if self.dead:
            return
        kind = effect["type"]
        if kind == "death":
            self.die(source)
        elif kind == "damage":
            if "amount" in effect:
                amount = int(effect["amount"])
            else:
                try:
                    label = say("{source} damage", source=source)
                    amount = self.dice.roll(str(effect["dice"]), label).total
                except DiceError as error:
                    raise RuleError(odds.bad_dice(source, error)) from None
            if amount > 0:
                self.take_damage(amount, source)
        elif kind == "ability_loss":
            permanent = bool(effect.get("permanent", False))
            for ability in ABILITIES:
                if ability in effect["abilities"]:
                    self.lose_ability(
                        ability, int(effect["abilities"][ability]), permanent=permanent
                    )
        elif kind == "sleep":
            self.knock_out(int(effect["hours"]), source)

    def slept(self, hours: int) -> None:
        """Ruling OS-8: 4 hours in the window end sleep deprivation at once.

        Project ruling OS-P17: the sleep is logged as a period from now, so each window
        it spans is credited with its own part of it.
        """
        sleep = self.sheet["sleep"]
        sleep["hours"] = min(10_000, int(sleep["hours"]) + hours)
        periods = sleep.setdefault("periods", [])
        periods.append([self.clock, self.clock + hours * HOUR])
        del periods[: -data.SLEEP_PERIODS_KEPT]
        if sleep["hours"] >= data.SLEEP_NEEDED_HOURS and self.conditions["sleep_deprived_days"]:
            self.conditions["sleep_deprived_days"] = 0
            self.note(word("sleep deprivation ends"))

    def aging_save(self, age: int, penalty: int) -> bool:
        """Ruling OS-5: save vs paralysis at the band's penalty; a failure costs a random
        ability one point for good."""
        passed, text = self.save("paralysis", say("aging, age {age}", age=age), penalty)
        self.note(say("aging save at {age}: {save}", age=age, save=text))
        if not passed:
            ability = self.dice.pick(ABILITIES, say("aging: ability lost at age {age}", age=age))
            self.lose_ability(ability, 1, permanent=True)
        return passed

    def contract(self, name: str, disease: Mapping[str, Any], hidden: bool) -> None:
        """Ruling OS-6: the first save falls when incubation ends."""
        interval = int(disease["interval_minutes"])
        # Project ruling OS-P11: a save every interval while the infection time lasts
        # (1000 minutes at 300: saves at 0, 300, 600 and 900).
        total = max(1, -(-int(disease["infection_minutes"]) // interval))
        self.sheet["diseases"].append(
            {
                "name": name,
                "contracted_at": self.clock,
                "incubation_minutes": int(disease["incubation_minutes"]),
                "interval_minutes": interval,
                "saves_total": total,
                "saves_made": 0,
                "saves_failed": 0,
                "effect": copy.deepcopy(dict(disease["effect"])),
                "hidden": hidden,
            }
        )
        self.schedule(
            "disease_save",
            int(disease["incubation_minutes"]),
            {"disease": name, "since": self.clock, "n": 1},
            f"disease:{name}:1",
            hidden=hidden,
        )


# What old school resolutions find (Ruleset.outcome_properties); what only the referee
# may know (a hidden disease) under ``referee_only`` (ruling G-4).
OUTCOME_PROPERTIES: Mapping[str, Any] = {
    "aging_saves": {
        "type": "object",
        "properties": {"made": {"type": "integer"}, "passed": {"type": "integer"}},
        "additionalProperties": False,
    },
    "critical_injury": {
        "type": "object",
        "properties": {"description": {"type": "string"}, "roll": {"type": "integer"}},
        "additionalProperties": False,
    },
    "found": {"type": "boolean"},
    "level": {"type": "integer"},
    "passed": {"type": "boolean"},
    "referee_only": {
        "type": "object",
        "description": word("Shown to the referee only (G-4)."),
        "properties": {
            "contracted": {"type": "boolean"},
            "cured": {"type": "boolean"},
            "disease": {"type": "string"},
            "save": {"type": "string"},
        },
        "additionalProperties": False,
    },
    "state": {"type": "string"},
}


class OldSchool(Ruleset):
    key = "old_school"
    name = word("Old school")
    blurb = word("Ability loss, wounds below zero, diseases, aging, hunger and thirst.")
    creation_fields = ("race", "age", "level", *data.ABILITIES)
    sheet_schema: ClassVar[Mapping[str, Any]] = data.SHEET_SCHEMA
    actions: ClassVar[tuple[ActionSpec, ...]] = ACTIONS
    outcome_properties: ClassVar[Mapping[str, Any]] = OUTCOME_PROPERTIES
    options_schema: ClassVar[Mapping[str, Any]] = OPTIONS_SCHEMA
    effect_payloads: ClassVar[Mapping[str, Mapping[str, Any]]] = data.EFFECT_PAYLOADS
    tables: ClassVar[Mapping[str, Any]] = {
        "critical_injuries": data.PROJECT_CRITICAL_INJURIES,
        "diseases": data.DEFAULT_DISEASES,
    }
    table_schemas: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "critical_injuries": CRITICAL_TABLE_SCHEMA,
        "diseases": DISEASE_TABLE_SCHEMA,
    }

    # -- sheets -------------------------------------------------------------------------
    def default_sheet(self) -> Sheet:
        return data.default_sheet()

    def new_sheet(self, initial: Mapping[str, Any], dice: Dice) -> Sheet:
        """Defaults, then ``initial``; a score given without its maximum sets both."""
        self.refuse_managed(initial, MANAGED_FIELDS)
        sheet = self.default_sheet()
        given = copy.deepcopy(dict(initial))
        for ability in ABILITIES:
            if ability in given and f"max_{ability}" not in given:
                given[f"max_{ability}"] = given[ability]
        if "max_wounds" in given and "wounds" not in given:
            given["wounds"] = given["max_wounds"]
        sheet.update(given)
        validate(sheet, self.sheet_schema, word("sheet"))
        for ability in ABILITIES:  # rulings OS-1, OS-P16: scores run 3-18
            for field in (ability, f"max_{ability}"):
                if not data.SCORE_MIN <= int(sheet[field]) <= data.SCORE_MAX:
                    raise RuleError(
                        say(
                            "{ability} must be {lowest} to {highest} for a new character, "
                            "not {score} (OS-1)",
                            ability=ABILITY_WORDS[ability],
                            lowest=data.SCORE_MIN,
                            highest=data.SCORE_MAX,
                            score=sheet[field],
                        )
                    )
        if sheet["wounds"] <= 0:
            sheet["state"] = "down"
        refresh_derived(sheet)
        self.validate_sheet(sheet)
        return sheet

    def initial_effects(self, sheet: Mapping[str, Any]) -> tuple[ScheduledEffect, ...]:
        """A yearly birthday (OS-5) and the daily sleep window (OS-8)."""
        birthday = int(sheet["birthdays"]) + 1
        window = int(sheet["sleep"]["windows"]) + 1
        return (
            ScheduledEffect("birthday", YEAR, {"n": birthday}, f"birthday:{birthday}"),
            ScheduledEffect("sleep_window", DAY, {"n": window}, f"sleep_window:{window}"),
        )

    def level_up(
        self, sheet: Mapping[str, Any], dice: Dice, context: Context, *, player_character: bool
    ) -> Result:
        """Project ruling OS-P18: a level more brings 1d6 + the Constitution modifier
        wounds (at least 1), on the maximum and the current wounds alike."""
        turn = self._turn(copy.deepcopy(dict(sheet)), dice, context, "gain a level")
        level = int(turn.sheet["level"])
        if level >= 50:
            raise RuleError(word("level 50 is the highest level"))
        turn.sheet["level"] = level + 1
        roll = dice.roll("1d6", word("wounds for the new level"))
        gain = max(1, roll.total + modifier(int(turn.sheet["constitution"])))
        # Project ruling OS-P21: the die is kept for a later change of Constitution.
        level_dice = turn.sheet.setdefault("level_dice", [])
        level_dice.append(roll.total)
        del level_dice[: -data.LEVELS_KEPT]
        turn.sheet["max_wounds"] = int(turn.sheet["max_wounds"]) + gain
        turn.sheet["wounds"] = int(turn.sheet["wounds"]) + gain
        turn.note(
            say(
                "rises to level {level}: +{gain} wounds ({wounds} of {most})",
                level=level + 1,
                gain=gain,
                wounds=turn.sheet["wounds"],
                most=turn.sheet["max_wounds"],
            )
        )
        turn.wounds_changed()
        turn.outcome["level"] = level + 1
        result = turn.result()
        self.validate_sheet(result.sheet)
        return result

    def validate_sheet(
        self, sheet: Mapping[str, Any], valid: Mapping[str, Any] | None = None
    ) -> None:
        super().validate_sheet(sheet, valid)
        problems: list[Message] = []
        for ability, top in _ABILITY_MAXIMA:
            if sheet[ability] > sheet[top]:
                problems.append(
                    say("{ability} is above its maximum", ability=ABILITY_WORDS[ability])
                )
        if sheet["wounds"] > sheet["max_wounds"]:
            problems.append(word("wounds are above their maximum"))
        if sheet["state"] != "dead":
            if any(sheet[ability] == 0 for ability in ABILITIES):
                problems.append(word("a character at 0 in an ability score is dead (OS-1)"))
            if sheet["wounds"] <= 0 and sheet["state"] == "alive":
                problems.append(word("a character at 0 wounds or below is down (OS-4)"))
            if sheet["wounds"] > 0 and sheet["state"] == "down":
                problems.append(word("a character above 0 wounds is not down"))
        if problems:
            said = Message("", parts=problems, separator="; ")
            raise RuleError(say("invalid sheet: {problems}", problems=said))

    def correction_follows(self, sheet: Mapping[str, Any], asked: frozenset[str]) -> dict[str, Any]:
        """Project ruling OS-P22: a score corrected to 0 kills (OS-1), as a referee who
        sets it means; the state corrected against the numbers is refused instead."""
        if "state" in asked or sheet["state"] == "dead":
            return {}
        if any(sheet[ability] == 0 for ability in ABILITIES if ability in asked):
            return {"state": "dead"}
        return {}

    def out_of_bounds(self, sheet: Mapping[str, Any]) -> tuple[OutOfBounds, ...]:
        """Project ruling OS-P22: scores and wounds at most their maximum (OS-1, OS-4),
        the state as the numbers say (a score at 0 is death; 0 wounds or below is down)."""
        problems = []
        for ability in ABILITIES:
            top = f"max_{ability}"
            if sheet[ability] > sheet[top]:
                problems.append(
                    OutOfBounds(
                        (ability, top),
                        say(
                            "{ability} {score} is above its maximum {most}",
                            ability=ABILITY_WORDS[ability],
                            score=sheet[ability],
                            most=sheet[top],
                        ),
                    )
                )
        if sheet["wounds"] > sheet["max_wounds"]:
            problems.append(
                OutOfBounds(
                    ("wounds", "max_wounds"),
                    say(
                        "wounds {wounds} is above the maximum {most}",
                        wounds=sheet["wounds"],
                        most=sheet["max_wounds"],
                    ),
                )
            )
        state = sheet["state"]
        if state != "dead":
            for ability in ABILITIES:
                if sheet[ability] == 0:
                    problems.append(
                        OutOfBounds(
                            (ability, "state"),
                            say(
                                "{ability} 0 means death, not the state {state}",
                                ability=ABILITY_WORDS[ability],
                                state=data.STATE_WORDS.get(state, state),
                            ),
                        )
                    )
            if sheet["wounds"] <= 0 and state == "alive":
                problems.append(
                    OutOfBounds(
                        ("wounds", "state"),
                        say("wounds {wounds} means down, not alive", wounds=sheet["wounds"]),
                    )
                )
            if sheet["wounds"] > 0 and state == "down":
                problems.append(
                    OutOfBounds(
                        ("wounds", "state"),
                        say(
                            "wounds {wounds} is above 0: the character is not down",
                            wounds=sheet["wounds"],
                        ),
                    )
                )
        return tuple(problems)

    def status(self, sheet: Mapping[str, Any]) -> str:
        if sheet["state"] == "dead":
            return word("dead")
        if sheet["conditions"]["unconscious"]:
            return word("unconscious")
        if sheet["state"] == "down":
            return word("down")
        return word("standing")

    def public_sheet(self, sheet: Mapping[str, Any]) -> Sheet:
        """Diseases still secret (ruling G-4) are left out for players."""
        public = super().public_sheet(sheet)  # a copy
        public["diseases"] = [entry for entry in public["diseases"] if not entry["hidden"]]
        return public

    # -- tables and options -----------------------------------------------------------------
    def validate_table(self, key: str, data: Any) -> None:
        """A referee's edit of the critical injury or disease table (rulings OS-4, OS-6)."""
        if key == "critical_injuries":
            self._check_critical_table(data)
        elif key == "diseases":
            validate(data, DISEASE_TABLE_SCHEMA, DISEASE_TABLE)
        else:
            super().validate_table(key, data)

    @staticmethod
    def _check_critical_table(table: Any) -> None:
        validate(table, CRITICAL_TABLE_SCHEMA, word("critical injury table"))
        for row in table:
            if row["max"] is not None and row["max"] < row["min"]:
                raise RuleError(
                    say(
                        "invalid critical injury table: the range {min}-{max} of {description} "
                        "ends before it starts",
                        min=row["min"],
                        max=row["max"],
                        description=repr(row["description"]),
                    )
                )

    def critical_table(self, context: Context) -> list[dict[str, Any]]:
        table = context.table(self, "critical_injuries")
        self._check_critical_table(table)
        rows: list[dict[str, Any]] = table
        return rows

    def disease(self, context: Context, name: str) -> dict[str, Any]:
        table = context.table(self, "diseases")
        validate(table, DISEASE_TABLE_SCHEMA, DISEASE_TABLE)
        if name not in table:
            raise RuleError(
                say(
                    "no disease {name} in the campaign's disease table (known: {known})",
                    name=repr(name),
                    known=sorted(table) or None,
                )
            )
        entry: dict[str, Any] = table[name]
        return entry

    def unavailable(self, sheet: Mapping[str, Any], action: str) -> str | None:
        """The same refusals as ``_turn`` and ``_awake``, said before anyone tries."""
        if sheet["state"] == "dead":
            return word("The character is dead.")
        if action in ("drink", "sleep", "search") and sheet["conditions"]["unconscious"]:
            return word("The character is unconscious.")
        if action == "search" and sheet["state"] == "down":
            return word("The character is down.")
        return None

    def edit_values(
        self, sheet: Mapping[str, Any], action: str, chosen: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Supplies and resting start from what the sheet says now."""
        if action == "set_supplies":
            conditions = sheet["conditions"]
            return {"food": not conditions["starving"], "water": not conditions["thirsty"]}
        if action == "set_resting":
            return {"resting": bool(sheet["resting"])}
        return {}

    # -- helpers ------------------------------------------------------------------------------
    def _turn(self, sheet: Sheet, dice: Dice, context: Context, doing: str) -> _Turn:
        if sheet["state"] == "dead":
            raise ActionBlocked(data.DEAD_CANNOT[doing])
        return _Turn(self, sheet, dice, context)

    @staticmethod
    def _awake(turn: _Turn, doing: str, *, standing: bool = False) -> None:
        if turn.conditions["unconscious"]:
            raise ActionBlocked(data.UNCONSCIOUS_CANNOT[doing])
        if standing and turn.sheet["state"] == "down":
            raise ActionBlocked(data.DOWN_CANNOT[doing])

    @staticmethod
    def _active_disease(sheet: Mapping[str, Any], name: str) -> dict[str, Any] | None:
        for entry in sheet["diseases"]:
            if entry["name"] == name:
                found: dict[str, Any] = entry
                return found
        return None

    # -- actions -------------------------------------------------------------------------------
    # -- odds of the actions whose dice decide something (odds.py) ------------------------
    def odds_save(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return odds.save(sheet, params, save_penalty(sheet))

    def odds_expose_disease(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        self.disease(context, params["disease"])  # an unknown disease is refused (400)
        return odds.expose_disease(sheet, params, save_penalty(sheet))

    def odds_poison(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return odds.poison(self, sheet, params, context, save_penalty(sheet))

    def odds_search(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return odds.search(self, sheet, params, context)

    def odds_damage(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return odds.damage(self, sheet, params, context)

    def odds_fall(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return odds.fall(self, sheet, params, context)

    def odds_magical_aging(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        return odds.magical_aging(sheet, params, save_penalty(sheet))

    def action_damage(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        turn = self._turn(sheet, dice, context, "take damage")
        turn.take_damage(int(params["amount"]))
        return turn.result()

    def action_heal(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        turn = self._turn(sheet, dice, context, "be healed")
        turn.heal(int(params["amount"]), say("heals {amount}", amount=params["amount"]))
        if sheet["wounds"] > 0:
            turn.wake(word("wakes up"))  # project ruling OS-P4
        return turn.result()

    def action_ability_loss(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        turn = self._turn(sheet, dice, context, "lose ability points")
        turn.lose_ability(
            params["ability"], int(params["amount"]), permanent=bool(params.get("permanent"))
        )
        return turn.result()

    def action_save(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        turn = self._turn(sheet, dice, context, "save")
        passed, text = turn.save(
            params["category"], str(params.get("reason", "")), int(params.get("modifier", 0))
        )
        turn.note(text)
        turn.outcome["passed"] = passed
        return turn.result()

    def action_expose_disease(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Ruling OS-6 / G-4: the exposure save is the referee's, rolled hidden."""
        turn = self._turn(sheet, dice, context, "be exposed to a disease")
        name = params["disease"]
        disease = self.disease(context, name)
        if self._active_disease(sheet, name) is not None:
            raise RuleError(say("the character already has {name}", name=name))
        passed, text = turn.save(
            "poison",
            say("exposure to {name}", name=name),
            int(params.get("modifier", 0)),
            hidden=True,
        )
        if not passed:
            turn.contract(name, disease, hidden=True)
        turn.note(word("is exposed to a disease; the referee rolled the save vs poison in secret"))
        turn.outcome["referee_only"] = {
            "disease": name,
            "save": str(text),
            "contracted": not passed,
        }
        return turn.result()

    def action_contract_disease(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        turn = self._turn(sheet, dice, context, "contract a disease")
        name = params["disease"]
        disease = self.disease(context, name)
        if self._active_disease(sheet, name) is not None:
            raise RuleError(say("the character already has {name}", name=name))
        hidden = bool(params.get("hidden", True))
        turn.contract(name, disease, hidden=hidden)
        if hidden:
            turn.note(SECRET_NOTE)
            turn.outcome["referee_only"] = {"disease": name, "contracted": True}
        else:
            entry = sheet["diseases"][-1]
            turn.note(
                say_plural(
                    "contracts {name}: {count} saves vs poison, the first at {time}",
                    "contracts {name}: {count} saves vs poison, the first at {time}",
                    int(entry["saves_total"]),
                    name=name,
                    time=clock_text(context.clock + entry["incubation_minutes"]),
                )
            )
        return turn.result()

    def action_cure_disease(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        turn = self._turn(sheet, dice, context, "be cured")
        name = params["disease"]
        entry = self._active_disease(sheet, name)
        if entry is None:
            raise RuleError(say("the character does not have {name}", name=name))
        sheet["diseases"].remove(entry)
        turn.cancel(f"disease:{name}:{entry['saves_made'] + 1}")
        if entry["hidden"]:  # still secret (ruling G-4): the summary names nothing
            turn.note(SECRET_NOTE)
            turn.outcome["referee_only"] = {"disease": name, "cured": True}
        else:
            turn.note(say("is cured of {name}; its remaining saves are cancelled", name=name))
        return turn.result()

    def action_poison(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        turn = self._turn(sheet, dice, context, "be poisoned")
        effect = params.get("effect", DEATH)
        if params.get("save", True):
            passed, text = turn.save("poison", POISON, int(params.get("modifier", 0)))
            turn.note(text)
            turn.outcome["passed"] = passed
            if passed:
                turn.note(NO_EFFECT)
                return turn.result()
        else:
            turn.note(word("takes the drug with no save"))
        if effect["type"] == "none":
            turn.note(NO_EFFECT)
        turn.apply_spec(effect, POISON)
        return turn.result()

    def action_drink(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """Ruling OS-9: drunk until a sober_up effect."""
        turn = self._turn(sheet, dice, context, "drink")
        self._awake(turn, "drink")
        odds.refuse_referee_param(
            params, context, "hours", word("how long drunkenness lasts (OS-9)")
        )
        hours = int(params.get("hours", turn.option("drunk_hours")))
        until = context.clock + hours * HOUR
        conditions = turn.conditions
        if conditions["drunk"] and conditions["drunk_until"] >= until:
            turn.note(
                say(
                    "drinks more and stays drunk until {time}",
                    time=clock_text(conditions["drunk_until"]),
                )
            )
            return turn.result()
        if conditions["drunk"]:
            turn.cancel(f"sober_up:{conditions['drunk_until']}")
        conditions["drunk"] = True
        conditions["drunk_until"] = until
        turn.schedule("sober_up", hours * HOUR, {"until": until}, f"sober_up:{until}")
        turn.note(
            say(
                "is drunk until {time}: -2 Dexterity and -2 to all saves (OS-9)",
                time=clock_text(until),
            )
        )
        return turn.result()

    def action_fall(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """Ruling OS-9: 1d6 per full 10 feet, at most 20d6."""
        turn = self._turn(sheet, dice, context, "fall")
        feet = int(params["feet"])
        count = min(feet // 10, data.MAX_FALL_DICE)
        turn.end_rest()  # project ruling OS-P10
        if count == 0:
            turn.note(say("falls {feet} feet: less than 10 feet, no damage", feet=feet))
            return turn.result()
        roll = dice.roll(f"{count}d6", word("falling damage"))
        turn.note(
            say("falls {feet} feet: {count}d6={total}", feet=feet, count=count, total=roll.total)
        )
        turn.take_damage(roll.total)
        return turn.result()

    def action_search(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """Ruling OS-9: 1 in 6, one turn per 10-foot square; project ruling OS-P7."""
        turn = self._turn(sheet, dice, context, "search")
        self._awake(turn, "search", standing=True)
        odds.refuse_referee_param(params, context, "chance", odds.SEARCH_CHANCE)
        squares = int(params["squares"])
        chance = int(params.get("chance", 1))
        effective = chance - int(sheet["conditions"]["sleep_deprived_days"])
        turn.end_rest()
        roll = dice.roll("1d6", word("search"))
        found = roll.total <= effective
        chance_words = (
            say("{chance} in 6", chance=effective)
            if effective > 0
            else word("no chance (sleep deprived)")
        )
        verdict = word("finds anything hidden there") if found else word("finds nothing")
        turn.note(
            say_plural(
                "searches {count} ten-foot square for {minutes} minutes: 1d6={roll} vs "
                "{chance}, {verdict}",
                "searches {count} ten-foot squares for {minutes} minutes: 1d6={roll} vs "
                "{chance}, {verdict}",
                squares,
                minutes=squares * TURN,
                roll=roll.total,
                chance=chance_words,
                verdict=verdict,
            )
        )
        turn.outcome["found"] = found
        turn.elapsed = squares * TURN
        return turn.result()

    def action_night_rest(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Ruling OS-10: 1 wound at half wounds or more; nothing in a hostile place."""
        turn = self._turn(sheet, dice, context, "rest")
        rest = sheet["rest"]
        last = rest["last_night_rest_at"]
        if last is not None and context.clock - last < data.NIGHT_REST_SPACING:
            raise RuleError(
                say(
                    "the character already had a night's rest at {time}; advance the clock first",
                    time=clock_text(last),
                )
            )
        rest["last_night_rest_at"] = context.clock
        turn.note(word("rests for the night"))
        turn.slept(8)  # project ruling OS-P8
        turn.elapsed = 8 * HOUR
        wounds, most = int(sheet["wounds"]), int(sheet["max_wounds"])
        if turn.option("hostile_place"):
            turn.note(HOSTILE_PLACE)
        elif wounds >= most:
            turn.note(NOT_WOUNDED)
        elif 2 * wounds >= most:
            turn.heal(1, word("recovers 1"))
        else:
            turn.note(
                say(
                    "below half wounds ({wounds} of {most}): recovers nothing",
                    wounds=wounds,
                    most=most,
                )
            )
        return turn.result()

    def action_day_rest(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """Ruling OS-10 and OS-7; project rulings OS-P8..OS-P10."""
        turn = self._turn(sheet, dice, context, "rest")
        rest = sheet["rest"]
        last = rest["last_day_rest_at"]
        if last is not None and context.clock - last < data.DAY_REST_SPACING:
            raise RuleError(
                say(
                    "the character already had a day of rest at {time}; a full day must pass first",
                    time=clock_text(last),
                )
            )
        rest["last_day_rest_at"] = context.clock
        sheet["resting"] = True
        turn.note(word("rests all day"))
        turn.slept(8)
        turn.elapsed = DAY
        conditions = sheet["conditions"]
        lacking = NO_DAY_OF_REST.get((bool(conditions["starving"]), bool(conditions["thirsty"])))
        if lacking is not None:
            rest["streak_days"] = 0
            turn.note(lacking)
            return turn.result()
        if turn.option("hostile_place"):
            rest["streak_days"] = 0
            turn.note(HOSTILE_PLACE)
            return turn.result()
        consecutive = last is not None and context.clock - last < data.REST_STREAK_GAP
        rest["streak_days"] = rest["streak_days"] + 1 if consecutive else 1
        week = rest["streak_days"] % 7 == 0
        self._day_rest_wounds(turn, bool(params.get("bed", False)))
        self._day_rest_abilities(turn, week)
        if week:
            turn.note(
                say("a full week of rest ({days} days) adds a point", days=rest["streak_days"])
            )
        return turn.result()

    @staticmethod
    def _day_rest_wounds(turn: _Turn, bed: bool) -> None:
        sheet = turn.sheet
        wounds, most = int(sheet["wounds"]), int(sheet["max_wounds"])
        if wounds >= most:
            turn.note(NOT_WOUNDED)
            return
        if 2 * wounds >= most:
            gain = turn.dice.roll("1d3", word("day of rest")).total
            if bed:
                how = say("recovers 1d3={gain} +1 in a clean bed", gain=gain)
            else:
                how = say("recovers 1d3={gain}", gain=gain)
        elif bed:
            gain, how = 1, word("recovers 1 (below half wounds) +1 in a clean bed")
        else:
            gain, how = 1, word("recovers 1 (below half wounds)")
        if bed:
            gain += 1
        turn.heal(gain, how)

    @staticmethod
    def _day_rest_abilities(turn: _Turn, week: bool) -> None:
        """OS-10: a point a day, another at each full week; OS-7: Constitution lost to
        hunger or thirst twice as fast."""
        sheet = turn.sheet
        regained: list[Message] = []
        for ability in ABILITIES:
            if sheet[ability] >= sheet[f"max_{ability}"]:
                continue
            points = 2 if week else 1
            pool = int(turn.privation["constitution_lost"]) if ability == "constitution" else 0
            if pool:
                points *= 2
            before = int(sheet[ability])
            got = turn.regain_ability(ability, points)
            if pool:
                turn.privation["constitution_lost"] = max(0, pool - got)
            if got:
                regained.append(ability_change(ability, before, int(sheet[ability])))
            if turn.dead:
                return
        if regained:
            turn.note(say("regains {abilities}", abilities=regained))

    def action_set_supplies(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Ruling OS-7: a check every 24 h while food or water is lacking."""
        turn = self._turn(sheet, dice, context, "eat or drink")
        conditions, privation = turn.conditions, turn.privation
        for what, flag, since, checks, kind in (
            ("food", "starving", "food_lacking_since", "starvation_checks", "starvation"),
            ("water", "thirsty", "water_lacking_since", "thirst_checks", "thirst"),
        ):
            if what not in params:
                continue
            has = bool(params[what])
            if has and conditions[flag]:
                turn.cancel(f"{kind}:{privation[since]}:{privation[checks] + 1}")
                conditions[flag] = False
                privation[since] = None
                privation[checks] = 0
                if what == "water":
                    privation["thirst_failures"] = 0  # project ruling OS-P5
                turn.note(say("has {what} again", what=SUPPLY_WORDS[what]))
            elif has:
                turn.note(say("has {what}", what=SUPPLY_WORDS[what]))
            elif conditions[flag]:
                turn.note(say("still lacks {what}", what=SUPPLY_WORDS[what]))
            else:
                conditions[flag] = True
                privation[since] = context.clock
                privation[checks] = 0
                turn.schedule(
                    f"{kind}_check",
                    DAY,
                    {"since": context.clock, "n": 1},
                    f"{kind}:{context.clock}:1",
                )
                turn.note(
                    say(
                        "lacks {what}: a save vs poison every 24 hours (OS-7)",
                        what=SUPPLY_WORDS[what],
                    )
                )
        return turn.result()

    def action_sleep(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        turn = self._turn(sheet, dice, context, "sleep")
        self._awake(turn, "sleep")
        hours = int(params["hours"])
        turn.note(say_plural("sleeps {count} hour", "sleeps {count} hours", hours))
        turn.slept(hours)
        turn.elapsed = hours * HOUR
        return turn.result()

    def action_go_without_sleep(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Project ruling OS-P17: only marked nights count their logged sleep."""
        turn = self._turn(sheet, dice, context, "go without sleep")
        nights = int(params.get("nights", 1))
        reason = str(params.get("reason", "on_watch"))
        sleep = sheet["sleep"]
        if nights == 0:
            sleep["without"] = 0
            sleep.pop("without_reason", None)
            turn.note(word("sleeps each night again"))
            return turn.result()
        sleep["without"] = nights
        sleep["without_reason"] = reason
        words = data.WITHOUT_SLEEP_REASONS[reason]
        if nights == 1:
            turn.note(
                say(
                    "goes without sleep, {reason}: tonight; only sleep that is logged counts "
                    "(OS-8)",
                    reason=words,
                )
            )
        else:
            turn.note(
                say_plural(
                    "goes without sleep, {reason}: {count} night; only sleep that is logged "
                    "counts (OS-8)",
                    "goes without sleep, {reason}: {count} nights; only sleep that is logged "
                    "counts (OS-8)",
                    nights,
                    reason=words,
                )
            )
        return turn.result()

    def action_set_resting(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        turn = self._turn(sheet, dice, context, "rest")
        if params["resting"]:
            sheet["resting"] = True
            turn.note(word("is resting"))
        else:
            sheet["resting"] = False
            sheet["rest"]["streak_days"] = 0
            turn.note(word("stops resting"))
        return turn.result()

    def action_magical_aging(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Ruling OS-5: every save the skipped years would have brought, at once."""
        turn = self._turn(sheet, dice, context, "age")
        years = int(params["years"])
        old = int(sheet["age"])
        bands = AGING[sheet["race"]]
        turn.note(
            say_plural(
                "ages {count} year by magic ({old} -> {new})",
                "ages {count} years by magic ({old} -> {new})",
                years,
                old=old,
                new=old + years,
            )
        )
        if bands is None:
            turn.note(word("elves do not age: no saves"))
        saves = passes = 0
        maxima = {ability: int(sheet[f"max_{ability}"]) for ability in ABILITIES}
        turn.muted = True  # many saves: one line for them all, below
        for age in range(old + 1, old + years + 1):
            penalty = bands.penalty_at(age) if bands is not None else None
            if penalty is None:
                continue
            saves += 1
            passes += turn.aging_save(age, penalty)
            if turn.dead:
                break
        turn.muted = False
        sheet["age"] = old + years
        if bands is not None and saves == 0:
            turn.note(word("no aging save falls due"))
        elif saves <= 3:
            turn.notes.extend(turn.muted_notes)
        else:
            lost = [
                say(
                    "{ability} {change}",
                    ability=ABILITY_TITLES[ability],
                    change=f"{sheet[f'max_{ability}'] - maxima[ability]:+d}",
                )
                for ability in ABILITIES
                if sheet[f"max_{ability}"] != maxima[ability]
            ]
            if lost:
                turn.note(
                    say(
                        "{saves} aging saves: {passes} pass, {fails} fail ({lost} for good)",
                        saves=saves,
                        passes=passes,
                        fails=saves - passes,
                        lost=lost,
                    )
                )
            else:
                turn.note(
                    say(
                        "{saves} aging saves: {passes} pass, {fails} fail",
                        saves=saves,
                        passes=passes,
                        fails=saves - passes,
                    )
                )
        turn.outcome["aging_saves"] = {"made": saves, "passed": passes}
        return turn.result()

    # -- scheduled effects ---------------------------------------------------------------------
    def finish_effect(
        self, sheet: Sheet, kind: str, payload: Params, dice: Dice, context: Context
    ) -> Result:
        """Every effect on one turn; a dead character is spared them all."""
        turn = _Turn(self, sheet, dice, context)
        if turn.dead:
            turn.note(
                say(
                    "nothing happens ({effect}): the character is dead",
                    effect=data.EFFECT_WORDS.get(kind, kind.replace("_", " ")),
                )
            )
        else:
            getattr(self, f"_effect_{kind}")(turn, payload)
        return turn.result()

    def _effect_birthday(self, turn: _Turn, payload: Mapping[str, Any]) -> None:
        """Ruling OS-5 on the clock: a year older, and any aging save due."""
        sheet = turn.sheet
        n = int(payload["n"])
        if n != sheet["birthdays"] + 1:
            turn.note(say("nothing happens: birthday {n} was already marked or is not due", n=n))
            return
        sheet["birthdays"] = n
        sheet["age"] += 1
        turn.note(say("turns {age}", age=sheet["age"]))
        bands = AGING[sheet["race"]]
        penalty = bands.penalty_at(sheet["age"]) if bands is not None else None
        if penalty is not None:
            turn.aging_save(int(sheet["age"]), penalty)
        if not turn.dead:
            turn.schedule("birthday", YEAR, {"n": n + 1}, f"birthday:{n + 1}")

    def _effect_sleep_window(self, turn: _Turn, payload: Mapping[str, Any]) -> None:
        """Ruling OS-8: under 4 hours of sleep in the window adds a day of deprivation."""
        sleep = turn.sheet["sleep"]
        n = int(payload["n"])
        if n != sleep["windows"] + 1:
            turn.note(
                say("nothing happens: sleep window {n} was already closed or is not due", n=n)
            )
            return
        sleep["windows"] = n
        under_way = self._sleep_under_way(sleep, turn.clock)
        hours = self._close_sleep_window(sleep, turn.clock)
        marked = int(sleep.get("without", 0))
        if marked:
            sleep["without"] = marked - 1
        reason = data.WITHOUT_SLEEP_REASONS.get(str(sleep.get("without_reason", "")), data.AWAKE)
        if not sleep.get("without"):
            sleep.pop("without_reason", None)
        conditions = turn.conditions
        if not turn.option("track_sleep"):
            turn.note(word("sleep is not tracked in this campaign"))
        elif not marked:
            # Project ruling OS-P17: unless the referee marked the night otherwise, the
            # character slept.
            if conditions["sleep_deprived_days"]:
                turn.note(word("slept through the night: sleep deprivation ends"))
            else:
                turn.note(word("slept through the night"))
            conditions["sleep_deprived_days"] = 0
        elif hours >= data.SLEEP_NEEDED_HOURS:
            conditions["sleep_deprived_days"] = 0
            turn.note(say("slept {hours} hours in the last 24: rested", hours=hours))
        elif under_way:
            # Project ruling OS-P20: a sleep of 4 hours or more corrects deprivation when
            # it is taken, so one still going on as the window closes leaves none.
            conditions["sleep_deprived_days"] = 0
            turn.note(
                say_plural(
                    "{reason}, slept only {count} hour in the last 24, but is in the middle of a "
                    "{length}-hour sleep: no sleep deprivation",
                    "{reason}, slept only {count} hours in the last 24, but is in the middle of a "
                    "{length}-hour sleep: no sleep deprivation",
                    hours,
                    reason=reason,
                    length=under_way,
                )
            )
        else:
            conditions["sleep_deprived_days"] += 1
            days = conditions["sleep_deprived_days"]
            turn.note(
                say_plural(
                    "{reason}, slept only {count} hour in the last 24: sleep deprived, -{days} "
                    "to all rolls (OS-8)",
                    "{reason}, slept only {count} hours in the last 24: sleep deprived, -{days} "
                    "to all rolls (OS-8)",
                    hours,
                    reason=reason,
                    days=days,
                )
            )
        turn.schedule("sleep_window", DAY, {"n": n + 1}, f"sleep_window:{n + 1}")

    @staticmethod
    def _sleep_under_way(sleep: Mapping[str, Any], now: int) -> int:
        """The hours of a logged sleep of 4 hours or more begun before ``now`` and still
        going on at ``now``; 0 if there is none (project ruling OS-P20)."""
        longest = 0
        for begin, finish in sleep.get("periods", []):
            if begin < now < finish:
                longest = max(longest, (finish - begin) // HOUR)
        return longest if longest >= data.SLEEP_NEEDED_HOURS else 0

    @staticmethod
    def _close_sleep_window(sleep: dict[str, Any], end: int) -> int:
        """Hours of sleep credited to the window ending at ``end`` (project ruling OS-P17).

        Each logged sleep counts in the window it falls in: a sleep begun an hour before
        the window closes gives it 1 hour and the next window the rest. What is left of
        the logged sleeps after ``end`` stays for the next window. A sheet from before
        the periods were logged credits its ``hours`` as they are.
        """
        if "periods" not in sleep:
            hours = int(sleep["hours"])
            sleep["hours"] = 0
            return hours
        start = end - DAY
        credited = 0
        later: list[list[int]] = []
        for begin, finish in sleep["periods"]:
            credited += max(0, min(finish, end) - max(begin, start))
            if finish > end:
                later.append([max(begin, end), finish])
        sleep["periods"] = later
        sleep["hours"] = min(10_000, sum(finish - begin for begin, finish in later) // HOUR)
        return credited // HOUR

    def _effect_wake_up(self, turn: _Turn, payload: Mapping[str, Any]) -> None:
        """Ruling OS-4 and OS-10: awake, but still unable to stand at 0 wounds or below."""
        conditions = turn.conditions
        if not conditions["unconscious"] or conditions["unconscious_until"] != payload["until"]:
            turn.note(word("nothing happens: the character is already awake"))
            return
        conditions["unconscious"] = False
        conditions["unconscious_until"] = None
        if turn.sheet["state"] == "down":
            turn.note(
                say(
                    "wakes up at {wounds} wounds: can talk and crawl 10 feet but cannot stand or "
                    "carry equipment",
                    wounds=turn.sheet["wounds"],
                )
            )
        else:
            turn.note(word("wakes up"))

    def _effect_sober_up(self, turn: _Turn, payload: Mapping[str, Any]) -> None:
        conditions = turn.conditions
        if not conditions["drunk"] or conditions["drunk_until"] != payload["until"]:
            turn.note(word("nothing happens: the character is not drunk, or drank more since"))
            return
        conditions["drunk"] = False
        conditions["drunk_until"] = None
        turn.note(word("is sober again"))

    def _privation_check(self, turn: _Turn, payload: Mapping[str, Any], water: bool) -> bool:
        """Shared token checks of starvation and thirst; True when the check applies."""
        flag, since, checks, what = (
            ("thirsty", "water_lacking_since", "thirst_checks", "water")
            if water
            else ("starving", "food_lacking_since", "starvation_checks", "food")
        )
        privation = turn.privation
        if not turn.conditions[flag] or privation[since] != payload["since"]:
            turn.note(
                say("nothing happens: the character has {what} again", what=SUPPLY_WORDS[what])
            )
            return False
        if payload["n"] != privation[checks] + 1:
            turn.note(
                say(
                    "nothing happens: day {n} without {what} was already checked or is not due",
                    n=payload["n"],
                    what=SUPPLY_WORDS[what],
                )
            )
            return False
        privation[checks] = int(payload["n"])
        return True

    def _next_privation(self, turn: _Turn, payload: Mapping[str, Any], water: bool) -> None:
        if turn.dead:
            return
        kind = "thirst" if water else "starvation"
        n = int(payload["n"]) + 1
        turn.schedule(
            f"{kind}_check",
            DAY,
            {"since": payload["since"], "n": n},
            f"{kind}:{payload['since']}:{n}",
        )

    @staticmethod
    def _privation_save(turn: _Turn, payload: Mapping[str, Any], water: bool) -> bool:
        """Ruling OS-7: the day's save vs poison without food or water; True if it passes."""
        n = int(payload["n"])
        reason = say("thirst, day {n}", n=n) if water else say("starvation, day {n}", n=n)
        passed, text = turn.save("poison", reason)
        what = SUPPLY_WORDS["water" if water else "food"]
        turn.note(say("day {n} without {what}: {save}", n=n, what=what, save=text))
        return passed

    def _effect_starvation_check(self, turn: _Turn, payload: Mapping[str, Any]) -> None:
        """Ruling OS-7: a failed save costs a point of Constitution."""
        if not self._privation_check(turn, payload, water=False):
            return
        if not self._privation_save(turn, payload, water=False):
            turn.lose_ability("constitution", 1, permanent=False, privation=True)
        self._next_privation(turn, payload, water=False)

    def _effect_thirst_check(self, turn: _Turn, payload: Mapping[str, Any]) -> None:
        """Ruling OS-7: a failed save halves Constitution; the third failure kills."""
        if not self._privation_check(turn, payload, water=True):
            return
        if not self._privation_save(turn, payload, water=True):
            privation = turn.privation
            privation["thirst_failures"] = min(
                data.THIRST_FAILURES_TO_DIE, privation["thirst_failures"] + 1
            )
            failures = int(privation["thirst_failures"])
            if failures >= data.THIRST_FAILURES_TO_DIE:
                turn.die(word("third failed save without water, OS-7"))
            else:
                constitution = int(turn.sheet["constitution"])
                halved = constitution // 2  # project ruling OS-P5
                turn.note(
                    say(
                        "thirst halves Constitution ({failures} of 3 failed saves)",
                        failures=failures,
                    )
                )
                turn.lose_ability(
                    "constitution", constitution - halved, permanent=False, privation=True
                )
        self._next_privation(turn, payload, water=True)

    def _effect_disease_save(self, turn: _Turn, payload: Mapping[str, Any]) -> None:
        """Ruling OS-6: a save every interval; -2 when not resting at that moment."""
        name = str(payload["disease"])
        entry = self._active_disease(turn.sheet, name)
        if entry is None or entry["contracted_at"] != payload["since"]:
            turn.note(say("nothing happens: the character no longer has {name}", name=name))
            return
        n = int(payload["n"])
        if n != entry["saves_made"] + 1:
            turn.note(
                say(
                    "nothing happens: {name} save {n} was already made or is not due",
                    name=name,
                    n=n,
                )
            )
            return
        entry["saves_made"] = n
        entry["hidden"] = False  # the disease shows itself (ruling G-4)
        total = entry["saves_total"]
        resting = bool(turn.sheet["resting"])
        extra = 0 if resting else data.NOT_RESTING_DISEASE_PENALTY
        passed, text = turn.save(
            "poison", say("{name}, save {n} of {total}", name=name, n=n, total=total), extra
        )
        if resting:
            said = say("{name} save {n} of {total}: {save}", name=name, n=n, total=total, save=text)
        else:
            said = say(
                "{name} save {n} of {total} (not resting): {save}",
                name=name,
                n=n,
                total=total,
                save=text,
            )
        turn.note(said)
        if not passed:
            entry["saves_failed"] += 1
            turn.apply_spec(entry["effect"], name)
        if n >= total:
            if entry in turn.sheet["diseases"]:
                turn.sheet["diseases"].remove(entry)
            if not turn.dead:
                turn.note(
                    say(
                        "{name} has run its course ({failed} failed saves)",
                        name=name,
                        failed=entry["saves_failed"],
                    )
                )
        elif not turn.dead:
            turn.schedule(
                "disease_save",
                int(entry["interval_minutes"]),
                {"disease": name, "since": entry["contracted_at"], "n": n + 1},
                f"disease:{name}:{n + 1}",
            )
