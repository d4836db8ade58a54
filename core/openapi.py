"""What the API's views say about themselves in the OpenAPI schema, beyond their
serializers: fields whose shape is a JSON Schema from the rules, and the error answers.

The schema is drf-spectacular's own (``config.openapi.SawbonesAutoSchema`` adds the
error answers every operation of a kind can give); views add theirs (a 409) with
:func:`error_answer`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, ClassVar, TypeVar

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers

from core.query import QueryParameters
from rules.engine.interface import Ruleset
from rules.engine.registry import all_rulesets

# What each error status means (docs/api.md).
ERROR_DESCRIPTIONS = {
    "400": "Bad input: field errors (`{field: [messages]}`), or `{detail}` for a request "
    "the rules reject. Nothing was changed.",
    "401": "Not signed in: no session or token, or the token is unknown, expired or "
    "revoked (`WWW-Authenticate: Token`).",
    "403": "Not allowed: referee only, or outside what the token's scope allows.",
    "404": "No such object, or not visible to you (outsiders, other players' characters).",
    "411": "A chunked body without `Content-Length`: send the length (the body is not read).",
    "413": "The request body is larger than the server accepts (1 MB unless configured).",
    "415": "The body is not JSON: the API takes `application/json` only.",
    "409": "A request with the same `Idempotency-Key` is still being answered: send it "
    "again in a moment (`Retry-After`).",
    "422": "This `Idempotency-Key` was used for another request (method, path or body): use "
    "a new key for a new request. Nothing was changed.",
    "503": "The database or the task queue is out of reach (restarting): nothing was "
    "changed; send the same request again after `Retry-After` seconds.",
    "429": "Too many requests (per person, per address, new accounts; or a username locked "
    "after repeated wrong passwords): wait the `Retry-After` seconds.",
}


# Every write of a signed-in person takes an idempotency key (core.idempotency,
# docs/api.md): the header on every write operation (config.openapi.SawbonesAutoSchema),
# with the 409 and 422 it can give.
IDEMPOTENCY_PARAMETER = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"},
    location=OpenApiParameter.HEADER,
    required=False,
    description="Your own unique key for this request (a UUID, say): sent again with the "
    "same key and the same body within 24 hours, the request is not acted on again and "
    "gets its first answer (the same status and body, with the header "
    "`Idempotent-Replayed: true`). The same key with another method, path or body is a "
    "422; while the first request with it is still being answered, a 409. Keys are per "
    "person.",
)
IDEMPOTENCY_CONFLICT = (
    " Or a request with the same `Idempotency-Key` is still being answered: send it again "
    "in a moment (`Retry-After`)."
)


def whole_parameter(name: str, minimum: int, maximum: int, description: str) -> OpenApiParameter:
    """A query parameter taking a whole number from ``minimum`` to ``maximum``."""
    return OpenApiParameter(
        name, {"type": "integer", "minimum": minimum, "maximum": maximum}, description=description
    )


# The log's pages (core.pagination): a page past the last is a 404; a page size beyond
# the largest is cut to it; anything but a whole number from 1 is a 400.
PAGE_MAX = 10**18 - 1  # 18 digits: core.pagination.WHOLE
PAGE_PARAMETERS = [
    whole_parameter("page", 1, PAGE_MAX, "page number, from 1 (past the last: 404)"),
    whole_parameter("page_size", 1, PAGE_MAX, "up to 200 (more is cut to 200), default 50"),
]


class PageQuery(QueryParameters):
    """The query of a page of a list and nothing else (core.pagination reads it)."""

    parameters = PAGE_PARAMETERS


def below_pattern(limit: int) -> str:
    """A regular expression (no anchors) for the whole numbers 0 to ``limit - 1``, written
    without leading zeros: what a pattern can say of a bound."""
    top = str(limit - 1)
    if len(top) == 1:
        return f"[0-{top}]"
    options = ["0", f"[1-9][0-9]{{0,{len(top) - 2}}}"]
    for i, digit in enumerate(top):
        first = 1 if i == 0 else 0
        if int(digit) > first:
            rest = len(top) - i - 1
            tail = f"[0-9]{{{rest}}}" if rest else ""
            options.append(f"{top[:i]}[{first}-{int(digit) - 1}]{tail}")
    options.append(top)
    return "|".join(options)


def decimal_pattern(limit: int, places: int) -> str:
    """Decimal text from 0 to ``limit`` with at most ``places`` decimals, as a pattern."""
    return (
        f"^(?:(?:{below_pattern(limit)})(?:\\.[0-9]{{1,{places}}})?"
        f"|{limit}(?:\\.0{{1,{places}}})?)$"
    )


class ErrorDetailSerializer(serializers.Serializer):
    """An error about the whole request."""

    detail = serializers.CharField()


class InputErrorsSerializer(serializers.Serializer):
    """Field name (or ``non_field_errors``) -> messages; ``detail`` -> a message for
    input the rules reject. Drawn in the schema as a free-form object
    (``config.openapi.InputErrorsSchema``)."""


# How a 400 the rules or the state give to a well-formed request says so (issue 27): a
# client (and schemathesis, tests/test_schemathesis.py) tells it from a malformed body.
REFUSAL = "Refused: the request is well formed, but "


def refused(why: str) -> OpenApiResponse:
    """The 400 of an operation whose well-formed requests may still be refused: ``why``
    (a wrong password, a name that does not match, params the character's ruleset does
    not take...). Malformed input is a 400 too, with field errors."""
    return OpenApiResponse(
        InputErrorsSerializer, description=f"{REFUSAL}{why} Malformed input: field errors."
    )


def error_answer(status: int | str, description: str) -> OpenApiResponse:
    """An error answer of one operation (a 409 and why), for ``extend_schema``."""
    body = InputErrorsSerializer if str(status) == "400" else ErrorDetailSerializer
    return OpenApiResponse(body, description=description)


# The 409 of a write to an archived campaign (campaigns.access), said by many operations.
ARCHIVED = error_answer(409, "Conflict: the campaign is archived.")

Decorated = TypeVar("Decorated", bound=Callable[..., Any])


def operation(
    answers: Mapping[int, Any] | None = None,
    *,
    refuses: str | None = None,
    conflict: str | OpenApiResponse | None = None,
    request: Any = None,
    **schema: Any,
) -> Callable[[Decorated], Decorated]:
    """``extend_schema`` of one operation, its error answers said by their reason alone:
    ``answers`` (status -> body) then the 400 of a well-formed request :func:`refused`
    because ``refuses``, then the 409 (``Conflict: ...``, or an answer made already such
    as :data:`ARCHIVED`). No request body unless ``request`` names one; the other keywords
    go to ``extend_schema`` as they are."""
    responses = dict(answers or {})
    if refuses is not None:
        responses[400] = refused(refuses)
    if conflict is not None:
        if not isinstance(conflict, OpenApiResponse):
            conflict = error_answer(409, conflict)
        responses[409] = conflict
    made: Callable[[Decorated], Decorated] = extend_schema(
        request=request, responses=responses, **schema
    )
    return made


def _plain(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON Schema (2020-12) of the rules as a schema inside the OpenAPI 3.1 document:
    unchanged but for the keywords that only mean something at a document's root."""
    return {
        key: copy.deepcopy(value)
        for key, value in schema.items()
        if key not in {"$schema", "$id", "$defs", "definitions"}
    }


def json_schema_field(
    schema: Mapping[str, Any], *, name: str = "JsonSchemaField", **kwargs: Any
) -> serializers.Field:
    """A JSON value field drawn in the schema as ``schema`` (a JSON Schema of the rules).

    drf-spectacular reads the override from the field's class (DRF rebuilds declared
    fields from their class), so each use gets a class of its own.
    """
    if any("$ref" in str(key) for key in _walk_keys(schema)):
        raise ValueError("a rules schema with $ref cannot be drawn inline")
    field_class = type(name, (serializers.JSONField,), {})
    extend_schema_field(_plain(schema))(field_class)
    field: serializers.Field = field_class(**kwargs)
    return field


def _walk_keys(node: Any) -> list[str]:
    if isinstance(node, Mapping):
        keys = list(node)
        for value in node.values():
            keys += _walk_keys(value)
        return keys
    if isinstance(node, list):
        return [key for item in node for key in _walk_keys(item)]
    return []


SerializerClass = type[serializers.Serializer[Any]]
# The sub-serializers of a PolymorphicProxySerializer, by discriminator value.
ProxyMap = dict[str, serializers.Serializer[Any] | SerializerClass]


class AnyOfProxySerializer(PolymorphicProxySerializer):
    """Any of its serializers, drawn as ``anyOf`` without a discriminator
    (``config.openapi.AnyOfProxySchema``): a body whose variants share the field that
    would tell them apart but may leave it out (``PATCH campaigns/{id}/``'s ``ruleset``).
    For the schema only, as every proxy."""

    def __init__(self, *, component_name: str, serializers: ProxyMap, **kwargs: Any) -> None:
        super().__init__(
            component_name=component_name,
            serializers=serializers,
            resource_type_field_name=None,
            **kwargs,
        )


def serializer_class(name: str, doc: str, fields: Mapping[str, Any]) -> SerializerClass:
    """A serializer class built from the registry, for the schema only (a component)."""
    made: SerializerClass = type(name, (serializers.Serializer,), {"__doc__": doc, **fields})
    return made


def const_field(value: str, **kwargs: Any) -> serializers.Field:
    """A string field that can only be ``value`` (a discriminator: an action's or a
    ruleset's key), drawn as ``const`` and answering ``value`` (drf-spectacular reads a
    proxy's discriminator value with ``to_representation(None)``)."""

    class ConstField(serializers.CharField):
        def to_representation(self, data: Any) -> str:
            return value

        def to_internal_value(self, data: Any) -> str:
            if data != value:
                self.fail("invalid")
            return value

    extend_schema_field({"type": "string", "const": value})(ConstField)
    return ConstField(**kwargs)


class RulesSchemaSerializer(serializers.Serializer):
    """A value whose shape is a JSON Schema of the rules, drawn as a named component of
    the schema (``config.openapi.RulesSchemaComponent``): a generated client gets a
    class of its own for it (``HitDiceSheet``). Made by :func:`rules_component`; passes
    the value through as it is."""

    component_name: ClassVar[str] = ""
    json_schema: ClassVar[dict[str, Any]] = {}

    def to_representation(self, instance: Any) -> Any:
        return instance

    def to_internal_value(self, data: Any) -> Any:
        return data


@cache
def _rules_component_class(name: str, schema_json: str) -> type[RulesSchemaSerializer]:
    import json

    schema = _plain(json.loads(schema_json))
    _type_enums(schema)
    # A generated client names a class after a schema's title: the component's name
    # (HitDiceSheet) is the one to keep, the title goes to the description.
    title = schema.pop("title", None)
    if title:
        schema["description"] = ". ".join(filter(None, [title, schema.get("description")]))
    attributes = {"component_name": name, "json_schema": schema}
    return type(name, (RulesSchemaSerializer,), attributes)


def rules_component(name: str, schema: Mapping[str, Any], **kwargs: Any) -> RulesSchemaSerializer:
    """A field drawn as the named component ``name`` with the rules' ``schema``."""
    import json

    return _rules_component_class(name, json.dumps(schema, sort_keys=True))(**kwargs)


_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _type_enums(node: Any) -> None:
    """Give each ``enum`` of a rules schema its ``type`` (all its values share one): the
    same values, said as drf-spectacular's enum naming needs them."""
    if isinstance(node, dict):
        if "enum" in node and "type" not in node:
            kinds = {_JSON_TYPES.get(type(value)) for value in node["enum"]}
            if len(kinds) == 1 and None not in kinds:
                node["type"] = kinds.pop()
        for value in node.values():
            _type_enums(value)
    elif isinstance(node, list):
        for item in node:
            _type_enums(item)


# -- a ruleset's named components (issue 27): HitDiceSheet, HitDiceOptions, HitDiceOutcome --
def pascal(key: str) -> str:
    """``hit_dice`` -> ``HitDice``: how a ruleset's (or an action's) key names a component."""
    return "".join(part.capitalize() for part in re.split(r"[^0-9A-Za-z]+", key) if part)


def sheet_component(ruleset: Ruleset, **kwargs: Any) -> RulesSchemaSerializer:
    """The ruleset's sheet as clients see it: ``HitDiceSheet``."""
    return rules_component(f"{pascal(ruleset.key)}Sheet", ruleset.public_sheet_schema, **kwargs)


def options_component(ruleset: Ruleset, **kwargs: Any) -> RulesSchemaSerializer:
    """A campaign's options as the API answers them, every one with its value:
    ``HitDiceOptions``."""
    schema = copy.deepcopy(dict(ruleset.options_schema))
    schema["required"] = sorted(schema["properties"])
    schema["description"] = f"A {ruleset.name} campaign's options, each with its value."
    return rules_component(f"{pascal(ruleset.key)}Options", schema, **kwargs)


def outcome_component(ruleset: Ruleset, **kwargs: Any) -> RulesSchemaSerializer:
    """What a resolution of the ruleset found, its ``outcome``: ``HitDiceOutcome``."""
    return rules_component(f"{pascal(ruleset.key)}Outcome", ruleset.outcome_schema, **kwargs)


_ALL_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")


def json_types(schema: Mapping[str, Any]) -> set[str]:
    """The JSON types a value of ``schema`` may have (all of them when it does not say)."""
    named = schema.get("type")
    if isinstance(named, str):
        return {named}
    if isinstance(named, list):
        return set(named)
    if "const" in schema or "enum" in schema:
        values = [schema["const"]] if "const" in schema else list(schema["enum"])
        return {_json_type(value) for value in values}
    branches = schema.get("anyOf") or schema.get("oneOf")
    if branches:
        return set().union(*(json_types(branch) for branch in branches))
    return set(_ALL_TYPES)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return _JSON_TYPES.get(type(value)) or ("array" if isinstance(value, list) else "object")


def _typed(kind: str, items: set[str]) -> dict[str, Any]:
    """A schema of one JSON type; an array's with its items' type when they have one."""
    if kind != "array":
        return {"type": kind}
    return {"type": kind, "items": _typed(next(iter(items)), set()) if len(items) == 1 else {}}


def params_component(
    ruleset: Ruleset, recorded: Mapping[str, tuple[set[str], str]], **kwargs: Any
) -> RulesSchemaSerializer:
    """What a resolution of the ruleset was asked with, its ``params``: ``HitDiceParams``.

    One object, not a union: an action's params (every param any of the ruleset's actions
    takes, by the JSON types its actions give it), the sheet a character was created with
    (kind ``create``), and what the log's other kinds record (``recorded``: key -> its
    JSON types and a description; the play's edits, choices, effects, undos). Every field
    is optional: ``kind`` and ``action`` say which apply. A generated client so reads
    ``resolution.params.amount`` as a number, and the request's own params stay the
    action's exact model (``ActionRequest``, told apart by ``action``)."""
    types: dict[str, set[str]] = {}
    items: dict[str, set[str]] = {}  # the JSON types of an array's items
    told: dict[str, list[str]] = {}

    def add(key: str, schema: Mapping[str, Any], description: str) -> None:
        types.setdefault(key, set()).update(json_types(schema))
        if isinstance(schema.get("items"), Mapping):
            items.setdefault(key, set()).update(json_types(schema["items"]))
        told.setdefault(key, []).append(description)

    for spec in ruleset.actions:
        for key, schema in spec.params.get("properties", {}).items():
            add(key, schema, f"`{spec.key}`")
    for key, schema in ruleset.sheet_schema.get("properties", {}).items():
        add(key, schema, "the sheet it was created with (`create`)")
    for key, (kinds, description) in recorded.items():
        types.setdefault(key, set()).update(kinds)
        told.setdefault(key, []).append(description)
    properties: dict[str, Any] = {}
    for key in sorted(types):
        named = sorted(types[key])
        shape: dict[str, Any] = {}
        if len(named) == 1:
            shape = _typed(named[0], items.get(key, set()))
        elif {"array", "object"} & set(named) and len(named) < len(_ALL_TYPES):
            # a union with a container, as generated clients read one: each its branch
            shape["anyOf"] = [_typed(kind, items.get(key, set())) for kind in named]
        elif len(named) < len(_ALL_TYPES):
            shape["type"] = named
        shape["description"] = "; ".join(dict.fromkeys(told[key]))
        properties[key] = shape
    schema = {
        "type": "object",
        "description": f"What a resolution of a {ruleset.name} character was asked with: by its "
        "`kind` and `action`, the action's params, the sheet it was created with, or the fields "
        "of an edit, a choice, an effect, an undo or a redo. Every field is optional.",
        "properties": properties,
        "additionalProperties": True,
    }
    return rules_component(f"{pascal(ruleset.key)}Params", schema, **kwargs)


def per_ruleset(
    family: str,
    base: SerializerClass,
    typed: Callable[[Ruleset], Mapping[str, Any]],
    doc: str,
) -> ProxyMap:
    """One schema-only serializer class per registered ruleset, named ``HitDice<family>``:
    ``base``'s fields, ``ruleset`` as the ruleset's key (the discriminator), and the
    fields ``typed`` gives for the ruleset (its sheet, its options...). ``doc`` may name
    the ruleset as ``{name}``."""
    variants: ProxyMap = {}
    for ruleset in all_rulesets():
        fields = {
            **copy.deepcopy(base._declared_fields),
            "ruleset": const_field(ruleset.key),
            **typed(ruleset),
        }
        name = f"{pascal(ruleset.key)}{family}"
        variants[ruleset.key] = serializer_class(name, doc.format(name=ruleset.name), fields)
    return variants


def by_ruleset(family: str, variants: ProxyMap, **kwargs: Any) -> PolymorphicProxySerializer:
    """One of ``variants`` (:func:`per_ruleset`), told apart by ``ruleset``: ``family``."""
    return PolymorphicProxySerializer(
        component_name=family, serializers=variants, resource_type_field_name="ruleset", **kwargs
    )
