"""Input cleaning shared by every app: ids, NUL characters, whole numbers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from rules.engine.interface import RuleError

MAX_ID = 2**63 - 1  # the largest primary key any of our databases stores


def valid_id(value: int | str) -> int:
    """``value`` as a primary key; ValueError if it cannot be one (answered 404)."""
    number = int(value)
    if not 1 <= number <= MAX_ID:
        raise ValueError(f"{value!r} is not a valid id")
    return number


def reject_nul_characters(value: Any, what: str) -> None:
    """PostgreSQL cannot store U+0000 in text or JSON: such input is a 400, not a 500."""
    json_without_nul(value, what)


_ESCAPED_NUL = "\\u0000"  # how json.dumps writes U+0000


def json_without_nul(value: Any, what: str) -> str | None:
    """``value`` as the JSON text a ``JSONField`` writes (``json.dumps``), once checked for
    U+0000 as :func:`reject_nul_characters` does; None when it is not JSON.

    The text is made by the C encoder, which writes U+0000 as ``\\u0000``: a text without
    that sequence has no NUL anywhere, keys included, and costs half a walk through the
    value in Python (bench/clock_advance.py checks every sheet it writes). A text with it
    (a NUL, or a backslash followed by ``u0000``) is walked to be sure, as is a value the
    encoder refuses. The caller may write the text as is instead of encoding again.
    """
    try:
        text: str | None = json.dumps(value)
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
                raise RuleError(f"{what} may not contain NUL characters (U+0000)")
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
