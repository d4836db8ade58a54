"""An action's body (``rules.play.api.ActionApi``): its serializer, and the usual body
read without it (issue 39)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request

from core.cleaning import JsonSerializer, read_body

ACTION_LENGTH = 64  # the longest action name a body may give


class JsonIntegerField(serializers.IntegerField):
    """A JSON integer: not "3", not true, not 3.5 (DRF's IntegerField would take "3")."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, float) and data.is_integer():
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class ActionInputSerializer(JsonSerializer):
    action = serializers.CharField(max_length=ACTION_LENGTH)
    params = serializers.DictField(required=False, default=dict)
    expected_version = JsonIntegerField(required=False, min_value=1)


def action_body(request: Request) -> dict[str, Any]:
    """An action's body as :class:`ActionInputSerializer` reads it. The usual body (an
    action's name as it is, its params an object, nothing else) is taken as it is: the
    serializer would give back the same, for a fifth of a millisecond of building its
    fields (issue 39). Any other, errors and all, is the serializer's."""
    data = request.data
    if type(data) is dict and data.keys() <= {"action", "params"}:
        action, params = data.get("action"), data.get("params", {})
        if (
            type(action) is str
            and 0 < len(action) <= ACTION_LENGTH
            and action.isascii()
            and action.isprintable()  # no NUL: the serializer's words for those
            and action.strip() == action  # the serializer trims
            and type(params) is dict
        ):
            return {"action": action, "params": dict(params)}
    return dict(read_body(ActionInputSerializer, request))
