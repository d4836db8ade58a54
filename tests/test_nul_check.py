"""The NUL check (core.cleaning): made on the JSON text the row will hold, walked to be
sure only when that text shows an escaped U+0000 or the value is not JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.cleaning import json_without_nul, reject_nul_characters
from rules.engine.interface import RuleError


@pytest.mark.parametrize(
    "value",
    [
        {"name": "a\x00b"},
        {"a\x00": 1},
        [1, [2, {"deep": ["x", "\x00"]}]],
        ("tuple", "\x00"),
        {("tuple", "key\x00"): 1},  # not JSON: walked
        {"set": {1, 2}, "name": "\x00"},  # not JSON: walked
    ],
)
def test_a_nul_anywhere_is_refused(value: Any) -> None:
    with pytest.raises(RuleError, match="the sheet may not contain NUL"):
        reject_nul_characters(value, "the sheet")


@pytest.mark.parametrize(
    "value",
    [
        {"text": "a backslash then u0000: \\u0000"},  # escaped alike in JSON: walked, fine
        {"set": {"\x00"}},  # the walk never looked into sets, nor does it now
        [],
        "plain",
        {1: None, "x": 1.5},
    ],
)
def test_no_nul_passes(value: Any) -> None:
    reject_nul_characters(value, "the sheet")


def test_the_text_is_what_a_json_field_writes() -> None:
    sheet = {"b": [1, 2.5, None, True], "a": {"é": "ü"}}
    # the same JSON value, keys in the same order (core.cleaning.json_text: orjson's compact text)
    assert json.loads(json_without_nul(sheet, "the sheet") or "") == sheet
    assert json_without_nul(sheet, "the sheet") == '{"b":[1,2.5,null,true],"a":{"é":"ü"}}'
    assert json_without_nul({"set": {1}}, "the sheet") is None
