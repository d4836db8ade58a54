"""The one small interface every ruleset implements.

A ruleset takes a sheet, an action, its params and a dice service, and returns an
immutable :class:`Result`: the new sheet, the rolls, a one-line summary, any pending
choice (ruling G-3) and any effects to schedule on the campaign clock. It never
touches storage; ``rules/play/services.py`` persists the result under a lock.

To add a ruleset: subclass :class:`Ruleset` in ``rules/engine/rulesets/<key>.py`` and
list it in ``rules/engine/registry.py``; its presentation goes in ``web/rulesets/<key>.py``
and its page in ``docs/rulesets/<key>.md`` (the whole recipe: ``docs/adding-a-ruleset.md``).
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rules.engine.data import (
    RESEAL_EFFECT,
    ActionBlocked,
    ChoiceOption,
    Correction,
    CorrectionRefused,
    OddsUnavailable,
    OutOfBounds,
    Params,
    PendingChoice,
    Result,
    RuleError,
    ScheduledEffect,
    Sheet,
    Who,
)
from rules.engine.dice import Dice
from rules.engine.odds import Odds, TooManyPaths, certain, enumerate_draws, grouped
from rules.engine.schemas import (
    COMMON_OUTCOME_PROPERTIES,
    OPTION_INT_LIMIT,
    ActionSpec,
    json_type,
    options_schema,
    outcome_schema,
    params_schema,
)
from rules.engine.text import field_words, value_words
from rules.engine.validation import copy_json, is_valid_fast, validate
from rules.engine.words import Message, as_sentence, capitalised, lowered, say, word

# What a ruleset module needs is importable from here, the interface it implements; the
# values themselves live in rules.engine.data and the schema helpers in
# rules.engine.schemas.
__all__ = [
    "COMMON_OUTCOME_PROPERTIES",
    "OPTION_INT_LIMIT",
    "RESEAL_EFFECT",
    "ActionBlocked",
    "ActionSpec",
    "ChoiceOption",
    "Context",
    "Correction",
    "CorrectionRefused",
    "OddsUnavailable",
    "OutOfBounds",
    "Params",
    "PendingChoice",
    "Result",
    "RuleError",
    "Ruleset",
    "ScheduledEffect",
    "Sheet",
    "Who",
    "options_schema",
    "outcome_schema",
    "params_schema",
]

# What a sheet's check calls it in its refusal ("invalid sheet: ...").
SHEET = word("sheet")

# The most ways for the dice to fall that Ruleset.odds walks through the real rules
# (each a full resolution on a copy); past it a ruleset computes the odds with icepool.
ODDS_PATH_LIMIT = 256


@dataclass(frozen=True)
class Context:
    """What a ruleset may know about the world besides the sheet."""

    clock: int = 0  # in-game minutes (ruling G-1)
    options: Mapping[str, Any] = field(default_factory=dict)  # campaign options
    by_referee: bool = False
    # The campaign's copies of the ruleset's editable tables (critical injuries,
    # diseases...), keyed as in ``Ruleset.tables``; a missing key means the default.
    tables: Mapping[str, Any] = field(default_factory=dict)

    def table(self, ruleset: Ruleset, key: str) -> Any:
        """The campaign's copy of table ``key``, or the ruleset's default."""
        if key in self.tables:
            return self.tables[key]
        return copy.deepcopy(ruleset.tables[key])


def _capitalised(text: str) -> str:
    """``text`` with a capital first: a summary sentence (:func:`rules.engine.text.sentence`)
    has one already, and stays the message it is."""
    if text[:1] == text[:1].upper():
        return text
    if isinstance(text, Message) and text.endswith((".", "!", "?")):
        return as_sentence(text)
    return text[:1].upper() + text[1:]


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: ``True`` is not ``1``, ``1`` is ``1.0`` (numbers are made whole first)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


ActionHandler = Callable[[Sheet, Params, Dice, Context], Result]
OddsHandler = Callable[[Sheet, Params, Context], Odds]
ChoiceHandler = Callable[[Sheet, PendingChoice, str, Dice, Context], Result]


class Ruleset(abc.ABC):
    """Base class: one subclass per rule system, listed in the registry.

    Subclasses set ``key``, ``name``, ``blurb``, ``sheet_schema``, ``creation_fields``,
    ``actions`` (and ``options_schema``, ``tables``, ``effect_payloads`` if any) and
    implement :meth:`default_sheet`, :meth:`status` and one ``action_<key>`` method per
    action. Those with choices override :meth:`finish_choice`; those with scheduled
    effects list them in ``effect_payloads`` and write one ``effect_<kind>`` method each (or
    override :meth:`finish_effect`); those with secret state override
    :meth:`public_sheet`. The base class checks params, payloads, options and sheets,
    and fills in each result's rolls.
    """

    key: ClassVar[str]
    name: ClassVar[str]
    # One line for referees choosing a ruleset for a new campaign.
    blurb: ClassVar[str]
    sheet_schema: ClassVar[Mapping[str, Any]]
    # The sheet fields a new character's form asks for (the rest take their defaults).
    creation_fields: ClassVar[tuple[str, ...]]
    actions: ClassVar[tuple[ActionSpec, ...]]
    # The campaign options: a closed JSON Schema object whose every property has a
    # ``default`` (and a ``title`` and ``description`` the options form shows); build it
    # with :func:`options_schema`. Checked once when a campaign is created or changed
    # (:meth:`check_options`), and read back with :meth:`option`.
    options_schema: ClassVar[Mapping[str, Any]] = {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }
    # What the ruleset's resolutions find (``Result.outcome``, the log's ``outcome``):
    # fact -> JSON Schema, each fact optional. :attr:`outcome_schema` closes it with the
    # facts every ruleset may log; rules/engine/tests/test_outcome_schemas.py checks
    # every outcome of random play against it.
    outcome_properties: ClassVar[Mapping[str, Any]] = {}
    # The options' defaults, taken from ``options_schema`` (never written by hand).
    options: ClassVar[Mapping[str, Any]] = {}
    # The effects the ruleset schedules on the campaign clock: kind -> JSON Schema of
    # the payload (see :meth:`apply_effect`).
    effect_payloads: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    # Editable tables with their default data (JSON); each campaign gets a copy the
    # referee can edit (rules.log.models.CampaignTable).
    tables: ClassVar[Mapping[str, Any]] = {}
    # JSON Schemas (2020-12) of the editable tables, as far as JSON Schema can say what
    # :meth:`validate_table` checks; the API's schema shows them (:meth:`table_schema`).
    table_schemas: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    # The smallest ``initial`` that :meth:`new_sheet` accepts: empty unless the sheet
    # has a field without a default (a warband unit needs its warband's name).
    example_initial: ClassVar[Mapping[str, Any]] = {}
    # Whether an action without ``odds_<action>`` may be resolved on a copy with dice
    # that refuse to roll to tell its certain result. False where a result depends on
    # secret state rather than dice (deckahedron's deck order): that would reveal it.
    odds_by_resolving: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        properties = cls.options_schema.get("properties", {})
        cls.options = {key: copy.deepcopy(prop["default"]) for key, prop in properties.items()}

    # -- sheets -----------------------------------------------------------------
    @abc.abstractmethod
    def default_sheet(self) -> Sheet:
        """A fresh sheet with every field at its default."""

    def new_sheet(self, initial: Mapping[str, Any], dice: Dice) -> Sheet:
        """A new character's sheet: defaults, overridden by ``initial``, validated."""
        sheet = self.default_sheet()
        sheet.update(copy.deepcopy(dict(initial)))
        self.validate_sheet(sheet)
        return sheet

    @staticmethod
    def refuse_managed(initial: Mapping[str, Any], managed_fields: tuple[str, ...]) -> None:
        """Refuse a new character's ``initial`` values that set a field the rules keep
        themselves (a state, a penalty, a clock's token): :meth:`new_sheet` derives them."""
        managed = sorted(set(initial) & set(managed_fields))
        if managed:
            raise RuleError(
                say(
                    "these fields are kept by the rules and cannot be set at creation: {fields}",
                    fields=managed,
                )
            )

    def initial_effects(self, sheet: Mapping[str, Any]) -> tuple[ScheduledEffect, ...]:
        """Effects a new character starts with on the clock (aging birthdays...)."""
        return ()

    def validate_table(self, key: str, data: Any) -> None:
        """Check a referee's edit of table ``key``; by default, same JSON shape as the default.

        Rulesets with richer tables override this with a real schema check.
        """
        if key not in self.tables:
            raise RuleError(
                say("ruleset {ruleset} has no table {table}", ruleset=self.key, table=repr(key))
            )
        default = self.tables[key]
        if type(data) is not type(default):
            raise RuleError(
                say(
                    "table {table} must be a JSON {kind}",
                    table=repr(key),
                    kind=type(default).__name__,
                )
            )

    def table_schema(self, key: str) -> dict[str, Any]:
        """JSON Schema of table ``key``: the ruleset's, or the JSON type of its default."""
        if key in self.table_schemas:
            return copy.deepcopy(dict(self.table_schemas[key]))
        return {"type": json_type(self.tables[key])}

    def validate_sheet(
        self, sheet: Mapping[str, Any], valid: Mapping[str, Any] | None = None
    ) -> None:
        """Refuse an invalid sheet (a :class:`RuleError` in words). ``valid``: the sheet
        ``sheet`` was made from, valid (a stored sheet): the schema checks only the
        properties that differ from it (issue 39: the catch-up checks every new sheet);
        the ruleset's own checks (its override) see the whole sheet."""
        validate(sheet, self.sheet_schema, SHEET, valid=valid)

    def correct(self, sheet: Mapping[str, Any], changes: Mapping[str, Any]) -> Correction:
        """A referee's correction of sheet fields (rules.play.editing), as the rules take it.

        The fields asked for are set; what follows from them by the ruleset's own rules is
        set too (:meth:`correction_follows`: a state the numbers decide, a value kept by the
        rules); the sheet must then be valid and inside the ruleset's bounds wherever the
        correction touched it (:meth:`out_of_bounds`). Otherwise a :class:`RuleError` in
        words, and nothing changes. A correction that sets every field to the value it has
        already is refused too: it would log a change that changes nothing (issue 34).
        """
        unknown = sorted(set(changes) - set(sheet))
        if unknown:
            # keys a person typed, not the sheet's fields: said as typed
            words = [str(field_words(key)) for key in unknown]
            raise CorrectionRefused([say("this sheet has no {fields} to correct", fields=words)])
        asked = {key: value for key, value in changes.items() if not _same(sheet[key], value)}
        if not asked:
            said = Message(
                "",
                parts=[
                    say("{field} is {value}", field=field_words(key), value=value_words(value))
                    for key, value in changes.items()
                ],
                separator="; ",
            )
            raise CorrectionRefused([say("nothing to correct: {fields} already", fields=said)])
        new: Sheet = {**copy.deepcopy(dict(sheet)), **copy.deepcopy(asked)}
        validate(new, self.sheet_schema, SHEET)  # the shapes, before the bounds
        follows = self.correction_follows(new, frozenset(asked))
        new.update(copy.deepcopy(dict(follows)))
        touched = set(asked) | {key for key in follows if not _same(sheet[key], new[key])}
        problems = [p.why for p in self.out_of_bounds(new) if set(p.fields) & touched]
        if problems:
            raise CorrectionRefused(problems)
        self.validate_sheet(new)
        return Correction(
            sheet=new,
            asked={key: (copy.deepcopy(sheet[key]), new[key]) for key in sorted(asked)},
            follows={
                key: (copy.deepcopy(sheet[key]), new[key])
                for key in sorted(follows)
                if key not in asked and not _same(sheet[key], new[key])
            },
        )

    def correction_follows(self, sheet: Mapping[str, Any], asked: frozenset[str]) -> dict[str, Any]:
        """What a referee's correction of the fields ``asked`` sets by the rules, in a sheet
        holding the corrected values: the fields that follow from them (a state the numbers
        decide, a penalty they give), each with its value. A :class:`RuleError` in words
        for a correction the rules cannot follow (a state that needs its clock). Each
        ruleset says which in a project ruling of its page; by default, nothing follows."""
        return {}

    def out_of_bounds(self, sheet: Mapping[str, Any]) -> tuple[OutOfBounds, ...]:
        """Where a sheet that passed :meth:`validate_sheet` is still out of the ruleset's
        own bounds: a current value above its maximum where the rules allow none, states
        that contradict the numbers. A referee's correction (rules.play.editing) must
        leave the fields it sets in bounds; each ruleset says its bounds in a project
        ruling of its page (docs/rulesets/<key>.md). By default, none."""
        return ()

    def check_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """A campaign's options as stored: the defaults overridden by ``options``.

        Called once when a campaign is created or its options change: an unknown option,
        a value :attr:`options_schema` refuses, or one :meth:`validate_options` refuses
        is a :class:`RuleError`.
        """
        for key in options:
            if key not in self.options:
                raise RuleError(
                    say("unknown option {option} for {ruleset}", option=repr(key), ruleset=self.key)
                )
        merged = {**copy.deepcopy(dict(self.options)), **copy.deepcopy(dict(options))}
        validate(merged, self.options_schema, word("campaign options"))
        for key, value in merged.items():
            # One rule for numbers, JSON Schema's, as for params and sheets: 10.0 is the
            # whole number 10 (stored as 10, so no rule does arithmetic with 10.0).
            integer = self.options_schema["properties"][key].get("type") == "integer"
            if integer and isinstance(value, float) and value.is_integer():
                merged[key] = int(value)
        self.validate_options(merged)
        return merged

    def option(self, context: Context, key: str) -> Any:
        """The campaign's option ``key``, or its default; a bad stored value is a RuleError."""
        value = context.options.get(key, self.options[key])
        schema = self.options_schema["properties"][key]
        if not is_valid_fast(value, schema):
            validate(value, schema, say("campaign options: campaign option {option}", option=key))
        return value

    def validate_options(self, options: Mapping[str, Any]) -> None:
        """Check a campaign's options beyond :attr:`options_schema` (:class:`RuleError`).

        By default every value the schema accepts is fine.
        """
        return None

    @abc.abstractmethod
    def status(self, sheet: Mapping[str, Any]) -> str:
        """One word for the party list: "standing", "dead", "incapacitated"..."""

    def public_sheet(self, sheet: Mapping[str, Any]) -> Sheet:
        """The sheet as clients see it (deckahedron hides the deck's order): a copy."""
        public: Sheet = copy_json(dict(sheet))
        return public

    @property
    def public_sheet_schema(self) -> dict[str, Any]:
        """JSON Schema of :meth:`public_sheet`'s answer: the sheet's, unless the ruleset
        shows more or less of it."""
        return copy.deepcopy(dict(self.sheet_schema))

    @property
    def outcome_schema(self) -> dict[str, Any]:
        """JSON Schema of a resolution's ``outcome`` in this ruleset."""
        return outcome_schema(self.outcome_properties)

    # -- editing ----------------------------------------------------------------
    def level_up(
        self, sheet: Mapping[str, Any], dice: Dice, context: Context, *, player_character: bool
    ) -> Result:
        """The sheet one level up (rules.play.editing), with whatever the level brings.

        ``player_character``: the character belongs to a player, not the referee (an NPC).
        By default a ruleset has no levels: :class:`RuleError`.
        """
        raise RuleError(say("{ruleset} characters have no levels", ruleset=self.name))

    # -- actions ----------------------------------------------------------------
    def unavailable(self, sheet: Mapping[str, Any], action: str) -> str | None:
        """Why ``action`` cannot be taken on ``sheet`` now, as a sentence; None if it can.

        Pages offer only the actions that can be taken and say why the others cannot.
        :meth:`resolve` still refuses them (ActionBlocked or RuleError) whatever this says.
        """
        return None

    def edit_values(
        self, sheet: Mapping[str, Any], action: str, chosen: Mapping[str, Any]
    ) -> dict[str, Any]:
        """For an action that sets again what the sheet already holds (describing a wound
        again...), the params that would keep it as it is: forms start from these, so
        what a person leaves untouched stays. ``chosen`` holds the params picking what to
        edit (the wound's id); a missing or unknown one means the first. {} otherwise."""
        return {}

    def action(self, key: str) -> ActionSpec:
        for spec in self.actions:
            if spec.key == key:
                return spec
        raise RuleError(
            say("unknown action {action} for ruleset {ruleset}", action=repr(key), ruleset=self.key)
        )

    def resolve(
        self,
        sheet: Mapping[str, Any],
        action: str,
        params: Mapping[str, Any],
        dice: Dice,
        context: Context,
    ) -> Result:
        """Validate ``params`` against the action's schema and run its handler."""
        spec = self.action(action)
        validate(dict(params), spec.params, lambda: say("params for {action}", action=action))
        handler: ActionHandler = getattr(self, f"action_{action}")
        first = len(dice.rolls)
        result = handler(copy_json(dict(sheet)), copy_json(dict(params)), dice, context)
        return self._finished(result, dice, first)

    def _finished(
        self, result: Result, dice: Dice, first: int, given: Mapping[str, Any] | None = None
    ) -> Result:
        """The handler's result, checked, with every roll made since it began; ``given``:
        the stored sheet it was made from (valid: :meth:`validate_sheet`)."""
        self.validate_sheet(result.sheet, given)
        return dataclasses.replace(result, rolls=tuple(dice.rolls[first:]))

    def odds(
        self,
        sheet: Mapping[str, Any],
        action: str,
        params: Mapping[str, Any],
        context: Context,
    ) -> Odds:
        """The exact odds of ``action`` with ``params`` on this sheet; nothing is rolled.

        Params are checked as :meth:`resolve` checks them. A ruleset computes the odds
        of an action in ``odds_<action>`` (icepool); without one, the real action is
        resolved on copies along every way its dice can fall, when those are few.
        """
        spec = self.action(action)
        validate(dict(params), spec.params, lambda: say("params for {action}", action=action))
        handler: OddsHandler | None = getattr(self, f"odds_{action}", None)
        if handler is not None:
            return handler(copy.deepcopy(dict(sheet)), copy.deepcopy(dict(params)), context)
        return self.odds_by_walking(sheet, action, params, context)

    def odds_by_walking(
        self,
        sheet: Mapping[str, Any],
        action: str,
        params: Mapping[str, Any],
        context: Context,
    ) -> Odds:
        """Odds found by resolving copies of the sheet along every way the dice can fall.

        For actions that roll nothing or little; the results are sorted by
        :meth:`odds_key`. An action that rolls nothing answers exactly what it would do
        (or refuse: 400, 409).
        """
        spec = self.action(action)
        # the label in lower case inside the sentence, as English says it
        unavailable = OddsUnavailable(
            say("The odds of {action} are not computed yet.", action=lowered(spec.label))
        )
        if not self.odds_by_resolving:
            raise unavailable
        try:
            paths = enumerate_draws(
                lambda generator: self.resolve(sheet, action, params, Dice(generator), context),
                limit=ODDS_PATH_LIMIT,
            )
        except TooManyPaths:
            raise unavailable from None
        if len(paths) == 1:
            return certain(action, _capitalised(paths[0][0].summary))
        return grouped(
            action, ((*self.odds_key(action, result), chance) for result, chance in paths)
        )

    def odds_key(self, action: str, result: Result) -> tuple[str, str]:
        """How :meth:`odds` sorts the results it enumerates: (key, label).

        By default, the character's state after the action; override for actions whose
        dice decide something else (a save's pass or fail).
        """
        status = self.status(result.sheet)
        if isinstance(status, Message):  # a state word: the label says it in every language
            return str(status), capitalised(status)
        return status, status.replace("_", " ").capitalize()

    def choose(
        self,
        sheet: Mapping[str, Any],
        choice: PendingChoice,
        option: str,
        dice: Dice,
        context: Context,
    ) -> Result:
        """Finish a resolution that stopped on ``choice`` with the picked ``option``.

        Checks what every choice needs (the option is one offered; the new sheet fits
        the schema) and leaves the rest to :meth:`finish_choice`.
        """
        keys = choice.option_keys()
        if option not in keys:
            raise RuleError(
                say(
                    "unknown option {option}: {option} is not an option of this choice; "
                    "choose one of: {options}",
                    option=repr(option),
                    options=", ".join(keys),
                )
            )
        first = len(dice.rolls)
        result = self.finish_choice(copy_json(dict(sheet)), choice, option, dice, context)
        return self._finished(result, dice, first)

    def finish_choice(
        self,
        sheet: Sheet,
        choice: PendingChoice,
        option: str,
        dice: Dice,
        context: Context,
    ) -> Result:
        """The ruleset's part of :meth:`choose`: ``sheet`` is a copy, ``option`` valid.

        By default, the ruleset's ``choice_<kind>(sheet, choice, option, dice, context)``.
        """
        handler: ChoiceHandler | None = getattr(self, f"choice_{choice.kind}", None)
        if handler is None:
            raise RuleError(
                say(
                    "ruleset {ruleset} has no choice {kind}",
                    ruleset=self.key,
                    kind=repr(choice.kind),
                )
            )
        return handler(sheet, choice, option, dice, context)

    def apply_effect(
        self,
        sheet: Mapping[str, Any],
        kind: str,
        payload: Mapping[str, Any],
        dice: Dice,
        context: Context,
    ) -> Result:
        """Apply a scheduled effect that fell due on the campaign clock.

        Checks what every effect needs (a kind the ruleset schedules, a payload fitting
        its schema in :attr:`effect_payloads`; the new sheet fits the schema) and leaves the rest
        to :meth:`finish_effect`.
        """
        schema = self.effect_payloads.get(kind)
        if schema is None:
            raise RuleError(
                say(
                    "ruleset {ruleset} has no scheduled effect {kind}",
                    ruleset=self.key,
                    kind=repr(kind),
                )
            )
        validate(dict(payload), schema, lambda: say("payload of {kind}", kind=kind))
        first = len(dice.rolls)
        result = self.finish_effect(
            copy_json(dict(sheet)), kind, copy_json(dict(payload)), dice, context
        )
        # The sheet was stored valid: only what the effect changed is checked again.
        return self._finished(result, dice, first, sheet)

    def finish_effect(
        self,
        sheet: Sheet,
        kind: str,
        payload: Params,
        dice: Dice,
        context: Context,
    ) -> Result:
        """The ruleset's part of :meth:`apply_effect`: ``sheet`` is a copy, ``payload``
        valid. By default, the ruleset's ``effect_<kind>(sheet, payload, dice, context)``."""
        handler: ActionHandler = getattr(self, f"effect_{kind}")
        return handler(sheet, payload, dice, context)

    # -- description ------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "actions": [spec.as_dict() for spec in self.actions],
            "sheet_schema": copy.deepcopy(dict(self.sheet_schema)),
            "options": copy.deepcopy(dict(self.options)),
            "tables": sorted(self.tables),
        }
