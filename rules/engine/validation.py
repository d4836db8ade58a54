"""JSON checked against its schema, fast, and copied, fast.

Every sheet is validated after every resolution and copied before it, so both are on
the campaign clock's hot path (bench/clock_advance.py); jsonschema stays the authority
on what is valid and how an error is worded.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import fastjsonschema
import jsonschema

from rules.engine.data import RuleError

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


def validate(instance: Any, schema: Mapping[str, Any], what: str) -> None:
    """Raise :class:`RuleError` with a readable message if ``instance`` is invalid."""
    if is_valid_fast(instance, schema):
        return
    validator = _validators(schema)[1]
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        raise RuleError(f"invalid {what}: " + "; ".join(_first_error_message(e) for e in errors))
