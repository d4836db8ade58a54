"""What a character's page shows (web/views/characters.py serves it): the sheet as the
viewer may see it, the forms of the actions they may take and why the others cannot be
taken, the log with its undo buttons, the pending choice, the clock's effects.

Read through ``rules.log.selectors`` (hidden rolls and effects stay the referee's,
ruling G-4); ``stamp`` is the page's ETag, the version and the clock it shows.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _

from campaigns.models import Campaign
from campaigns.selectors import clock_display
from characters.access import CharacterAccess
from core.said import said
from rules.clock.action_time import elapsed_words
from rules.engine.interface import ActionSpec, Ruleset
from rules.engine.registry import get_ruleset
from rules.log.models import EffectState, Resolution, ResolutionKind, ScheduledEffect
from rules.log.redaction import keeps_secret
from rules.log.selectors import (
    applied_again_after_undo,
    effects_for_viewer,
    entry_author_words,
    resolution_log,
    resolution_view,
)
from rules.play.undo import redo_target, undo_marks
from web.forms import humanize, schema_fields
from web.live import sheet_stamp
from web.plain import choice_said
from web.rulesets import sheet_placeholders, sheet_templates
from web.templatetags.sawbones import effect_text

LOG_LENGTH = 30


def viewer_actions(access: CharacterAccess) -> list[ActionSpec]:
    ruleset = get_ruleset(access.character.campaign.ruleset)
    return [spec for spec in ruleset.actions if access.may_take(spec.who)]


def stamp(access: CharacterAccess) -> str:
    character = access.character
    return sheet_stamp(character.version, character.campaign.clock)


def sheet_context(
    request: HttpRequest,
    access: CharacterAccess,
    *,
    errors: dict[str, str] | None = None,
    values: dict[str, dict[str, Any]] | None = None,
    open_action: str = "",
    choice_error: str = "",
    notice: str = "",
    before: int | None = None,
) -> dict[str, Any]:
    character = access.character
    campaign = character.campaign
    ruleset = get_ruleset(campaign.ruleset)
    referee = access.is_referee
    sheet = ruleset.public_sheet(character.sheet)
    choice = choice_said(character.pending_choice)
    errors, values = errors or {}, values or {}

    # an archived campaign is read, not played (campaigns.access.refuse_archived): no
    # form that would only be refused; the page says what can be done instead (issue 34)
    archived = campaign.archived_at is not None
    forms, unavailable = (
        ([], {}) if archived else _action_forms(access, ruleset, errors, values, open_action)
    )
    rows = resolution_log(character, before=before, length=LOG_LENGTH)
    labels = {spec.key: said(spec.label) for spec in ruleset.actions}
    redo = redo_target(character) if referee and not archived else None
    log = _log_views(
        rows[:LOG_LENGTH],
        ruleset,
        labels,
        referee=referee,
        undoable=referee and not archived,
        newest=before is None,
    )
    return {
        "character": character,
        "campaign": campaign,
        "ruleset": ruleset,
        "access": access,
        "is_referee": referee,
        "is_owner": character.owner_id == request.user.pk,
        "sheet": sheet,
        "raw_sheet": character.sheet if referee else None,  # hidden diseases (G-4)
        "status": ruleset.status(character.sheet),
        "choice": choice,
        "can_answer": choice is not None and access.may_take(choice["who"]) and not archived,
        "archived": archived,
        "choice_error": choice_error,
        "forms": forms,
        "unavailable": list(unavailable.items()),
        # an error about an action the viewer has no form for (a player trying a
        # referee's action by hand) is still said, above the forms
        "stray_errors": [
            message
            for key, message in errors.items()
            if key not in {form["spec"].key for form in forms}
        ],
        "effects": _pending_effects(access),
        "log": log,
        "redo": redo,
        "log_older": rows[LOG_LENGTH].version + 1 if len(rows) > LOG_LENGTH else None,
        "log_before": before,
        "sheet_templates": sheet_templates(ruleset.key, "full"),
        "stamp": stamp(access),
        "notice": notice,
        "applied_again": applied_again_words(
            [e for e in applied_again_after_undo(character) if referee or not e.hidden],
            campaign,
            labels,
        ),
    }


def _pending_effects(access: CharacterAccess) -> list[ScheduledEffect]:
    """The character's effects waiting on the clock; hidden ones only for the referee
    (ruling G-4)."""
    return list(
        effects_for_viewer(
            access.character.campaign,
            viewer_id=access.membership.user_id,
            viewer_is_referee=access.is_referee,
            state=EffectState.PENDING,
            character_id=access.character.pk,
        )
    )


def _action_forms(
    access: CharacterAccess,
    ruleset: Ruleset,
    errors: dict[str, str],
    values: dict[str, dict[str, Any]],
    open_action: str,
) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """The forms of the actions the viewer may take now, and why the others cannot be
    taken (reason -> the actions it rules out); an action with an error keeps its form."""
    forms: list[dict[str, Any]] = []
    unavailable: dict[str, list[str]] = {}
    for spec in viewer_actions(access):
        reason = ruleset.unavailable(access.character.sheet, spec.key)
        if reason is not None and spec.key not in errors:
            unavailable.setdefault(said(reason), []).append(said(spec.label))
            continue
        forms.append(action_form(access, spec, values.get(spec.key), errors.get(spec.key, "")))
        forms[-1]["open"] = spec.key == open_action
    return forms, unavailable


def _log_views(
    rows: list[Resolution],
    ruleset: Ruleset,
    labels: dict[str, str],
    *,
    referee: bool,
    undoable: bool,
    newest: bool,
) -> list[dict[str, Any]]:
    """The log's entries, newest first, as the sheet page shows them; with ``undoable``,
    each entry in force offers its undo: "Undo this" for the first when the rows start at
    the log's ``newest``."""
    marks = undo_marks(rows)
    log: list[dict[str, Any]] = []
    for resolution in rows:
        view = resolution_view(resolution, ruleset_key=ruleset.key, viewer_is_referee=referee)
        view["actor_name"] = entry_author_words(resolution)
        view["title"] = log_title(resolution.kind, resolution.action, labels)
        view["took"] = said(elapsed_words(resolution.elapsed_minutes))
        view["said_summary"] = resolution.said_summary
        view["revealable"] = referee and keeps_secret(resolution)
        view["rolls_withheld"] = any(roll.get("hidden") for roll in resolution.rolls)
        view["undo_mark"] = marks.get(resolution.pk, "")
        # Any entry in force can be undone, with everything newer (rules.play.undo).
        view["undoable"] = (
            undoable
            and not view["undo_mark"]
            and resolution.kind not in (ResolutionKind.CREATE, ResolutionKind.UNDO)
        )
        if view["undoable"]:
            first = newest and not any(entry["undoable"] for entry in log)
            view["undo_label"] = _("Undo this") if first else _("Undo back to here")
        log.append(view)
    return log


def applied_again_words(
    effects: list[ScheduledEffect], campaign: Campaign, labels: dict[str, str]
) -> str:
    """Why an undo did not take something back (issue 34): what it brought back was due
    already, so the clock applied it again at once; and what would change that (undoing
    the entry that scheduled it as well). Empty for no effect."""
    sentences = []
    for effect in effects:
        text = _(
            "“%(effect)s” was due at %(due)s and the clock is past it: the undo brought it "
            "back, and the clock applies whatever is due, so it happened again at once."
        ) % {"effect": effect_text(effect), "due": said(clock_display(effect.due_at, campaign))}
        origin = effect.created_by
        if origin is not None:
            text += " " + _(
                "To change that, undo back to the entry that scheduled it as well: "
                "“%(entry)s” at %(clock)s."
            ) % {
                "entry": log_title(origin.kind, origin.action, labels),
                "clock": said(clock_display(origin.clock, campaign)),
            }
        sentences.append(text)
    return " ".join(sentences)


def action_form(
    access: CharacterAccess,
    spec: ActionSpec,
    posted: dict[str, Any] | None = None,
    error: str = "",
    chosen: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One action's form: what was posted beside its error, else the values in force
    for an action that edits what the sheet holds (``Ruleset.edit_values``), so fields
    left alone keep their value."""
    ruleset = get_ruleset(access.character.campaign.ruleset)
    sheet = ruleset.public_sheet(access.character.sheet)
    current = ruleset.edit_values(access.character.sheet, spec.key, chosen or {})
    fields = schema_fields(
        spec.params,
        values=posted if posted is not None else current,
        ruleset=ruleset.key,
        sheet=sheet,
    )
    # a text the sheet holds only until the real one is written is a placeholder, not a
    # value: typing starts from an empty box
    waiting = sheet_placeholders(ruleset.key)
    for control in fields:
        if control.kind in {"text", "textarea"} and control.value in waiting:
            control.placeholder, control.value = str(control.value), ""
    # the control picking what to edit (a wound): changing it fetches that one's values
    pickers = [f.name for f in fields if f.integer_choices] if current else []
    return {
        "spec": spec,
        "fields": fields,
        "error": error,
        "open": False,
        "picker": pickers[0] if pickers else "",
    }


def log_title(kind: str, action: str, labels: dict[str, str]) -> str:
    """What a log entry was, in a few words."""
    if kind == ResolutionKind.ACTION:
        return said(labels[action]) if action in labels else humanize(action)
    if kind == ResolutionKind.EFFECT:
        return _("On the clock: %(effect)s") % {"effect": humanize(action).lower()}
    if kind == ResolutionKind.CHOICE:
        return _("Decision")
    if kind == ResolutionKind.CREATE:
        return _("Joins the party")
    if kind == ResolutionKind.BATTLE:  # a warband unit recovering as the battle moves on
        return (
            _("In battle: upkeep") if action == "battle_upkeep" else _("In battle: end of its turn")
        )
    return str(ResolutionKind(kind).label) if kind in ResolutionKind.values else humanize(kind)
