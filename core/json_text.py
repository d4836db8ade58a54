"""JSON text for the database, made by orjson: the log's rows carry two whole sheets
each, and encoding them with ``json.dumps`` was the largest single cost of this process
in the clock's catch-up (bench/clock_advance.py, issue 39: 15% of its samples).

orjson writes the same JSON values as ``json.dumps`` for JSON data (dicts with string
keys, lists and tuples, strings, numbers, booleans, None; their subclasses, enums among
them); PostgreSQL parses both texts to the same ``jsonb``. Anything else orjson refuses
(a key that is not a string, an integer beyond 64 bits, a lone surrogate, a datetime or
a dataclass: passed through to refuse them) is encoded by ``json.dumps``, so it is
written, or refused, as before. One difference is kept: a float NaN or infinity is
written ``null``, where ``json.dumps`` wrote ``NaN``, which PostgreSQL refused.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def json_bytes(value: Any) -> bytes:
    """``value`` as JSON, UTF-8 (what psycopg's ``Jsonb`` takes as its ``dumps``)."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: what json.dumps writes, or refuses
        return json.dumps(value).encode()


def json_text(value: Any) -> str:
    """``value`` as JSON text (:func:`json_bytes`)."""
    try:
        return orjson.dumps(value, option=_OPTIONS).decode()
    except TypeError:
        return json.dumps(value)
