"""A character's sheet as a Discord embed: what the person's role may see of it, as the
API and the pages show it (``characters.selectors.public_sheet``; the referee also reads
what is kept from the player, marked so), its state, its pending choice, a link to its
page. Drawn from the sheet's own fields, so every ruleset is shown without a picture of
its own: a number as a number, "strength" beside "max_strength" as "12/14", a list by the
names of what it holds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from characters.access import CharacterAccess
from characters.selectors import public_sheet
from discord_play import messages as m
from rules.engine.registry import get_ruleset
from web.forms import humanize
from web.plain import plain_message

LIST_SHOWN = 8  # items of a list named before "and N more"
_NAMES = ("name", "description", "kind", "card", "id")


def _word(value: Any) -> str:
    text = str(value)
    return text.replace("_", " ") if "_" in text and " " not in text else text


def _item(item: Any) -> str:
    if isinstance(item, Mapping):
        name = next((item[key] for key in _NAMES if item.get(key) not in (None, "")), "")
        text = _word(name) if name != "" else _("one")
        if item.get("hidden"):
            text += _(" (kept from the player)")
        return text
    return _word(item)


def value_text(value: Any) -> str:
    """A sheet's value in a few words ("" for nothing to show)."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if value is None:
        return ""
    if isinstance(value, int | float | str):
        return _word(value)
    if isinstance(value, Mapping):
        if value and all(isinstance(v, bool) for v in value.values()):
            on = [humanize(str(k)).lower() for k, v in value.items() if v]
            return ", ".join(on) or _("none")
        parts = [
            f"{humanize(str(k))}: {value_text(v)}"
            for k, v in value.items()
            if isinstance(v, bool | int | float | str) and value_text(v)
        ]
        return "; ".join(parts)
    if isinstance(value, list):
        if not value:
            return _("none")
        if len(value) > LIST_SHOWN and not isinstance(value[0], Mapping):
            return _("%(count)s in all") % {"count": len(value)}
        names = [_item(item) for item in value[:LIST_SHOWN]]
        more = len(value) - LIST_SHOWN
        if more > 0:
            names.append(_("and %(count)s more") % {"count": more})
        return "; ".join(names)
    return ""


def sheet_fields(sheet: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The sheet's fields as (label, value) pairs: "x" beside "max_x" as "x/max"."""
    fields = []
    for key, value in sheet.items():
        if key == "state" or (key.startswith("max_") and key[4:] in sheet):
            continue
        maximum = sheet.get(f"max_{key}")
        if isinstance(value, int | float) and isinstance(maximum, int | float):
            shown = f"{value}/{maximum}"
        else:
            shown = value_text(value)
        if shown:
            fields.append((humanize(key), m.plain(shown)))
    return fields


def sheet_embed(access: CharacterAccess, *, link: str = "") -> dict[str, Any]:
    """The character as the person may see it (``access``: they may see it in full)."""
    character = access.character
    ruleset = get_ruleset(character.campaign.ruleset)
    shown = public_sheet(character)
    if access.is_referee:
        # What the sheet keeps from its player (ruling G-4: a hidden disease) is the
        # referee's to read, marked as such, as on the referee's page.
        for key, value in character.sheet.items():
            if isinstance(value, list) and any(
                isinstance(item, Mapping) and item.get("hidden") for item in value
            ):
                shown[key] = value
    lines = [
        _("%(state)s, in %(campaign)s.")
        % {
            "state": humanize(_word(ruleset.status(character.sheet))),
            "campaign": m.plain(character.campaign.name),
        }
    ]
    choice = character.pending_choice
    if choice is not None:
        lines.append(
            _("Waits on a choice: %(prompt)s")
            % {"prompt": m.plain(plain_message(choice["prompt"]))}
        )
    if character.retired_at is not None:
        lines.append(_("Retired."))
    return m.embed(
        title=character.name,
        description=" ".join(lines),
        fields=sheet_fields(shown),
        url=link,
    )
