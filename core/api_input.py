"""What every API view reads from a request the same way: a deletion's confirmation.

A generated client sends no body with DELETE (drf-spectacular draws none, and many
HTTP libraries drop it), so a deletion is confirmed in the query string, where the
schema declares it: ``DELETE characters/3/?confirm=Aldo``.
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request

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


# -- JSON types, as the schema says them ------------------------------------------------
def json_type_problem(field: serializers.Field, value: Any) -> str | None:
    """Why ``value`` (as JSON decoded it) is not of the JSON type the schema draws
    ``field`` with, or None. DRF would turn ``0`` into ``"0"`` for a text field, ``0``
    into false and ``"true"`` into true for a boolean, ``"3"`` into 3 for a whole
    number: the schema refuses each, so the server does too (issue 27). A number with
    nothing after its point (``3.0``) is a whole number, as JSON Schema counts it."""
    if value is None:
        return None  # DRF's own "may not be null" unless the field allows null
    if isinstance(field, serializers.BooleanField):
        return None if isinstance(value, bool) else "Must be true or false."
    if isinstance(field, serializers.IntegerField):
        whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        return None if whole and not isinstance(value, bool) else "Must be a whole number."
    if isinstance(field, serializers.FloatField):
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return None if number else "Must be a number."
    if isinstance(field, serializers.CharField | serializers.DateTimeField):
        return None if isinstance(value, str) else "Must be text."
    if isinstance(field, serializers.ChoiceField):
        return None if isinstance(value, str) else "Must be text, one of the choices."
    if isinstance(field, serializers.DictField):
        if not isinstance(value, dict):
            return "Must be an object."
        for key, item in value.items():
            problem = json_type_problem(field.child, item)
            if problem is not None:
                return f"{key}: {problem}"
    if isinstance(field, serializers.ListField):
        if not isinstance(value, list):
            return "Must be a list."
        for index, item in enumerate(value):
            problem = json_type_problem(field.child, item)
            if problem is not None:
                return f"Item {index}: {problem}"
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


class QueryIntegerField(serializers.IntegerField):
    """A whole number in a query string as the schema draws it: digits (a minus sign
    first at most), nothing else; DRF's would take "3.0" and " 3"."""

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not re.fullmatch(r"-?[0-9]{1,20}", data):
            self.fail("invalid")
        return int(super().to_internal_value(data))
