"""JSON checked against its schema, fast, and copied, fast.

Every sheet is validated after every resolution and copied before it, so both are on
the campaign clock's hot path (bench/clock_advance.py); jsonschema stays the authority
on what is valid and how an error is worded.
"""

from __future__ import annotations

import copy
import marshal
from collections.abc import Callable, Mapping
from typing import Any

import fastjsonschema
import jsonschema

from rules.engine.data import RuleError
from rules.engine.words import PLAIN, Message, say, say_plural

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


def _first_error_message(error: jsonschema.ValidationError) -> Message:
    """One of jsonschema's errors, "amount: 0 is less than the minimum of 1", as a message:
    its field's path (as the data names it) and jsonschema's sentence, said again as a
    message where it is one :func:`_schema_words` knows (else jsonschema's English text,
    kept as a value)."""
    where = ".".join(str(part) for part in error.absolute_path)
    problem: str = _schema_words(error) or error.message
    if where:
        return say("{field}: {problem}", field=where, problem=problem)
    return problem if isinstance(problem, Message) else Message(PLAIN, {"text": problem})


def _schema_words(error: jsonschema.ValidationError) -> Message | None:
    """jsonschema's sentence for ``error`` as a message, or None where this does not know
    it. The English must be jsonschema's own, word for word (pages read it, web.plain):
    a message whose English differs (another jsonschema's wording) is not used."""
    for said in _schema_messages(error):
        if str(said) == error.message:
            return said
    return None


def _schema_messages(error: jsonschema.ValidationError) -> list[Message]:
    """What jsonschema may have said for ``error``, as messages (one of them, or none, is
    its sentence)."""
    keyword, instance = str(error.validator), error.instance
    expected: Any = error.validator_value
    value = repr(instance)
    if keyword == "required" and isinstance(instance, dict):
        return [
            say("{name} is a required property", name=repr(name))
            for name in expected
            if name not in instance
        ]
    if keyword == "additionalProperties" and isinstance(instance, dict):
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        if "patternProperties" in schema:  # worded otherwise: jsonschema's text is kept
            return []
        known = schema.get("properties", {})
        extras = sorted((key for key in instance if key not in known), key=str)
        names = ", ".join(repr(extra) for extra in extras)
        return [
            say_plural(
                "Additional properties are not allowed ({names} was unexpected)",
                "Additional properties are not allowed ({names} were unexpected)",
                len(extras),
                names=names,
            )
        ]
    if keyword == "type":
        types = expected if isinstance(expected, list) else [expected]
        kinds = ", ".join(repr(kind) for kind in types)
        return [say("{value} is not of type {types}", value=value, types=kinds)]
    if keyword in ("minLength", "minItems", "minProperties"):
        return [
            say("{value} should be non-empty", value=value),
            say("{value} is too short", value=value),
            say("{value} does not have enough properties", value=value),
        ]
    if keyword in ("maxLength", "maxItems", "maxProperties"):
        return [
            say("{value} is expected to be empty", value=value),
            say("{value} is too long", value=value),
            say("{value} has too many properties", value=value),
        ]
    return _compared(keyword, value, repr(expected))


def _compared(keyword: str, value: str, limit: str) -> list[Message]:
    """jsonschema's sentences that compare the value with the schema's ``limit``."""
    if keyword == "minimum":
        return [say("{value} is less than the minimum of {limit}", value=value, limit=limit)]
    if keyword == "maximum":
        return [say("{value} is greater than the maximum of {limit}", value=value, limit=limit)]
    if keyword == "exclusiveMinimum":
        return [
            say("{value} is less than or equal to the minimum of {limit}", value=value, limit=limit)
        ]
    if keyword == "exclusiveMaximum":
        return [
            say(
                "{value} is greater than or equal to the maximum of {limit}",
                value=value,
                limit=limit,
            )
        ]
    if keyword == "enum":
        return [say("{value} is not one of {options}", value=value, options=limit)]
    if keyword == "const":
        return [say("{value} was expected", value=limit)]
    if keyword == "uniqueItems":
        return [say("{value} has non-unique elements", value=value)]
    if keyword == "pattern":
        return [say("{value} does not match {pattern}", value=value, pattern=limit)]
    if keyword in ("anyOf", "oneOf"):
        return [say("{value} is not valid under any of the given schemas", value=value)]
    return []


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
        check = _split_array(part) or (_compile_one(part) if isinstance(part, Mapping) else None)
        if check is None:
            return None
        checks[name] = check
    required = frozenset(schema.get("required", ()))
    closed = schema.get("additionalProperties", True) is False

    return _ObjectCheck(checks, required, closed)


class _ObjectCheck:
    """:func:`_split_object`'s check: each property with its own function; or only the
    properties that differ from a valid object (:meth:`changed`)."""

    def __init__(
        self, checks: dict[str, Callable[[Any], Any]], required: frozenset[str], closed: bool
    ) -> None:
        self.checks, self.required, self.closed = checks, required, closed

    def __call__(self, instance: Any) -> None:
        self.changed(instance, None)

    def changed(self, instance: Any, valid: Mapping[str, Any] | None) -> None:
        """Check ``instance``; a property equal (same JSON, types too: :func:`same_json`)
        to the same property of ``valid``, an object this schema accepts, is not checked
        again: it is valid already."""
        if not isinstance(instance, dict) or not self.required <= instance.keys():
            raise fastjsonschema.JsonSchemaValueException("not the object required")
        checks = self.checks
        before = valid if valid is not None else {}
        for key, value in instance.items():
            # The same object is the same value, of a property the valid object had: the
            # engine's copy of a sheet keeps its scalars as they were (copy_json), so
            # most properties stop here.
            old = before.get(key, _ABSENT)
            if value is old:
                continue
            check = checks.get(key)
            if check is not None:
                if old is not _ABSENT and same_json(value, old):
                    continue
                if type(check) is _ArrayCheck:
                    check.changed(value, old if type(old) is list else None)
                else:
                    check(value)
            elif self.closed:
                # only "valid?" is asked of it: jsonschema words the error people read
                raise fastjsonschema.JsonSchemaValueException(
                    "additionalProperties", value=key, rule="additionalProperties"
                )


_ABSENT = object()  # a property the valid object does not have

# The keywords an array of objects may have for _split_array.
_ARRAY_KEYWORDS = frozenset({"type", "items", "minItems", "maxItems", "title", "description"})


def _split_array(schema: Any) -> _ArrayCheck | None:
    """For a property that is an array of objects made of properties only (a sheet's
    diseases), a check of each item by :class:`_ObjectCheck`: an item changed by an
    effect is checked only where it changed (a disease's save count, not its effect's
    conditional schema, most of the sheet's check on the clock; issue 39). None for
    other schemas."""
    if (
        not isinstance(schema, Mapping)
        or schema.get("type") != "array"
        or not schema.keys() <= _ARRAY_KEYWORDS
        or not isinstance(schema.get("items"), Mapping)
    ):
        return None
    items = _split_object(schema["items"])
    if not isinstance(items, _ObjectCheck):
        return None
    return _ArrayCheck(items, int(schema.get("minItems", 0)), schema.get("maxItems"))


class _ArrayCheck:
    """:func:`_split_array`'s check: the length, then each item; or each item only where
    it differs from the item at its place in a valid array (:meth:`changed`)."""

    def __init__(self, items: _ObjectCheck, least: int, most: int | None) -> None:
        self.items, self.least, self.most = items, least, most

    def __call__(self, instance: Any) -> None:
        self.changed(instance, None)

    def changed(self, instance: Any, valid: list[Any] | None) -> None:
        # "array" as fastjsonschema reads it (a list or a tuple): the same answers as the
        # whole property's compiled check
        if not isinstance(instance, list | tuple) or len(instance) < self.least:
            raise fastjsonschema.JsonSchemaValueException("not the array required")
        if self.most is not None and len(instance) > self.most:
            raise fastjsonschema.JsonSchemaValueException("not the array required")
        before = valid if valid is not None else ()
        for index, item in enumerate(instance):
            old = before[index] if index < len(before) else None
            self.items.changed(item, old if type(old) is dict else None)


def same_json(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same JSON value, types included (``1``, ``1.0``
    and ``True`` are equal in Python, not to a schema). Containers equal in Python are
    compared by their ``marshal`` bytes, which name each value's type (in C: a walk in
    Python cost about what the schema's check costs); bytes that differ for the same
    value (keys in another order, a string interned in one only) answer "not the same",
    and the value is checked."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict or kind is list:
        if a != b:
            return False
        try:
            return marshal.dumps(a, 2) == marshal.dumps(b, 2)
        except ValueError:  # not JSON data: checked
            return False
    return bool(a == b)


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


def _valid_where_changed(
    instance: Any, schema: Mapping[str, Any], valid: Mapping[str, Any]
) -> bool:
    """Whether ``instance`` is valid, its properties equal to ``valid``'s not checked;
    False too when the schema's check cannot skip (then the whole is checked)."""
    fast = _validators(schema)[2]
    if not isinstance(fast, _ObjectCheck):
        return False
    try:
        fast.changed(instance, valid)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


def validate(
    instance: Any,
    schema: Mapping[str, Any],
    what: str | Callable[[], str],
    *,
    valid: Mapping[str, Any] | None = None,
) -> None:
    """Raise :class:`RuleError` with a readable message if ``instance`` is invalid:
    "invalid {what}: {problems}", a message. ``what`` names what was checked, a message
    too (``word("sheet")``), or a function making it only when the instance is invalid
    (``lambda: say("params for {action}", action=key)``: every resolution checks its
    params); each problem is the field's path and jsonschema's sentence, a message where
    :func:`_schema_words` knows it.

    ``valid``: an object the schema accepts that ``instance`` was made from (the sheet an
    effect was applied to): where the schema is an object of properties, those equal to
    its own are not checked again. A refusal is the same either way."""
    if valid is not None and _valid_where_changed(instance, schema, valid):
        return
    if is_valid_fast(instance, schema):
        return
    validator = _validators(schema)[1]
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        named = what() if callable(what) else what
        problems = Message("", parts=[_first_error_message(e) for e in errors], separator="; ")
        raise RuleError(say("invalid {what}: {problems}", what=named, problems=problems))
