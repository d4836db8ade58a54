"""A character's pending choice (ruling G-3): as the character row stores it, and as
people and API clients see it."""

from __future__ import annotations

import uuid
from typing import Any

from rules.engine.interface import PendingChoice


def stored_choice(choice: PendingChoice | None) -> dict[str, Any] | None:
    """A pending choice as the character stores it: with an id to answer it by."""
    if choice is None:
        return None
    return {"id": uuid.uuid4().hex, **choice.as_dict()}


def public_choice(choice: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored pending choice without the engine's resume state."""
    if choice is None:
        return None
    return {
        "id": choice["id"],
        "kind": choice["kind"],
        "prompt": choice["prompt"],
        "options": choice["options"],
        "who": choice["who"],
    }
