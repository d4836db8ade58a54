"""A character's pending choice (ruling G-3): as the character row stores it, and as
people and API clients see it."""

from __future__ import annotations

import uuid
from typing import Any

from core.said import said
from rules.engine.interface import PendingChoice
from rules.engine.words import text_said


def stored_choice(choice: PendingChoice | None) -> dict[str, Any] | None:
    """A pending choice as the character stores it: with an id to answer it by."""
    if choice is None:
        return None
    return {"id": uuid.uuid4().hex, **choice.as_dict()}


def public_choice(choice: dict[str, Any] | None, *, english: bool = False) -> dict[str, Any] | None:
    """A stored pending choice without the engine's resume state, its prompt and its
    options' words in the active language (``english``: as stored, for a webhook)."""
    if choice is None:
        return None
    return {
        "id": choice["id"],
        "kind": choice["kind"],
        "prompt": _words("prompt", choice, english),
        "options": [
            {
                "key": option["key"],
                "label": _words("label", option, english),
                **(
                    {"confirm": _words("confirm", option, english)} if option.get("confirm") else {}
                ),
            }
            for option in choice["options"]
        ],
        "who": choice["who"],
    }


def _words(name: str, stored: dict[str, Any], english: bool) -> str:
    return str(stored.get(name, "")) if english else said(text_said(name, stored))
