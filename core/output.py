"""What the API answers about a stored object: the fields a serializer reads, taken from
the object by name rather than written out one line each."""

from __future__ import annotations

from typing import Any


def attributes(obj: object, *names: str, **renamed: str) -> dict[str, Any]:
    """``obj``'s attributes ``names`` under their own names, and ``renamed``'s values
    (attribute names) under its keys: ``attributes(token, "id", expires_at="expiry")``."""
    return {
        **{name: getattr(obj, name) for name in names},
        **{key: getattr(obj, source) for key, source in renamed.items()},
    }
