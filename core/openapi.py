"""What the API's views say about themselves in the OpenAPI schema, beyond their
serializers: fields whose shape is a JSON Schema from the rules, and the error answers.

The schema is drf-spectacular's own (``config.openapi.SawbonesAutoSchema`` adds the
error answers every operation of a kind can give); views add theirs (a 409) with
:func:`error_answer`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_field
from rest_framework import serializers

# What each error status means (docs/api.md).
ERROR_DESCRIPTIONS = {
    "400": "Bad input: field errors (`{field: [messages]}`), or `{detail}` for a request "
    "the rules reject. Nothing was changed.",
    "401": "Not signed in: no session or token, or the token is unknown, expired or "
    "revoked (`WWW-Authenticate: Token`).",
    "403": "Not allowed: referee only, or outside what the token's scope allows.",
    "404": "No such object, or not visible to you (outsiders, other players' characters).",
    "413": "The request body is larger than the server accepts (1 MB unless configured).",
    "415": "The body is not JSON: the API takes `application/json` only.",
    "409": "A request with the same `Idempotency-Key` is still being answered: send it "
    "again in a moment (`Retry-After`).",
    "422": "This `Idempotency-Key` was used for another request (method, path or body): use "
    "a new key for a new request. Nothing was changed.",
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


# The log's pages (PageNumberPagination): a page past the last is a 404; a page size
# beyond the largest is cut to it.
PAGE_PARAMETERS = [
    OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="page number, from 1"),
    OpenApiParameter(
        "page_size", {"type": "integer", "minimum": 1}, description="up to 200, default 50"
    ),
]


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


def error_answer(status: int | str, description: str) -> OpenApiResponse:
    """An error answer of one operation (a 409 and why), for ``extend_schema``."""
    body = InputErrorsSerializer if str(status) == "400" else ErrorDetailSerializer
    return OpenApiResponse(body, description=description)


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
