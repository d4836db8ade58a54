"""Writes for characters that are not play. A character's creation and every change
to its sheet are resolutions: ``rules.play.services``."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from characters.models import Character


def character_rename(*, character: Character, name: str) -> Character:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": ["a character needs a name"]})
    character.name = name
    character.full_clean(exclude=["sheet"])
    character.save(update_fields=["name", "updated_at"])
    return character
