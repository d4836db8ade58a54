"""core.cleaning.json_text: orjson's text is the JSON value json.dumps writes, and whatever orjson
refuses is written, or refused, by json.dumps as before."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.cleaning import json_bytes, json_text

# JSON data as sheets hold it (finite floats: NaN is the one value written differently)
json_data = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_data)
def test_the_same_json_value_as_json_dumps(value: Any) -> None:
    text = json_text(value)
    assert json.loads(text) == json.loads(json.dumps(value))
    assert json_bytes(value) == text.encode()
    if isinstance(value, dict):  # keys in the same order
        assert list(json.loads(text)) == list(json.loads(json.dumps(value)))


class Colour(enum.StrEnum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int


@pytest.mark.parametrize(
    "value",
    [
        {1: "a", None: "b"},  # keys json.dumps writes as strings
        2**70,  # beyond 64 bits
        "\ud800",  # a lone surrogate, which json.dumps escapes
        (1, [Colour.RED]),
    ],
)
def test_what_orjson_refuses_is_written_by_json_dumps(value: Any) -> None:
    assert json.loads(json_text(value)) == json.loads(json.dumps(value))


@pytest.mark.parametrize("value", [{"at": datetime.date(2026, 1, 1)}, [Point(1)], {"set": {1}}])
def test_what_json_dumps_refuses_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        json_text(value)
    with pytest.raises(TypeError):
        json_bytes(value)


def test_nul_is_escaped_as_json_dumps_escapes_it() -> None:
    # core.cleaning.json_without_nul finds a NUL by this escape in the text
    assert "\\u0000" in json_text({"name": "a\x00b"})
