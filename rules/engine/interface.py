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
from typing import Any, ClassVar, Literal

import fastjsonschema
import jsonschema

from rules.engine.dice import Dice, Roll
from rules.engine.odds import Odds, TooManyPaths, certain, enumerate_draws, grouped

Sheet = dict[str, Any]
Params = dict[str, Any]
Who = Literal["owner", "referee"]


class RuleError(ValueError):
    """The request does not make sense under the rules (answered 400)."""


# The scheduled effect a ruleset lists when its sheet holds an order drawn in secret (a
# Deckahedron deck): the campaign applies it to every character as soon as its dice seed
# is revealed, so that the order in play comes from the new, still secret seed and the
# revealed one predicts nothing still hidden (docs/dice.md, "Hidden rolls").
RESEAL_EFFECT = "reseal"

# The most ways for the dice to fall that Ruleset.odds walks through the real rules
# (each a full resolution on a copy); past it a ruleset computes the odds with icepool.
ODDS_PATH_LIMIT = 256


class OddsUnavailable(RuleError):
    """The odds of this action are not computed yet (answered 400 with the reason)."""


class ActionBlocked(RuntimeError):
    """The character cannot act now: dead, incapacitated... (answered 409)."""


@dataclass(frozen=True)
class ChoiceOption:
    key: str
    label: str
    # A question the page asks before this option is taken, for a lethal or
    # irreversible one ("Die outright?"); empty for the others.
    confirm: str = ""


@dataclass(frozen=True)
class PendingChoice:
    """A question the rules ask mid-resolution (ruling G-3).

    ``kind`` tells the ruleset's :meth:`Ruleset.choose` what is being answered and
    ``state`` carries whatever it needs to finish (JSON-serialisable). The Django
    side gives each stored choice an id.
    """

    kind: str
    prompt: str
    options: tuple[ChoiceOption, ...]
    state: Mapping[str, Any] = field(default_factory=dict)
    who: Who = "owner"

    def option_keys(self) -> tuple[str, ...]:
        return tuple(option.key for option in self.options)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "prompt": self.prompt,
            "options": [
                {"key": o.key, "label": o.label, **({"confirm": o.confirm} if o.confirm else {})}
                for o in self.options
            ],
            "state": copy.deepcopy(dict(self.state)),
            "who": self.who,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PendingChoice:
        return cls(
            kind=data["kind"],
            prompt=data["prompt"],
            options=tuple(
                ChoiceOption(o["key"], o["label"], o.get("confirm", "")) for o in data["options"]
            ),
            state=copy.deepcopy(dict(data.get("state", {}))),
            who=data.get("who", "owner"),
        )


@dataclass(frozen=True)
class ScheduledEffect:
    """Something the campaign clock must apply later (disease save, worsening...).

    ``due_in`` is in in-game minutes from the resolution's clock. ``key`` names the
    effect so a later result can cancel it (a treated wound stops worsening);
    ``hidden`` effects are not listed to players (ruling G-4).
    """

    kind: str
    due_in: int
    payload: Mapping[str, Any] = field(default_factory=dict)
    key: str = ""
    hidden: bool = False


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


@dataclass(frozen=True)
class Result:
    """What a resolution produced. The engine never mutates the sheet it was given."""

    sheet: Sheet
    summary: str
    rolls: tuple[Roll, ...] = ()
    pending_choice: PendingChoice | None = None
    effects: tuple[ScheduledEffect, ...] = ()
    cancel_effects: tuple[str, ...] = ()  # keys of scheduled effects to cancel
    outcome: Mapping[str, Any] = field(default_factory=dict)  # facts for the table
    elapsed_minutes: int = 0  # in-game time the action itself takes


@dataclass(frozen=True)
class OutOfBounds:
    """Where a sheet leaves its ruleset's own bounds (:meth:`Ruleset.out_of_bounds`)."""

    fields: tuple[str, ...]  # the sheet's fields it is about ("hp", "hit_dice")
    why: str  # a sentence naming the value and the bound: "hp 999 is above ... 24"


class CorrectionRefused(RuleError):
    """A referee's correction the rules refuse (:meth:`Ruleset.correct`): each problem a
    sentence naming the value and why, as the API lists them."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(" ".join(_capital_sentence(why) for why in problems))
        self.problems = problems


@dataclass(frozen=True)
class Correction:
    """A referee's correction as its ruleset takes it (:meth:`Ruleset.correct`)."""

    sheet: Sheet  # the sheet after it
    # field -> (before, after): the fields asked for that change, then those the rules
    # set as a consequence (a state the numbers decide, a value kept by the rules)
    asked: Mapping[str, tuple[Any, Any]]
    follows: Mapping[str, tuple[Any, Any]]


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: ``True`` is not ``1``, ``1`` is ``1.0`` (numbers are made whole first)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def field_words(key: str) -> str:
    """A sheet field in words for a sentence: "major_wound_marks" -> "major wound marks"."""
    return key.replace("_", " ")


def value_words(value: Any) -> str:
    """A sheet value in a sentence: "6", "yes", "no", "none", short JSON otherwise."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, str):
        return value or "nothing"
    text = json.dumps(value, separators=(", ", ": "))
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class ActionSpec:
    """An action a ruleset offers: served by ``GET rulesets/`` and checked on input."""

    key: str
    label: str
    params: Mapping[str, Any]  # JSON Schema of the params object
    who: Who = "owner"
    description: str = ""
    # A question the page asks before acting, for a lethal or irreversible action.
    confirm: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "params": copy.deepcopy(dict(self.params)),
            "who": self.who,
            "description": self.description,
        }


def params_schema(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A closed JSON Schema object: unknown params are bad input, not ignored."""
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


# What a resolution's ``outcome`` may hold in every ruleset, besides the ruleset's own
# facts (:attr:`Ruleset.outcome_properties`): a referee's correction of the sheet
# (rules.play.editing) logs each field it changed, from and to. Other edits, undo and
# redo log no facts ({}).
COMMON_OUTCOME_PROPERTIES: Mapping[str, Any] = {
    "changed": {
        "type": "object",
        "description": "A correction: each field changed, from and to.",
        "additionalProperties": {
            "type": "object",
            "properties": {"from": {}, "to": {}},
            "required": ["from", "to"],
            "additionalProperties": False,
        },
    },
}


def _either(*schemas: Mapping[str, Any]) -> dict[str, Any]:
    return {"anyOf": [dict(schema) for schema in schemas]}


def outcome_schema(properties: Mapping[str, Any]) -> dict[str, Any]:
    """A closed JSON Schema object of a ruleset's outcomes: its facts, each optional (an
    action says only what it found), beside :data:`COMMON_OUTCOME_PROPERTIES` (a fact
    named like one of those may be either)."""
    merged = {key: copy.deepcopy(dict(value)) for key, value in properties.items()}
    for key, common in COMMON_OUTCOME_PROPERTIES.items():
        merged[key] = _either(merged[key], common) if key in merged else copy.deepcopy(common)
    return {"type": "object", "properties": merged, "additionalProperties": False}


# Whole-number options are minutes, hours, hit points...: never absurd.
OPTION_INT_LIMIT = 1_000_000


def options_schema(properties: Mapping[str, Any]) -> dict[str, Any]:
    """A ruleset's campaign options: each property with its ``default``, a ``title`` and a
    ``description`` for the options form, whole numbers bounded; nothing else allowed."""
    for key, prop in properties.items():
        missing = {"default", "title", "description"} - set(prop)
        if missing:
            raise TypeError(f"campaign option {key!r} lacks {', '.join(sorted(missing))}")
        if prop.get("type") == "integer" and not (
            prop.get("minimum", -OPTION_INT_LIMIT - 1) >= -OPTION_INT_LIMIT
            and prop.get("maximum", OPTION_INT_LIMIT + 1) <= OPTION_INT_LIMIT
        ):
            raise TypeError(f"campaign option {key!r} needs a minimum and a maximum")
    return {
        "type": "object",
        "properties": dict(properties),
        "additionalProperties": False,
    }


_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data, as ``copy.deepcopy`` makes it but about 4x faster.

    Copying the sheet is a fifth of a scheduled effect's cost on the campaign clock
    (bench/clock_advance.py). Dicts, lists and scalars are copied here; anything else
    (a tuple, a Mapping that is not a dict...) goes through ``copy.deepcopy``. Unlike
    it, an object found twice is copied twice: a sheet read back from the database
    shares nothing either, so a result cannot depend on it.
    """
    kind = type(value)
    if kind is dict:
        return {
            key: item if type(item) in _JSON_SCALARS else copy_json(item)
            for key, item in value.items()
        }
    if kind is list:
        return [item if type(item) in _JSON_SCALARS else copy_json(item) for item in value]
    if kind in _JSON_SCALARS:
        return value
    return copy.deepcopy(value)


def _first_error_message(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(part) for part in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


# Validating every sheet after every resolution is most of the engine's time on the
# campaign clock (bench/clock_advance.py). So each schema gets two validators, built
# once: fastjsonschema's compiled function (about 20x faster) answers "valid?", and
# only when it says no does jsonschema, the authority, decide and word the errors.
# rules/engine/tests/test_validation.py checks the two agree on every ruleset's schemas.
# Schemas are module-level constants, so the cache stays small; each schema is kept
# beside its validators so an id is never reused for another object while cached.
_Validators = tuple[Mapping[str, Any], jsonschema.Draft202012Validator, Callable[[Any], Any] | None]
_VALIDATORS: dict[int, _Validators] = {}


def _compile_fast(schema: Mapping[str, Any]) -> Callable[[Any], Any] | None:
    # Our schemas use only keywords that draft 7 and 2020-12 read alike; the draft
    # marker goes so fastjsonschema does not refuse the 2020-12 URI.
    plain = {key: value for key, value in schema.items() if key != "$schema"}
    split = _split_object(plain)
    if split is not None:
        return split
    return _compile_one(plain)


def _compile_one(schema: Mapping[str, Any]) -> Callable[[Any], Any] | None:
    # Only "valid?" is asked of it: without detailed exceptions a failed branch of an
    # "if" (an old_school disease's effect) costs far less, a third of the sheet's
    # check. fastjsonschema cannot compile "const" so; it is the one-value "enum".
    lean = _const_as_enum(schema)
    if lean is not None:
        try:
            fast: Callable[[Any], Any] = fastjsonschema.compile(
                lean, use_default=False, detailed_exceptions=False
            )
        except (fastjsonschema.JsonSchemaDefinitionException, KeyError):
            pass  # compiled below as it is, or not at all
        else:
            return fast
    try:
        compiled: Callable[[Any], Any] = fastjsonschema.compile(dict(schema), use_default=False)
    except fastjsonschema.JsonSchemaDefinitionException:
        return None  # a keyword it cannot compile: jsonschema alone then
    return compiled


# Keywords whose value is a schema, a list of schemas, or a map of names to schemas;
# every other keyword's value is data ("enum", "required"...) or a number.
_SCHEMA_KEYWORDS = frozenset(
    {"items", "additionalItems", "additionalProperties", "contains", "not", "if", "then"}
    | {"else", "propertyNames", "unevaluatedItems", "unevaluatedProperties"}
)
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
# What fastjsonschema may see without detailed exceptions: none of these is needed by
# our schemas, and each could hide a "const" this walk does not reach.
_UNWALKED = frozenset({"$ref", "$defs", "definitions", "dependencies", "$dynamicRef"})


def _const_as_enum(schema: Any) -> Any:
    """``schema`` with every ``"const": x`` written ``"enum": [x]`` (the same constraint),
    or None if that cannot be done surely (a keyword this does not walk)."""
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, Mapping) or _UNWALKED & schema.keys():
        return None
    lean: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_KEYWORDS:  # "items" may be a list of schemas (draft 7)
            parts = value if isinstance(value, list) else [value]
            walked = [_const_as_enum(part) for part in parts]
            if any(part is None for part in walked):
                return None
            lean[key] = walked if isinstance(value, list) else walked[0]
        elif key in _SCHEMA_LISTS:
            walked = [_const_as_enum(part) for part in value]
            if any(part is None for part in walked):
                return None
            lean[key] = walked
        elif key in _SCHEMA_MAPS:
            named = {name: _const_as_enum(part) for name, part in value.items()}
            if any(part is None for part in named.values()):
                return None
            lean[key] = named
        elif key == "const":
            if "enum" in schema:
                return None
            lean["enum"] = [value]
        else:
            lean[key] = value
    return lean


# The keywords a closed object schema may have at its top for _split_object.
_OBJECT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "title", "description"}
)


def _split_object(schema: Mapping[str, Any]) -> Callable[[Any], Any] | None:
    """For an object schema made of properties only (a sheet's), a check of each property
    with its own compiled function: each is small, so what a failed "if" costs (its
    message formatted from the function's locals) is small too. None for other schemas."""
    properties = schema.get("properties")
    if (
        schema.get("type") != "object"
        or not isinstance(properties, Mapping)
        or not schema.keys() <= _OBJECT_KEYWORDS
        or schema.get("additionalProperties", True) not in (True, False)
        or not all(isinstance(name, str) for name in schema.get("required", ()))
        or _UNWALKED & {key for part in properties.values() for key in _keys(part)}
    ):
        return None
    checks: dict[str, Callable[[Any], Any]] = {}
    for name, part in properties.items():
        check = _compile_one(part) if isinstance(part, Mapping) else None
        if check is None:
            return None
        checks[name] = check
    required = frozenset(schema.get("required", ()))
    closed = schema.get("additionalProperties", True) is False

    def check_object(instance: Any) -> None:
        if not isinstance(instance, dict) or not required <= instance.keys():
            raise fastjsonschema.JsonSchemaValueException("not the object required")
        for key, value in instance.items():
            check = checks.get(key)
            if check is not None:
                check(value)
            elif closed:
                raise fastjsonschema.JsonSchemaValueException(f"{key!r} is not allowed")

    return check_object


def _keys(schema: Any) -> set[str]:
    """Every key of every mapping within ``schema`` (to find a keyword anywhere in it)."""
    keys: set[str] = set()
    pending = [schema]
    while pending:
        item = pending.pop()
        if isinstance(item, Mapping):
            keys.update(key for key in item if isinstance(key, str))
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return keys


def _validators(schema: Mapping[str, Any]) -> _Validators:
    cached = _VALIDATORS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached
    built = (schema, jsonschema.Draft202012Validator(schema), _compile_fast(schema))
    if len(_VALIDATORS) < 4096:
        _VALIDATORS[id(schema)] = built
    return built


def is_valid_fast(instance: Any, schema: Mapping[str, Any]) -> bool | None:
    """fastjsonschema's answer, or None when it could not compile the schema."""
    fast = _validators(schema)[2]
    if fast is None:
        return None
    try:
        fast(instance)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


def _capital_sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def validate(instance: Any, schema: Mapping[str, Any], what: str) -> None:
    """Raise :class:`RuleError` with a readable message if ``instance`` is invalid."""
    if is_valid_fast(instance, schema):
        return
    validator = _validators(schema)[1]
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        raise RuleError(f"invalid {what}: " + "; ".join(_first_error_message(e) for e in errors))


def json_type(value: Any) -> str:
    """The JSON Schema type of a JSON value."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if value is None:
        return "null"
    return "object"


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

    def initial_effects(self, sheet: Mapping[str, Any]) -> tuple[ScheduledEffect, ...]:
        """Effects a new character starts with on the clock (aging birthdays...)."""
        return ()

    def validate_table(self, key: str, data: Any) -> None:
        """Check a referee's edit of table ``key``; by default, same JSON shape as the default.

        Rulesets with richer tables override this with a real schema check.
        """
        if key not in self.tables:
            raise RuleError(f"ruleset {self.key} has no table {key!r}")
        default = self.tables[key]
        if type(data) is not type(default):
            raise RuleError(f"table {key!r} must be a JSON {type(default).__name__}")

    def table_schema(self, key: str) -> dict[str, Any]:
        """JSON Schema of table ``key``: the ruleset's, or the JSON type of its default."""
        if key in self.table_schemas:
            return copy.deepcopy(dict(self.table_schemas[key]))
        return {"type": json_type(self.tables[key])}

    def validate_sheet(self, sheet: Mapping[str, Any]) -> None:
        validate(sheet, self.sheet_schema, "sheet")

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
            words = ", ".join(field_words(key) for key in unknown)
            raise CorrectionRefused([f"this sheet has no {words} to correct"])
        asked = {key: value for key, value in changes.items() if not _same(sheet[key], value)}
        if not asked:
            said = "; ".join(
                f"{field_words(key)} is {value_words(value)}" for key, value in changes.items()
            )
            raise CorrectionRefused([f"nothing to correct: {said} already"])
        new: Sheet = {**copy.deepcopy(dict(sheet)), **copy.deepcopy(asked)}
        validate(new, self.sheet_schema, "sheet")  # the shapes, before the bounds
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
                raise RuleError(f"unknown option {key!r} for {self.key}")
        merged = {**copy.deepcopy(dict(self.options)), **copy.deepcopy(dict(options))}
        validate(merged, self.options_schema, "campaign options")
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
            validate(value, schema, f"campaign options: campaign option {key}")
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
        """The sheet as clients see it (deckahedron hides the deck's order)."""
        return copy.deepcopy(dict(sheet))

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
        raise RuleError(f"{self.name} characters have no levels")

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
        raise RuleError(f"unknown action {key!r} for ruleset {self.key}")

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
        validate(dict(params), spec.params, f"params for {action}")
        handler: ActionHandler = getattr(self, f"action_{action}")
        first = len(dice.rolls)
        result = handler(copy_json(dict(sheet)), copy_json(dict(params)), dice, context)
        return self._finished(result, dice, first)

    def _finished(self, result: Result, dice: Dice, first: int) -> Result:
        """The handler's result, checked, with every roll made since it began."""
        self.validate_sheet(result.sheet)
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
        validate(dict(params), spec.params, f"params for {action}")
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
        unavailable = OddsUnavailable(f"The odds of {spec.label.lower()} are not computed yet.")
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
            summary = paths[0][0].summary
            return certain(action, summary[:1].upper() + summary[1:])
        return grouped(
            action, ((*self.odds_key(action, result), chance) for result, chance in paths)
        )

    def odds_key(self, action: str, result: Result) -> tuple[str, str]:
        """How :meth:`odds` sorts the results it enumerates: (key, label).

        By default, the character's state after the action; override for actions whose
        dice decide something else (a save's pass or fail).
        """
        status = self.status(result.sheet)
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
                f"unknown option {option!r}: {option!r} is not an option of this choice; "
                "choose one of: " + ", ".join(keys)
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
            raise RuleError(f"ruleset {self.key} has no choice {choice.kind!r}")
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
            raise RuleError(f"ruleset {self.key} has no scheduled effect {kind!r}")
        validate(dict(payload), schema, f"payload of {kind}")
        first = len(dice.rolls)
        result = self.finish_effect(
            copy_json(dict(sheet)), kind, copy_json(dict(payload)), dice, context
        )
        return self._finished(result, dice, first)

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
