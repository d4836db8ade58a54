"""Input cleaning shared by every app: ids, NUL characters, whole numbers."""

from __future__ import annotations

from collections.abc import Mapping
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
