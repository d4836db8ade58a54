"""Condition monitor: the soak test, the ten-box track and its lines, terminal and dying clocks.

The rules read as ``docs/rulesets/condition_monitor.md`` explains them: rulings CM-1..CM-7
and the project rulings CM-P1... it lists, cited beside the code that applies them.

The track is ten boxes; each box holds up to three lines, kept in the order forward
``/``, back ``\\``, horizontal ``-``: ``"/"`` is a normal box, ``"/\\"`` a lethal one,
``"/\\-"`` an aggravated one, and healing leaves partial boxes such as ``"\\"``.
The boxes are always kept in the order of ruling CM-3 (``BOX_ORDER``).

Two clocks run on the campaign clock (ruling G-1), each a scheduled effect whose
payload carries the minute it falls due, the token that must still match the sheet
(``terminal_until``, ``dying_until``) for it to apply: a terminal wound kills five
minutes after it was taken unless stabilized first (CM-5); a dying character who is
not stabilized within the hour leaves the referee a choice (CM-4, G-3).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rules.engine.dice import Dice
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
from rules.engine.odds import Odds, certain, from_die, successes
from rules.engine.turn import Turn
from rules.engine.validation import validate
from rules.engine.words import Message, say, say_plural, word

BOX_COUNT = 10
FORWARD, BACK, BAR = "/", "\\", "-"
LINES = (FORWARD, BACK, BAR)  # the order lines are written in a box
LINE_NAMES: Mapping[str, Message] = {
    FORWARD: word("forward slash"),
    BACK: word("back slash"),
    BAR: word("horizontal bar"),
}
# Ruling CM-3: aggravated, lethal, normal, partial, empty. Partial boxes (left by
# healing) go by how many lines they hold, then by their first line (project ruling CM-P2).
BOX_ORDER: tuple[str, ...] = ("/\\-", "/\\", "/", "/-", "\\-", "\\", "-", "")
_RANK = {box: rank for rank, box in enumerate(BOX_ORDER)}

KINDS = ("normal", "lethal", "aggravated")
KIND_LINES: Mapping[str, tuple[str, ...]] = {  # ruling CM-3
    "normal": (FORWARD,),
    "lethal": (FORWARD, BACK),
    "aggravated": (FORWARD, BACK, BAR),
}
STATES = ("ok", "incapacitated", "dying", "terminal", "dead")
# The state words people read (the party list, refusals); the sheet keeps the keys.
STATE_WORDS: Mapping[str, Message] = {
    "ok": word("ok"),
    "incapacitated": word("incapacitated"),
    "dying": word("dying"),
    "terminal": word("terminal"),
    "dead": word("dead"),
}
# The sheet's fields in words (rules.engine.text.field_words), for the catalogues.
FIELD_WORDS = (
    word("strength"),
    word("willpower"),
    word("indomitable"),
    word("boxes"),
    word("state"),
    word("penalty"),
    word("terminal until"),
    word("dying until"),
)

TERMINAL_MINUTES = 5  # ruling CM-5
DYING_MINUTES = 60  # ruling CM-4
SERIOUS_BOXES = 6  # ruling CM-7: care turns an incapacitating wound into a serious one
EFFECT_TERMINAL = "terminal_wound"
EFFECT_DYING = "dying_hour"
CHOICE_DYING = "dying_hour"
MAX_ATTRIBUTE = 50
MAX_DAMAGE = 1000


@dataclass(frozen=True)
class WoundRow:
    """A row of the net damage table (ruling CM-2)."""

    net: int
    name: str
    boxes: int
    terminal: bool = False


# Ruling CM-2: the text's table. Net damage from 5 up to the campaign's ``death_at``
# (default 8) reads as the terminal row; ``death_at`` and above kill outright.
WOUND_TABLE: tuple[WoundRow, ...] = (
    WoundRow(1, "petty", 1),
    WoundRow(2, "ordinary", 3),
    WoundRow(3, "serious", 6),
    WoundRow(4, "incapacitating", BOX_COUNT),
    WoundRow(5, "terminal", BOX_COUNT, terminal=True),
)
TERMINAL_ROW = WOUND_TABLE[-1]
# A row's wound in a sentence, with its article.
WOUND_WORDS: Mapping[str, Message] = {
    "petty": word("a petty wound"),
    "ordinary": word("an ordinary wound"),
    "serious": word("a serious wound"),
    "incapacitating": word("an incapacitating wound"),
    "terminal": word("a terminal wound"),
}

OPTIONS_SCHEMA: dict[str, Any] = options_schema(
    {
        "soak_die_size": {
            "type": "integer",
            "minimum": 2,
            "maximum": 100,
            "default": 6,
            "title": word("Soak die size"),
            "description": word("Sides of each die of the soak pool."),  # ruling CM-1
        },
        "soak_hit_threshold": {
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "default": 5,
            "title": word("Soak hit threshold"),
            "description": word("A soak die showing this or more is a hit."),  # ruling CM-1
        },
        "death_at": {
            "type": "integer",
            "minimum": TERMINAL_ROW.net,
            "maximum": MAX_DAMAGE,
            "default": 8,
            "title": word("Death at net damage"),
            # Ruling CM-2: the text also says 7 kills outright; the referee may choose it.
            "description": word("Net damage that kills outright."),
        },
    }
)

_MINUTE = {"type": ["integer", "null"], "minimum": 0}
SHEET_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": word("Condition monitor character sheet"),
    "type": "object",
    "properties": {
        "strength": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_ATTRIBUTE,
            "default": 3,
            "description": word("The soak attribute: dice in the soak pool."),  # ruling CM-1
        },
        "willpower": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_ATTRIBUTE,
            "default": 2,
            "description": word("Each point above 2 ignores one box of wound penalty."),  # CM-6
        },
        "indomitable": {
            "type": "boolean",
            "default": False,
            "description": word("Ignores wound penalties completely."),  # ruling CM-6
        },
        "boxes": {
            "type": "array",
            "items": {"enum": list(BOX_ORDER)},
            "minItems": BOX_COUNT,
            "maxItems": BOX_COUNT,
            "description": word(
                "The ten boxes; each holds its lines in the order /, \\, -."
            ),  # CM-3
        },
        "state": {"enum": list(STATES), "default": "ok"},
        "penalty": {
            "type": "integer",
            "minimum": 0,
            "maximum": BOX_COUNT,
            "default": 0,
            "description": word("Wound penalty on the character's actions."),  # ruling CM-6
        },
        "terminal_until": {
            **_MINUTE,
            "description": word(
                "Campaign minute a terminal wound kills unless stabilized."
            ),  # CM-5
        },
        "dying_until": {
            **_MINUTE,
            "description": word("Campaign minute the dying hour ends."),  # ruling CM-4
        },
    },
    "required": [
        "strength",
        "willpower",
        "indomitable",
        "boxes",
        "state",
        "penalty",
        "terminal_until",
        "dying_until",
    ],
    "additionalProperties": False,
}
# Kept by the rules: set by actions and clocks, never given at creation.
MANAGED_FIELDS = ("state", "penalty", "terminal_until", "dying_until")

EFFECT_PAYLOAD_SCHEMA: dict[str, Any] = params_schema(
    {"until": {"type": "integer", "minimum": 0}}, required=("until",)
)

ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(
        key="damage",
        label=word("Take damage"),
        params=params_schema(
            {
                "amount": {"type": "integer", "minimum": 0, "maximum": MAX_DAMAGE},
                "kind": {"type": "string", "enum": list(KINDS), "title": word("Kind of damage")},
                "soak_dice": {  # ruling CM-1, project ruling CM-P1
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_ATTRIBUTE,
                    "title": word("Soak pool"),
                    "description": word(
                        "Dice rolled to soak; leave empty for the character's "
                        "strength, 0 for no soak test."
                    ),
                },
            },
            required=("amount", "kind"),
        ),
        # Rulings CM-1, CM-2, CM-3, CM-4, CM-5.
        description=word(
            "A soak test takes its hits off the damage; what is left marks the boxes and may "
            "leave the character incapacitated, dying, terminally wounded or dead."
        ),
    ),
    ActionSpec(
        key="stabilize",
        label=word("Stabilize"),
        params=params_schema({}),
        # Rulings CM-4, CM-5.
        description=word(
            "Medical intervention in time: a terminal wound becomes an incapacitating one, a "
            "dying character stops dying."
        ),
    ),
    ActionSpec(
        key="heal",
        label=word("Heal lines"),
        params=params_schema(
            {
                "line": {"type": "string", "enum": list(LINES), "title": word("Line to heal")},
                "boxes": {"type": "integer", "minimum": 1, "maximum": BOX_COUNT},
            },
            required=("line", "boxes"),
        ),
        who="referee",
        # Ruling CM-7, project ruling CM-P6.
        description=word("Removes one kind of line from that many boxes, lightest wounds first."),
    ),
    ActionSpec(
        key="medical_care",
        label=word("Medical care or rest"),
        params=params_schema(
            {
                "means": {
                    "type": "string",
                    "enum": ["medical_care", "rest"],
                    "default": "medical_care",
                }
            }
        ),
        who="referee",
        # Ruling CM-7, project ruling CM-P7.
        description=word(
            "An incapacitating wound becomes a serious one: the six worst boxes stay, the four "
            "lightest clear."
        ),
    ),
)


# -- the track, pure functions ---------------------------------------------------------
def box_text(lines: str) -> str:
    """A box's lines written in the order ``/``, ``\\``, ``-``."""
    return "".join(line for line in LINES if line in lines)


def ordered(boxes: Iterable[str]) -> list[str]:
    """The boxes in the order of ruling CM-3."""
    return sorted((box_text(box) for box in boxes), key=_RANK.__getitem__)


def place_line(boxes: list[str], line: str) -> bool:
    """Ruling CM-3: ``line`` goes to the first box that lacks it; False if none does."""
    for index, box in enumerate(boxes):
        if line not in box:
            boxes[index] = box_text(box + line)
            boxes[:] = ordered(boxes)
            return True
    return False


# Project ruling CM-P10: a line of a wound whose forward slash found no room turns a whole
# box, never a partly healed one: the box it may go to, by line.
_TURNS = {BACK: FORWARD, BAR: FORWARD + BACK}


def _turn_whole_box(boxes: list[str], line: str) -> bool:
    """Project ruling CM-P10: a line of a wound that lands on a full track (its forward
    slash found no box without one) goes only to a whole box one step lighter: a back
    slash turns a box "only filled in as Normal" (``/``) lethal, a bar turns a lethal box
    (``/\\``) aggravated. A partly healed box (``/-``...) is never one. False if there is
    none."""
    for index, box in enumerate(boxes):
        if box == _TURNS[line]:
            boxes[index] = box_text(box + line)
            boxes[:] = ordered(boxes)
            return True
    return False


@dataclass(frozen=True)
class Marking:
    """What a wound did to the track (ruling CM-3)."""

    boxes: tuple[str, ...]
    overflow: Mapping[str, int]  # line -> how many had nowhere to go
    turned_lethal: int  # normal `/` that became `\` on a full normal track


def mark_wound(boxes: Sequence[str], kind: str, count: int) -> Marking:
    """Ruling CM-3: ``count`` of each of the kind's lines, each on the first box lacking it.

    All the forward slashes first, then the back slashes, then the bars. Project ruling
    CM-P10: a forward slash with no box lacking one turns the wound's box into a whole
    one instead: a normal wound's becomes a ``\\`` on a box holding only ``/``; for a
    lethal or aggravated wound, its back slash and bar turn whole boxes one step
    (:func:`_turn_whole_box`), never a partly healed box. Any line with nowhere to go is
    overflow.
    """
    track = ordered(boxes)
    overflow = dict.fromkeys(LINES, 0)
    turned = 0
    placed_forward = 0  # the wound's boxes that found room for their forward slash
    for line in KIND_LINES[kind]:
        for index in range(count):
            if line == FORWARD:
                if place_line(track, line):
                    placed_forward += 1
                    continue
                if kind == "normal" and _turn_whole_box(track, BACK):
                    turned += 1
                    continue
            elif index < placed_forward:
                if place_line(track, line):
                    continue
            elif _turn_whole_box(track, line):  # the box found no room: CM-P10
                continue
            overflow[line] += 1
    return Marking(tuple(track), {k: v for k, v in overflow.items() if v}, turned)


def heal_lines(boxes: Sequence[str], line: str, count: int) -> tuple[tuple[str, ...], int]:
    """Ruling CM-7: remove ``line`` from ``count`` boxes, the last boxes that hold it first
    (the lightest wounds, project ruling CM-P6); the track re-ordered. Returns the new
    track and how many boxes lost the line."""
    track = ordered(boxes)
    healed = 0
    for index in range(len(track) - 1, -1, -1):
        if healed == count:
            break
        if line in track[index]:
            track[index] = track[index].replace(line, "")
            healed += 1
    return tuple(ordered(track)), healed


def penalty(boxes: Sequence[str], willpower: int, indomitable: bool) -> int:
    """Ruling CM-6: boxes with ``/``, less Willpower above 2, never below 0; none if
    Indomitable."""
    if indomitable:
        return 0
    marked = sum(1 for box in boxes if FORWARD in box)
    return max(0, marked - max(0, willpower - 2))


def all_marked(boxes: Sequence[str]) -> bool:
    """Ruling CM-4: every box has a mark: incapacitated."""
    return all(boxes)


def all_back(boxes: Sequence[str]) -> bool:
    """Ruling CM-4: every box has ``\\``: dying unless stabilized."""
    return all(BACK in box for box in boxes)


def wound_row(net: int, death_at: int) -> WoundRow | None:
    """Ruling CM-2: the row for ``net`` >= 1 damage, or None for death."""
    if net >= death_at:
        return None
    for row in WOUND_TABLE:
        if row.net == net:
            return row
    return TERMINAL_ROW  # 5 up to death_at - 1


def track_text(boxes: Sequence[str]) -> str:
    """The track as the text draws it, for summaries: ``[X][X][/][ ]...``."""
    return "".join(f"[{box_picture(box)}]" for box in boxes)


def track_said(boxes: Sequence[str]) -> Message:
    """The track in a summary: "track [X][/][ ]..."."""
    return say("track {track}", track=track_text(boxes))


def box_kind(box: str) -> str:
    """What a box shows: aggravated, lethal, normal, partial (healed in part) or empty."""
    return {"/\\-": "aggravated", "/\\": "lethal", "/": "normal", "": "empty"}.get(
        box_text(box), "partial"
    )


def box_picture(box: str) -> str:
    """A box as the text writes it: ``X-`` aggravated, ``X`` lethal, ``/`` normal, or its lines."""
    if box == "/\\-":
        return "X-"
    if FORWARD in box and BACK in box:
        return "X"
    return box or " "


def lines_count(line: str, count: int) -> Message:
    """``count`` lines of one kind in words: "1 forward slash", "3 back slashes"."""
    if line == FORWARD:
        return say_plural("{count} forward slash", "{count} forward slashes", count)
    if line == BACK:
        return say_plural("{count} back slash", "{count} back slashes", count)
    return say_plural("{count} horizontal bar", "{count} horizontal bars", count)


def kind_boxes(kind: str, count: int) -> Message:
    """``count`` boxes of a wound's kind in words: "1 normal box", "6 lethal boxes"."""
    if kind == "normal":
        return say_plural("{count} normal box", "{count} normal boxes", count)
    if kind == "lethal":
        return say_plural("{count} lethal box", "{count} lethal boxes", count)
    return say_plural("{count} aggravated box", "{count} aggravated boxes", count)


def takes_damage(kind: str, amount: int) -> Message:
    """What a character takes, by kind: "takes 4 lethal damage"."""
    if kind == "normal":
        return say("takes {amount} normal damage", amount=amount)
    if kind == "lethal":
        return say("takes {amount} lethal damage", amount=amount)
    return say("takes {amount} aggravated damage", amount=amount)


def stabilize_first(state: str) -> Message:
    """The refusal of care while the character is dying or terminal (ruling CM-7)."""
    if state == "dying":
        return word("The character is dying: stabilize them first.")
    return word("The character is terminal: stabilize them first.")


NO_WOUND = word("no wound")
STILL_TERMINAL = word("is still dying of the terminal wound")
NEITHER_DYING = word("The character is neither dying nor terminally wounded.")
TERMINAL_FIRST = word("The character is terminally wounded: stabilize them first.")
NOT_INCAPACITATED = word("The character is not incapacitated: care has no wound to reduce.")
# The refusals of every action to a dead character, by action.
DEAD_CANNOT: Mapping[str, Message] = {
    "damage": word("The character is dead and cannot take damage."),
    "stabilize": word("The character is dead and cannot be stabilized."),
    "heal": word("The character is dead and cannot heal."),
    "medical_care": word("The character is dead and cannot receive care."),
    "choice": word("The character is dead and cannot answer a choice."),
}


def clock_effect(kind: str, until: int, clock: int) -> ScheduledEffect:
    """A terminal or dying clock due at campaign minute ``until`` (rulings CM-4, CM-5)."""
    return ScheduledEffect(
        kind=kind, due_in=until - clock, payload={"until": until}, key=f"{kind}:{until}"
    )


def clock_keys(sheet: Mapping[str, Any]) -> tuple[str, ...]:
    """Keys of the clocks the sheet is waiting for."""
    keys = []
    if sheet["terminal_until"] is not None:
        keys.append(f"{EFFECT_TERMINAL}:{sheet['terminal_until']}")
    if sheet["dying_until"] is not None:
        keys.append(f"{EFFECT_DYING}:{sheet['dying_until']}")
    return tuple(keys)


class _Turn(Turn):
    """One resolution's scratchpad, with the terminal and dying clocks."""

    def stop_clocks(self) -> None:
        self.cancels.extend(clock_keys(self.sheet))
        self.sheet["terminal_until"] = None
        self.sheet["dying_until"] = None

    def die(self, why: Message) -> None:
        self.stop_clocks()
        self.sheet["state"] = "dead"
        self.notes.append(say("dies: {why}", why=why))

    def start_terminal(self) -> None:
        """Ruling CM-5: five minutes to live unless stabilized; any dying hour is moot."""
        self.stop_clocks()
        until = self.context.clock + TERMINAL_MINUTES
        self.sheet["state"] = "terminal"
        self.sheet["terminal_until"] = until
        self.effects.append(clock_effect(EFFECT_TERMINAL, until, self.context.clock))
        self.notes.append(
            say_plural(
                "dies in {count} minute unless stabilized",
                "dies in {count} minutes unless stabilized",
                TERMINAL_MINUTES,
            )
        )

    def start_dying(self) -> None:
        """Ruling CM-4: every box has ``\\``: an hour for intervention."""
        until = self.context.clock + DYING_MINUTES
        self.sheet["state"] = "dying"
        self.sheet["dying_until"] = until
        self.effects.append(clock_effect(EFFECT_DYING, until, self.context.clock))
        self.notes.append(word("is dying: every box holds a back slash; stabilize within the hour"))

    def settle(self) -> None:
        """After the track changed without a new wound: incapacitated, ok, or dying no more."""
        sheet = self.sheet
        if sheet["state"] in ("dead", "terminal"):
            return
        boxes = sheet["boxes"]
        if sheet["state"] == "dying":
            if all_back(boxes):
                return  # still a back slash in every box: the hour runs on
            self.stop_clocks()
            self.notes.append(word("is no longer dying"))
        sheet["state"] = "incapacitated" if all_marked(boxes) else "ok"

    def finish(self) -> None:
        sheet = self.sheet
        sheet["penalty"] = penalty(sheet["boxes"], sheet["willpower"], sheet["indomitable"])
        self.outcome.update({"state": sheet["state"], "penalty": sheet["penalty"]})
        if sheet["state"] != "dead":
            self.notes.append(say("wound penalty {penalty}", penalty=sheet["penalty"]))


# What condition monitor resolutions find (Ruleset.outcome_properties): damage, soak
# and overflow, the clocks of a terminal or dying character, healing.
_INT = {"type": "integer"}
_TEXT = {"type": "string"}
OUTCOME_PROPERTIES: Mapping[str, Any] = {
    "amount": _INT,
    "answer": _TEXT,
    "boxes": _INT,
    "cleared": {"type": "array", "items": _TEXT},
    "clock": _TEXT,
    "dies_at": _INT,
    "dying_until": _INT,
    "healed": _INT,
    "hits": _INT,
    "kind": _TEXT,
    "line": _TEXT,
    "means": _TEXT,
    "net": _INT,
    "overflow": {
        "type": "object",
        "description": "Overflow boxes by mark: / (normal), \\ (lethal).",
        "additionalProperties": _INT,
    },
    "penalty": _INT,
    "soak_dice": _INT,
    "stabilized": _TEXT,
    "state": _TEXT,
    "turned_lethal": _INT,
    "wound": {"type": ["string", "null"]},
}


class ConditionMonitor(Ruleset):
    """Wounds on a ten-box condition monitor (``docs/rulesets/condition_monitor.md``)."""

    key = "condition_monitor"
    name = word("Condition monitor")
    blurb = word(
        "Soak the damage, then mark ten boxes; terminal and dying wounds run against the clock."
    )
    creation_fields = ("strength", "willpower", "indomitable")
    sheet_schema: ClassVar[Mapping[str, Any]] = SHEET_SCHEMA
    actions: ClassVar[tuple[ActionSpec, ...]] = ACTIONS
    outcome_properties: ClassVar[Mapping[str, Any]] = OUTCOME_PROPERTIES
    options_schema: ClassVar[Mapping[str, Any]] = OPTIONS_SCHEMA
    effect_payloads: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        EFFECT_TERMINAL: EFFECT_PAYLOAD_SCHEMA,
        EFFECT_DYING: EFFECT_PAYLOAD_SCHEMA,
    }

    # -- sheets -------------------------------------------------------------------------
    def default_sheet(self) -> Sheet:
        return {
            "strength": 3,
            "willpower": 2,
            "indomitable": False,
            "boxes": [""] * BOX_COUNT,
            "state": "ok",
            "penalty": 0,
            "terminal_until": None,
            "dying_until": None,
        }

    def new_sheet(self, initial: Mapping[str, Any], dice: Dice) -> Sheet:
        """Defaults, then ``initial``; the boxes put in CM-3 order, state and penalty derived.

        A new character may start wounded but not dying (project ruling CM-P8): the
        dying hour starts with the wound, on the campaign clock.
        """
        self.refuse_managed(initial, MANAGED_FIELDS)
        sheet = self.default_sheet()
        sheet.update(copy.deepcopy(dict(initial)))
        validate(sheet, self.sheet_schema, "sheet")
        boxes = ordered(sheet["boxes"])
        if all_back(boxes):
            raise RuleError(
                word(
                    "a new character cannot start with a back slash in every box (dying): "
                    "create them wounded less, then apply the wound"
                )
            )
        sheet["boxes"] = boxes
        sheet["state"] = "incapacitated" if all_marked(boxes) else "ok"
        sheet["penalty"] = penalty(boxes, sheet["willpower"], sheet["indomitable"])
        self.validate_sheet(sheet)
        return sheet

    def validate_sheet(
        self, sheet: Mapping[str, Any], valid: Mapping[str, Any] | None = None
    ) -> None:
        """The schema, then the track invariants (rulings CM-3, CM-4, CM-5, CM-6)."""
        super().validate_sheet(sheet, valid)
        problems: list[Message] = []
        boxes = sheet["boxes"]
        state = sheet["state"]
        if list(boxes) != ordered(boxes):
            problems.append(
                word("boxes: not in the order aggravated, lethal, normal, partial, empty")
            )
        if sheet["penalty"] != penalty(boxes, sheet["willpower"], sheet["indomitable"]):
            problems.append(word("penalty: does not match the boxes and willpower"))
        if (sheet["terminal_until"] is not None) != (state == "terminal"):
            problems.append(word("terminal_until: set exactly while terminal"))
        if (sheet["dying_until"] is not None) != (state == "dying"):
            problems.append(word("dying_until: set exactly while dying"))
        if state in ("incapacitated", "dying", "terminal") and not all_marked(boxes):
            problems.append(say("state: {state} needs every box marked", state=STATE_WORDS[state]))
        if state == "dying" and not all_back(boxes):
            problems.append(word("state: dying needs a back slash in every box"))
        if state == "ok" and all_marked(boxes):
            problems.append(word("state: every box is marked, so the character is not ok"))
        if problems:
            raise RuleError(
                say(
                    "invalid sheet: {problems}",
                    problems=Message("", parts=problems, separator="; "),
                )
            )

    def unavailable(self, sheet: Mapping[str, Any], action: str) -> str | None:
        """The same refusals as the actions' own checks, said before anyone tries: a dead
        character takes none (issue 24: the page offered them, each a 409)."""
        state = sheet["state"]
        if state == "dead":
            return word("The character is dead.")
        if action == "stabilize" and state not in ("terminal", "dying"):
            return NEITHER_DYING
        if action == "heal":
            if state == "terminal":
                return TERMINAL_FIRST
            if not any(sheet["boxes"]):
                return word("No box holds a wound to heal.")
        if action == "medical_care":
            if state in ("terminal", "dying"):
                return stabilize_first(state)
            if not all_marked(sheet["boxes"]):
                return NOT_INCAPACITATED
        return None

    def correction_follows(self, sheet: Mapping[str, Any], asked: frozenset[str]) -> dict[str, Any]:
        """Project ruling CM-P11: what the rules keep follows a correction. The penalty is
        the one the boxes, Willpower and Indomitability give (CM-6); corrected boxes make
        an ok or incapacitated character whichever the track says (CM-4); a state
        corrected away from dying or terminal ends that countdown (its clock then does
        nothing, as after stabilizing)."""
        follows: dict[str, Any] = {}
        boxes, state = sheet["boxes"], sheet["state"]
        if "penalty" not in asked:
            follows["penalty"] = penalty(boxes, sheet["willpower"], sheet["indomitable"])
        if "boxes" in asked and "state" not in asked and state in ("ok", "incapacitated"):
            follows["state"] = "incapacitated" if all_marked(boxes) else "ok"
        if "state" in asked:
            for field, needs in (("terminal_until", "terminal"), ("dying_until", "dying")):
                if state != needs and field not in asked:
                    follows[field] = None
        return follows

    def out_of_bounds(self, sheet: Mapping[str, Any]) -> tuple[OutOfBounds, ...]:
        """Project ruling CM-P11: the track's own invariants (CM-3 to CM-6) are its
        bounds: the boxes in order, the penalty they give, the state they allow, a
        countdown exactly while dying or terminal."""
        boxes, state = sheet["boxes"], sheet["state"]
        problems = []
        if list(boxes) != ordered(boxes):
            problems.append(
                OutOfBounds(("boxes",), word("the boxes are not in the order of the track"))
            )
        right = penalty(boxes, sheet["willpower"], sheet["indomitable"])
        if sheet["penalty"] != right:
            problems.append(
                OutOfBounds(
                    ("penalty", "boxes", "willpower", "indomitable"),
                    say(
                        "penalty {penalty} is not the {right} the boxes give",
                        penalty=sheet["penalty"],
                        right=right,
                    ),
                )
            )
        for field, needs in (("terminal_until", "terminal"), ("dying_until", "dying")):
            if (sheet[field] is not None) != (state == needs):
                problems.append(
                    OutOfBounds(
                        (field, "state"),
                        say(
                            "{field} is set exactly while the state is {needs}, not {state}",
                            field=field,
                            needs=STATE_WORDS[needs],
                            state=STATE_WORDS[state],
                        ),
                    )
                )
        if state in ("incapacitated", "dying", "terminal") and not all_marked(boxes):
            problems.append(
                OutOfBounds(
                    ("state", "boxes"),
                    say("the state {state} needs every box marked", state=STATE_WORDS[state]),
                )
            )
        if state == "dying" and not all_back(boxes):
            problems.append(
                OutOfBounds(
                    ("state", "boxes"), word("the state dying needs a back slash in every box")
                )
            )
        if state == "ok" and all_marked(boxes):
            problems.append(
                OutOfBounds(("state", "boxes"), word("every box is marked: the state is not ok"))
            )
        return tuple(problems)

    def status(self, sheet: Mapping[str, Any]) -> str:
        """The state word: ok, incapacitated, dying, terminal or dead."""
        return STATE_WORDS[sheet["state"]]

    @staticmethod
    def _check_alive(sheet: Mapping[str, Any], doing: str) -> None:
        """``doing``: the action (or "choice") a dead character cannot take."""
        if sheet["state"] == "dead":
            raise ActionBlocked(DEAD_CANNOT[doing])

    def _turn(self, sheet: Sheet, dice: Dice, context: Context, doing: str) -> _Turn:
        self._check_alive(sheet, doing)
        return _Turn(sheet, dice, context)

    # -- actions --------------------------------------------------------------------------
    def action_damage(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """Rulings CM-1 (soak), CM-2 (net damage), CM-3 (lines), CM-4 and CM-5 (states)."""
        turn = self._turn(sheet, dice, context, "damage")
        amount, kind = int(params["amount"]), str(params["kind"])
        pool: int = params["soak_dice"] if "soak_dice" in params else sheet["strength"]
        turn.notes.append(takes_damage(kind, amount))
        hits = 0
        if amount > 0 and pool > 0:
            size = int(self.option(context, "soak_die_size"))
            threshold = int(self.option(context, "soak_hit_threshold"))
            if threshold > size:
                raise RuleError(
                    say(
                        "The campaign's soak dice (d{size}) cannot hit on {threshold} or more.",
                        size=size,
                        threshold=threshold,
                    )
                )
            # The English says "dice" for one die too (as it always did).
            label = say_plural("Soak test ({count} dice)", "Soak test ({count} dice)", pool)
            roll = dice.roll(f"{pool}d{size}>={threshold}", label)
            hits = roll.total
            turn.notes.append(
                say(
                    "soak test {pool}d{size} rolls {faces}: {hits}",
                    pool=pool,
                    size=size,
                    faces=list(roll.dice),
                    hits=say_plural("{count} hit", "{count} hits", hits),
                )
            )
        elif amount > 0:
            turn.notes.append(word("no soak test"))
        net = amount - hits  # ruling CM-1
        turn.outcome.update({"amount": amount, "kind": kind, "soak_dice": pool, "hits": hits})
        turn.outcome["net"] = max(0, net)
        if net <= 0:
            turn.notes.append(NO_WOUND if amount else word("no harm done"))
            turn.outcome["wound"] = None
            return turn.result()
        death_at = int(self.option(context, "death_at"))
        row = wound_row(net, death_at)
        if row is None:  # ruling CM-2; the track is left as it was (project ruling CM-P3)
            turn.outcome["wound"] = "death"
            turn.die(say("net damage {net} kills outright", net=net))
            return turn.result()
        marking = mark_wound(sheet["boxes"], kind, row.boxes)
        sheet["boxes"] = list(marking.boxes)
        turn.outcome.update(
            {
                "wound": row.name,
                "boxes": row.boxes,
                "overflow": dict(marking.overflow),
                "turned_lethal": marking.turned_lethal,
            }
        )
        turn.notes.append(
            say(
                "net damage {net}: {wound}, {boxes}",
                net=net,
                wound=WOUND_WORDS[row.name],
                boxes=kind_boxes(kind, row.boxes),
            )
        )
        if marking.turned_lethal:
            turn.notes.append(
                say_plural(
                    "{count} normal box turns lethal on the full track",
                    "{count} normal boxes turn lethal on the full track",
                    marking.turned_lethal,
                )
            )
        if marking.overflow:
            dropped = [lines_count(line, count) for line, count in marking.overflow.items()]
            turn.notes.append(say("no room left for {lines}", lines=dropped))
        turn.notes.append(track_said(sheet["boxes"]))
        self._after_wound(turn, row)
        return turn.result()

    def odds_damage(self, sheet: Sheet, params: Params, context: Context) -> Odds:
        """The wound the damage leaves, exactly: the soak pool's hits are binomial
        (ruling CM-1), each number of hits a net damage and a row of the table (CM-2)."""
        self._check_alive(sheet, "damage")  # as the action: 409
        amount = int(params["amount"])
        pool: int = params["soak_dice"] if "soak_dice" in params else sheet["strength"]
        death_at = int(self.option(context, "death_at"))

        def wound(hits: int) -> tuple[str, str]:
            net = amount - hits
            row = wound_row(net, death_at) if net > 0 else None
            if net <= 0:
                return "none", NO_WOUND
            if row is None:
                return "death", say("death (net damage {net})", net=net)
            return row.name, WOUND_WORDS[row.name]

        if amount == 0 or pool == 0:
            key, label = wound(0)
            return certain("damage", say("No soak test: {wound}.", wound=label), key=key)
        size = int(self.option(context, "soak_die_size"))
        threshold = int(self.option(context, "soak_hit_threshold"))
        hits = successes(pool, size, threshold)  # binomial, computed once per pool
        note = say(
            "Soak test: {pool}d{size}, each die showing {threshold} or more takes a point off.",
            pool=pool,
            size=size,
            threshold=threshold,
        )
        return from_die("damage", hits, wound, notes=(note,))

    @staticmethod
    def _after_wound(turn: _Turn, row: WoundRow) -> None:
        """The state a new wound leaves (rulings CM-4, CM-5; project ruling CM-P4)."""
        sheet = turn.sheet
        boxes = sheet["boxes"]
        if row.terminal:
            if sheet["state"] == "terminal":  # the first deadline stands (CM-P4)
                turn.notes.append(STILL_TERMINAL)
            else:
                turn.start_terminal()
        elif sheet["state"] == "terminal":
            turn.notes.append(STILL_TERMINAL)
        elif all_back(boxes):
            if sheet["state"] == "dying":  # the hour already running stands (CM-P4)
                turn.notes.append(word("is still dying"))
            else:  # a new wound on a stabilized track starts a new hour (CM-P4)
                turn.start_dying()
        else:
            sheet["state"] = "incapacitated" if all_marked(boxes) else "ok"
            if sheet["state"] == "incapacitated":
                turn.notes.append(word("is incapacitated"))
        if sheet["terminal_until"] is not None:
            turn.outcome["dies_at"] = sheet["terminal_until"]
        if sheet["dying_until"] is not None:
            turn.outcome["dying_until"] = sheet["dying_until"]

    def action_stabilize(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Rulings CM-4 and CM-5: medical intervention before the clock runs out."""
        turn = self._turn(sheet, dice, context, "stabilize")
        state = sheet["state"]
        if state not in ("terminal", "dying"):
            raise RuleError(NEITHER_DYING)
        until = sheet["terminal_until"] if state == "terminal" else sheet["dying_until"]
        if context.clock >= until:  # the clock's effect decides now
            raise ActionBlocked(word("Too late: the time to stabilize the character has run out."))
        turn.stop_clocks()
        sheet["state"] = "incapacitated"
        if state == "terminal":
            turn.notes.append(
                word("is stabilized: the terminal wound is now an incapacitating one")
            )
        else:
            turn.notes.append(word("is stabilized and stops dying"))
        turn.outcome["stabilized"] = state
        return turn.result()

    def action_heal(self, sheet: Sheet, params: Params, dice: Dice, context: Context) -> Result:
        """Ruling CM-7; a terminal character must be stabilized first (project ruling CM-P5)."""
        turn = self._turn(sheet, dice, context, "heal")
        if sheet["state"] == "terminal":
            raise ActionBlocked(TERMINAL_FIRST)
        line, count = str(params["line"]), int(params["boxes"])
        boxes, healed = heal_lines(sheet["boxes"], line, count)
        if healed == 0:
            raise RuleError(say("No box holds a {line} to heal.", line=LINE_NAMES[line]))
        sheet["boxes"] = list(boxes)
        if healed < count:
            heals = say_plural(
                "heals the {line} from {count} box (only {count} held one)",
                "heals the {line} from {count} boxes (only {count} held one)",
                healed,
                line=LINE_NAMES[line],
            )
        else:
            heals = say_plural(
                "heals the {line} from {count} box",
                "heals the {line} from {count} boxes",
                healed,
                line=LINE_NAMES[line],
            )
        turn.notes.append(heals)
        turn.notes.append(track_said(boxes))
        turn.outcome.update({"line": line, "healed": healed})
        turn.settle()
        return turn.result()

    def action_medical_care(
        self, sheet: Sheet, params: Params, dice: Dice, context: Context
    ) -> Result:
        """Ruling CM-7: an incapacitating wound becomes a serious one (project ruling CM-P7)."""
        turn = self._turn(sheet, dice, context, "medical_care")
        if sheet["state"] in ("terminal", "dying"):
            raise ActionBlocked(stabilize_first(sheet["state"]))
        if not all_marked(sheet["boxes"]):
            raise RuleError(NOT_INCAPACITATED)
        boxes = ordered(sheet["boxes"])
        cleared = boxes[SERIOUS_BOXES:]
        sheet["boxes"] = boxes[:SERIOUS_BOXES] + [""] * (BOX_COUNT - SERIOUS_BOXES)
        means = "medical care" if params.get("means", "medical_care") == "medical_care" else "rest"
        clear = BOX_COUNT - SERIOUS_BOXES
        if means == "medical care":
            turn.notes.append(
                say_plural(
                    "medical care turns the incapacitating wound into a serious one: "
                    "{count} box clears",
                    "medical care turns the incapacitating wound into a serious one: "
                    "{count} boxes clear",
                    clear,
                )
            )
        else:
            turn.notes.append(
                say_plural(
                    "rest turns the incapacitating wound into a serious one: {count} box clears",
                    "rest turns the incapacitating wound into a serious one: {count} boxes clear",
                    clear,
                )
            )
        turn.notes.append(track_said(sheet["boxes"]))
        turn.outcome.update({"means": means, "cleared": cleared})
        turn.settle()
        return turn.result()

    # -- the clocks -------------------------------------------------------------------------
    def finish_effect(
        self, sheet: Sheet, kind: str, payload: Params, dice: Dice, context: Context
    ) -> Result:
        """``terminal_wound`` (CM-5) and ``dying_hour`` (CM-4), each applying only while
        its minute still matches the sheet: a stabilized or dead character is spared."""
        turn = _Turn(sheet, dice, context)
        until = int(payload["until"])
        state = turn.sheet["state"]
        if kind == EFFECT_TERMINAL:
            if state == "terminal" and turn.sheet["terminal_until"] == until:
                turn.die(word("the terminal wound was not stabilized in time"))
            else:
                turn.notes.append(word("the terminal wound's five minutes pass harmlessly"))
        elif state == "dying" and turn.sheet["dying_until"] == until:
            turn.notes.append(word("the hour passes without intervention; the referee decides"))
            turn.pending = PendingChoice(
                kind=CHOICE_DYING,
                prompt=word(
                    "The hour has passed and no one stabilized the character. "
                    "Does the character stabilize by itself, or die?"
                ),
                options=(
                    ChoiceOption("stabilizes", word("Stabilizes by itself")),
                    ChoiceOption("dies", word("Degrades to death")),
                ),
                state={"until": until},
                who="referee",
            )
        else:
            turn.notes.append(word("the dying hour passes harmlessly"))
        turn.outcome["clock"] = kind
        return turn.result()

    def choice_dying_hour(
        self, sheet: Sheet, choice: PendingChoice, option: str, dice: Dice, context: Context
    ) -> Result:
        """The referee's answer when the dying hour has passed (ruling CM-4)."""
        turn = self._turn(sheet, dice, context, "choice")
        if sheet["state"] != "dying" or sheet["dying_until"] != choice.state.get("until"):
            raise RuleError(word("The character is no longer dying of that wound."))
        if option == "dies":
            turn.die(word("the wounds degrade to death"))
        else:
            turn.stop_clocks()
            sheet["state"] = "incapacitated"
            turn.notes.append(word("stabilizes by itself"))
        turn.outcome["answer"] = option
        return turn.result()
