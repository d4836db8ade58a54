"""Editing a character in the browser (issue 13): rename, retire or bring back (owner or
referee); level up, correct a sheet field with a reason, who plays the character, delete
(referee). Each form posts to rules.play.editing; each change but the deletion is an
entry of the log."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from campaigns.selectors import campaign_members
from characters.access import CharacterAccess, access_character
from core.cleaning import valid_id
from core.errors import ResolutionConflict
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, RuleError
from rules.play import editing
from web.forms import humanize
from web.plain import error_text, plain_message, plain_summary

REFEREE_FORMS = {"level_up", "correct", "owner", "delete"}
FORMS = {"rename", "retire", *REFEREE_FORMS}


def _value(raw: str) -> Any:
    """A corrected value as typed: a number, true/false, or text."""
    text = raw.strip()
    try:
        return json.loads(text)
    except ValueError:
        return text


def _scalar_fields(sheet: dict[str, Any]) -> list[tuple[str, str, Any]]:
    return [
        (key, humanize(key), value)
        for key, value in sheet.items()
        if isinstance(value, int | str | bool) or value is None
    ]


def _player(raw: str) -> int | str:
    """Who the "Played by" list names: a user id (a username typed by hand is taken too)."""
    try:
        return valid_id(raw.strip())
    except ValueError:
        return raw


def _number(raw: str) -> int | None:
    return int(raw) if raw.strip().isdigit() else None


@login_required
def character_edit(request: HttpRequest, character_id: int) -> HttpResponse:
    access = access_character(request.user, character_id)
    character = access.character
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        form = request.POST.get("form", "")
        if form in REFEREE_FORMS and not access.is_referee:
            raise PermissionDenied(_("only the campaign's referee may do this"))
        try:
            notice = _post(request, access, form)
        except (ValidationError, ResolutionConflict, RuleError, ActionBlocked, DiceError) as error:
            words = (
                " ".join(error.messages)
                if isinstance(error, ValidationError)
                else error_text(error)
            )
            errors[form if form in FORMS else "rename"] = plain_message(words)
            status = 409 if isinstance(error, ResolutionConflict | ActionBlocked) else 400
        else:
            # an edit's summary is the log's words, said plainly (a correction names the
            # sheet's fields); our own sentences keep names as they are ("other_player")
            ours = form in {"owner", "delete"}
            if not ours:
                character.refresh_from_db()  # renamed: the summary names the new name
                notice = plain_summary(notice, character.name)
            messages.success(request, notice)
            if form == "delete":
                return redirect("campaign", campaign_id=character.campaign_id)
            return redirect(reverse("character-edit", args=[character.pk]))
        character.refresh_from_db()
    context = {
        "character": character,
        "campaign": character.campaign,
        "is_referee": access.is_referee,
        "archived": character.campaign.archived_at is not None,
        "fields": _scalar_fields(character.sheet) if access.is_referee else [],
        "members": campaign_members(character.campaign) if access.is_referee else [],
        "errors": errors,
    }
    return render(request, "characters/edit.html", context, status=status)


def _post(request: HttpRequest, access: CharacterAccess, form: str) -> str:
    character_id = access.character.pk
    data = request.POST
    if form == "rename":
        edit = editing.character_rename(
            character_id=character_id, actor=request.user, name=str(data.get("name", ""))
        )
    elif form == "retire":
        edit = editing.character_retire(
            character_id=character_id, actor=request.user, retired=data.get("retired") == "yes"
        )
    elif form == "level_up":
        edit = editing.character_level_up(character_id=character_id, actor=request.user)
    elif form == "correct":
        field = str(data.get("field", ""))
        edit = editing.character_correct(
            character_id=character_id,
            actor=request.user,
            changes={field: _value(str(data.get("value", "")))} if field else {},
            reason=str(data.get("reason", "")),
        )
    elif form == "owner":
        edit = editing.character_owner_set(
            character_id=character_id,
            actor=request.user,
            player=_player(str(data.get("owner", ""))),
            expected_version=_number(str(data.get("expected_version", ""))),
        )
        return _("%(character)s is now played by %(player)s.") % {
            "character": access.character.name,
            "player": edit.params["to"]["username"],
        }
    elif form == "delete":
        name = access.character.name
        editing.character_delete(character_id=character_id, confirm=str(data.get("confirm", "")))
        return _("%(character)s is deleted, with their log.") % {"character": name}
    else:
        raise ValidationError(_("Unknown form."))
    return edit.said_summary
