"""An action's body read directly when it has the usual shape (rules.play.api.action_body,
issue 39) is what ActionApi's serializer reads of it, and every other body is the
serializer's: the same values, the same 400s."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from core.cleaning import read_body
from rules.play import api as body_module
from rules.play.api import ActionInputSerializer, action_body

BODIES: list[Any] = [
    {"action": "long_rest"},
    {"action": "long_rest", "params": {}},
    {"action": "treat_wound", "params": {"wound": 1, "note": None, "deep": {"a": [1]}}},
    {"action": "x" * 64, "params": {}},
    # not the usual shape: the serializer's
    {"action": "x" * 65},
    {"action": ""},
    {"action": " long_rest "},
    {"action": "long\x00rest"},
    {"action": "r\u00e9pit"},
    {"action": 3},
    {"action": None},
    {"action": "long_rest", "params": None},
    {"action": "long_rest", "params": [1]},
    {"action": "long_rest", "params": "{}"},
    {"action": "long_rest", "expected_version": 3},
    {"action": "long_rest", "expected_version": "3"},
    {"action": "long_rest", "other": 1},
    {"params": {}},
    [],
    "long_rest",
]


def _request(body: Any) -> Request:
    made = APIRequestFactory().post("/", body, format="json")
    return Request(made, parsers=[JSONParser()])


def _read(reader: Any, body: Any) -> Any:
    try:
        return dict(reader(_request(body)))
    except ValidationError as error:
        return ("400", error.detail)


@pytest.mark.parametrize("body", BODIES, ids=repr)
def test_an_action_body_reads_as_the_serializer_reads_it(body: Any) -> None:
    by_serializer = _read(lambda request: read_body(ActionInputSerializer, request), body)
    assert _read(action_body, body) == by_serializer


@pytest.mark.parametrize("body", BODIES[:4], ids=repr)
def test_the_usual_body_is_read_without_the_serializer(body: Any, monkeypatch: Any) -> None:
    def refused(*args: Any) -> Any:
        raise AssertionError("the serializer was asked")

    monkeypatch.setattr(body_module, "read_body", refused)
    assert action_body(_request(body)) == {
        "action": body["action"],
        "params": body.get("params", {}),
    }


def test_the_params_read_are_a_copy() -> None:
    params = {"wound": 1}
    request = _request({"action": "treat_wound", "params": params})
    read = action_body(request)
    assert read["params"] == params and read["params"] is not request.data["params"]
