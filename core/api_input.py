"""What every API view reads from a request the same way: a deletion's confirmation.

A generated client sends no body with DELETE (drf-spectacular draws none, and many
HTTP libraries drop it), so a deletion is confirmed in the query string, where the
schema declares it: ``DELETE characters/3/?confirm=Aldo``.
"""

from __future__ import annotations

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
