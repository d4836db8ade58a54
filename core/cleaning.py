"""Input cleaning shared by every app: ids, NUL characters, whole numbers, JSON text for
the database (orjson's, checked for NUL); and what every
API view reads from a request the same way: its JSON body (whole numbers written ``1.0``
read as whole numbers), its ``?format=`` (one the operation answers, else a 400 naming
it), a deletion's confirmation.

A generated client sends no body with DELETE (drf-spectacular draws none, and many
HTTP libraries drop it), so a deletion is confirmed in the query string, where the
schema declares it: ``DELETE characters/3/?confirm=Aldo``.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import IO, Any

import orjson
from django.conf import settings
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.settings import api_settings

from rules.engine.interface import RuleError

MAX_ID = 2**63 - 1  # the largest primary key any of our databases stores


def valid_id(value: int | str) -> int:
    """``value`` as a primary key; ValueError if it cannot be one (answered 404)."""
    number = int(value)
    if not 1 <= number <= MAX_ID:
        raise ValueError(f"{value!r} is not a valid id")
    return number


# -- JSON text for the database ---------------------------------------------------------
# Made by orjson: the log's rows carry two whole sheets each, and encoding them with
# ``json.dumps`` was the largest single cost of this process in the clock's catch-up
# (bench/clock_advance.py, issue 39: 15% of its samples). orjson writes the same JSON
# values as ``json.dumps`` for JSON data (dicts with string keys, lists and tuples,
# strings, numbers, booleans, None; their subclasses, enums among them); PostgreSQL
# parses both texts to the same ``jsonb``. Anything else orjson refuses (a key that is
# not a string, an integer beyond 64 bits, a lone surrogate, a datetime or a dataclass:
# passed through to refuse them) is encoded by ``json.dumps``, so it is written, or
# refused, as before. One difference is kept: a float NaN or infinity is written
# ``null``, where ``json.dumps`` wrote ``NaN``, which PostgreSQL refused.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def json_bytes(value: Any) -> bytes:
    """``value`` as JSON, UTF-8 (what psycopg's ``Jsonb`` takes as its ``dumps``)."""
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: what json.dumps writes, or refuses
        return json.dumps(value).encode()


def json_text(value: Any) -> str:
    """``value`` as JSON text (:func:`json_bytes`)."""
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS).decode()
    except TypeError:
        return json.dumps(value)


def reject_nul_characters(value: Any, what: str) -> None:
    """PostgreSQL cannot store U+0000 in text or JSON: such input is a 400, not a 500."""
    json_without_nul(value, what)


_ESCAPED_NUL = "\\u0000"  # how json.dumps and orjson write U+0000


def json_without_nul(value: Any, what: str) -> str | None:
    """``value`` as JSON text for the database (``core.cleaning.json_text``: the same value as the
    ``json.dumps`` of a ``JSONField``), once checked for U+0000 as
    :func:`reject_nul_characters` does; None when it is not JSON.

    The text is made by a C encoder, which writes U+0000 as ``\\u0000``: a text without
    that sequence has no NUL anywhere, keys included, and costs half a walk through the
    value in Python (bench/clock_advance.py checks every sheet it writes). A text with it
    (a NUL, or a backslash followed by ``u0000``) is walked to be sure, as is a value the
    encoder refuses. The caller may write the text as is instead of encoding again.
    """
    try:
        text: str | None = json_text(value)
    except (TypeError, ValueError, RecursionError):  # a set, a loop, too deep: walk it
        text = None
    if text is None or _ESCAPED_NUL in text:
        _walk_for_nul(value, what)
    return text


def _walk_for_nul(value: Any, what: str) -> None:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise RuleError(
                    gettext("%(what)s may not contain NUL characters (U+0000)") % {"what": what}
                )
        elif isinstance(item, Mapping):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)


def json_number(text: str) -> int | float:
    """A JSON number with a fraction or an exponent (``json.loads``' ``parse_float``): a
    whole one (``1.0``, ``2e1``) is the whole number, an ``int``, as JSON Schema counts it
    (docs/api.md); any other stays a float. Read exactly, so ``12345678901234567890.0`` is
    that number, not the nearest float; past the largest id (2**63 - 1) it stays a float,
    so no exponent makes a number of a million digits."""
    exact = Decimal(text)
    if exact.is_finite() and exact == exact.to_integral_value() and abs(exact) <= MAX_ID:
        return int(exact)
    return float(text)


def loads_json(text: str | bytes) -> Any:
    """JSON text as every input of ours reads it: whole numbers are ints (:func:`json_number`)."""
    return json.loads(text, parse_float=json_number)


def whole_numbers(value: Any) -> Any:
    """JSON input with ``3.0`` for ``3``: JSON Schema counts 3.0 as an integer, so make
    it one before the rules do arithmetic with it (no "heals 1.0" on a sheet)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [whole_numbers(item) for item in value]
    return value


CONFIRM_MAX_LENGTH = 120


def confirm_parameter(what: str) -> OpenApiParameter:
    """The ``confirm`` query parameter of a deletion, required."""
    return OpenApiParameter(
        "confirm",
        {"type": "string", "minLength": 1, "maxLength": CONFIRM_MAX_LENGTH},
        OpenApiParameter.QUERY,
        required=True,
        description=f"{what}, exactly, to confirm the deletion (400 otherwise)",
    )


class ConfirmSerializer(serializers.Serializer):
    confirm = serializers.CharField(max_length=CONFIRM_MAX_LENGTH)


def confirmation(request: Request) -> str:
    """The ``confirm`` of a deletion: from the query string (what the schema declares),
    or, as the API took it before, from a JSON body; 400 when neither has one."""
    source: Any = request.query_params.dict()
    if "confirm" not in source and isinstance(request.data, dict) and "confirm" in request.data:
        source = {"confirm": request.data["confirm"]}
    data = ConfirmSerializer(data=source)
    data.is_valid(raise_exception=True)
    confirmed: str = data.validated_data["confirm"]
    return confirmed


class FormatParameterNegotiation(DefaultContentNegotiation):
    """``DEFAULT_CONTENT_NEGOTIATION_CLASS``: a ``?format=`` no renderer of the operation
    answers (``recap/?format=xml``) is a 400 naming the parameter and the formats it
    takes, where DRF would say 404 as if the path did not exist (issue 36)."""

    def select_renderer(
        self,
        request: Request,
        renderers: Iterable[BaseRenderer],
        format_suffix: str | None = None,
    ) -> tuple[BaseRenderer, str]:
        renderers = list(renderers)
        name = api_settings.URL_FORMAT_OVERRIDE or "format"
        asked = format_suffix or request.query_params.get(name)
        if asked and not any(renderer.format == asked for renderer in renderers):
            formats = ", ".join(sorted({str(renderer.format) for renderer in renderers}))
            why = gettext("not a format of this operation (it takes %(formats)s)")
            raise ValidationError({name: [why % {"formats": formats}]})
        return super().select_renderer(request, renderers, format_suffix)


# -- JSON types, as the schema says them ------------------------------------------------
class WholeNumberJSONParser(JSONParser):
    """Every API request body (``DEFAULT_PARSER_CLASSES``): JSON, with a whole number
    written ``1.0`` read as the whole number 1 wherever it stands (a table's row, a
    calendar's month, an owner's id), as JSON Schema counts it; so the rules never do
    arithmetic with ``1.0`` and nothing stores it (issue 36: ``range(1.0, ...)`` was a 500).
    Otherwise DRF's parser, NaN and Infinity refused as there."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            decoded = codecs.getreader(encoding)(stream)
            return json.load(decoded, parse_constant=_refuse_constant, parse_float=json_number)
        except ValueError as exc:
            raise ParseError(gettext("JSON parse error - %(error)s") % {"error": exc}) from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def json_type_problem(field: serializers.Field, value: Any) -> str | None:
    """Why ``value`` (as JSON decoded it) is not of the JSON type the schema draws
    ``field`` with, or None. DRF would turn ``0`` into ``"0"`` for a text field, ``0``
    into false and ``"true"`` into true for a boolean, ``"3"`` into 3 for a whole
    number: the schema refuses each, so the server does too (issue 27). A number with
    nothing after its point (``3.0``) is a whole number, as JSON Schema counts it."""
    if value is None:
        return None  # DRF's own "may not be null" unless the field allows null
    if isinstance(field, serializers.BooleanField):
        return None if isinstance(value, bool) else gettext("Must be true or false.")
    if isinstance(field, serializers.IntegerField):
        whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        return None if whole and not isinstance(value, bool) else gettext("Must be a whole number.")
    if isinstance(field, serializers.FloatField):
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return None if number else gettext("Must be a number.")
    if isinstance(field, serializers.CharField | serializers.DateTimeField):
        return None if isinstance(value, str) else gettext("Must be text.")
    if isinstance(field, serializers.ChoiceField):
        return None if isinstance(value, str) else gettext("Must be text, one of the choices.")
    if isinstance(field, serializers.DictField):
        if not isinstance(value, dict):
            return gettext("Must be an object.")
        for key, item in value.items():
            problem = json_type_problem(field.child, item)
            if problem is not None:
                return f"{key}: {problem}"
    if isinstance(field, serializers.ListField):
        if not isinstance(value, list):
            return gettext("Must be a list.")
        for index, item in enumerate(value):
            problem = json_type_problem(field.child, item)
            if problem is not None:
                return gettext("Item %(index)s: %(problem)s") % {
                    "index": index,
                    "problem": problem,
                }
    return None


class JsonSerializer(serializers.Serializer):
    """A request body's serializer that takes each field in its JSON type only."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            errors = {
                name: [problem]
                for name, field in self.fields.items()
                if not field.read_only
                and name in data
                and (problem := json_type_problem(field, data[name])) is not None
            }
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


class JsonIntegerField(serializers.IntegerField):
    """A JSON integer: not "3", not true, not 3.5 (DRF's IntegerField would take "3")."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, float) and data.is_integer():
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


def read_body(serializer_class: type[serializers.Serializer[Any]], request: Request) -> Any:
    """The request's JSON body as ``serializer_class`` reads it: its validated data (field
    errors are a 400)."""
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return data.validated_data


class QueryIntegerField(serializers.IntegerField):
    """A whole number in a query string as the schema draws it: digits (a minus sign
    first at most), nothing else; DRF's would take "3.0" and " 3"."""

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not re.fullmatch(r"-?[0-9]{1,20}", data):
            self.fail("invalid")
        return int(super().to_internal_value(data))
