"""The shared declarations of the API's views (issue 35): ``core.openapi.operation`` draws
an operation as ``extend_schema`` with its error answers written out would, and
``core.output.attributes`` reads the fields an answer shows off an object."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from django.urls import path
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.openapi import ARCHIVED, error_answer, operation, refused
from core.output import attributes


class _Body(serializers.Serializer):
    name = serializers.CharField()


class _Answer(serializers.Serializer):
    id = serializers.IntegerField()


class _WrittenOut(APIView):
    @extend_schema(
        request=_Body,
        responses={
            201: _Answer,
            400: refused("the name is taken."),
            409: error_answer(409, "Conflict: the campaign is full."),
        },
        description="Make one.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        return Response(status=201)

    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="gone"), 409: ARCHIVED},
        description="Remove it.",
    )
    def delete(self, request: Request, campaign_id: int) -> Response:
        return Response(status=204)


class _Declared(APIView):
    @operation(
        {201: _Answer},
        request=_Body,
        refuses="the name is taken.",
        conflict="Conflict: the campaign is full.",
        description="Make one.",
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        return Response(status=201)

    @operation(
        {204: OpenApiResponse(description="gone")}, conflict=ARCHIVED, description="Remove it."
    )
    def delete(self, request: Request, campaign_id: int) -> Response:
        return Response(status=204)


def _operations(view: type[APIView]) -> dict[str, Any]:
    """The schema of ``view`` alone, its operations by method (ids left out: they are the
    path's, the one thing told apart here)."""
    patterns = [path("things/<int:campaign_id>/", view.as_view())]
    schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
    drawn: dict[str, Any] = json.loads(json.dumps(schema["paths"], default=str))
    (operations,) = drawn.values()
    for operation_schema in operations.values():
        operation_schema.pop("operationId")
    return {"operations": operations, "components": schema.get("components")}


def test_an_operation_is_drawn_as_its_error_answers_written_out() -> None:
    declared = _operations(_Declared)
    assert declared == _operations(_WrittenOut)
    post = declared["operations"]["post"]
    assert list(post["responses"])[:3] == ["201", "400", "409"]
    assert post["responses"]["409"]["description"].startswith("Conflict: the campaign is full.")
    assert "requestBody" not in declared["operations"]["delete"]  # no body unless named


def test_attributes_reads_names_and_renamed_ones() -> None:
    token = SimpleNamespace(id=3, name="ci", expiry=None, campaign_id=7)
    assert attributes(token, "id", "name", expires_at="expiry", campaign="campaign_id") == {
        "id": 3,
        "name": "ci",
        "expires_at": None,
        "campaign": 7,
    }
