"""Pages of a character: the living sheet, its actions, its pending choice, its roll log.

Access is decided by ``characters.access.access_character`` (another player's
character answers 404 like a stranger's); every change goes through
``rules.play.services`` under its row locks; the log is shown through
``rules.log.selectors.resolution_view`` so hidden rolls (ruling G-4) stay the referee's.

With htmx the forms post here and get the fresh ``#live`` fragment back (with the
error beside the form when the rules refuse); without JavaScript the same views
answer with the whole page. ``character_live`` is polled every second with the
page's stamp as ETag and answers 304 until something changes (web/live.py).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from campaigns.access import access_campaign
from campaigns.models import Campaign
from campaigns.selectors import clock_display
from characters.access import CharacterAccess, access_character
from characters.choices import public_choice
from core.cleaning import valid_id
from core.errors import NotAllowed, ResolutionConflict
from core.middleware import idempotency_exempt
from rules.clock.action_time import elapsed_words
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, ActionSpec, OddsUnavailable, RuleError
from rules.engine.registry import get_ruleset
from rules.log.models import EffectState, ResolutionKind, ScheduledEffect
from rules.log.redaction import keeps_secret
from rules.log.selectors import (
    action_odds,
    applied_again_after_undo,
    effects_for_viewer,
    entry_author_words,
    overdue_revived,
    resolution_dice_check,
    resolution_log,
    resolution_of,
    resolution_view,
)
from rules.play.services import (
    character_create,
    resolution_answer_choice,
    resolution_cancel_choice,
    resolution_create_action,
    resolution_reveal,
)
from rules.play.undo import redo_target, resolution_redo, resolution_undo, undo_marks
from web.forms import (
    PREFIX,
    FormField,
    ParamsError,
    humanize,
    parse_params,
    posted_values,
    schema_fields,
)
from web.htmx import is_htmx
from web.live import sheet_stamp, sheet_unchanged, tagged
from web.plain import field_labels, plain_message, plain_summary
from web.rulesets import sheet_placeholders, sheet_templates
from web.templatetags.sawbones import effect_text
from web.views.campaigns import creation_fields, dashboard_context, posted_text

LOG_LENGTH = 30
# Errors the rules raise, and the status the page answers with (as config/exceptions.py).
BAD_INPUT = (ParamsError, RuleError, DiceError, ValidationError)
CONFLICT = (ResolutionConflict, ActionBlocked)


def _message(error: Exception, labels: dict[str, str] | None = None) -> str:
    """What went wrong, in the page's words (web.plain): the API keeps the
    precise field errors, a page says it with the form's labels."""
    if isinstance(error, ValidationError):
        return " ".join(plain_message(message, labels) for message in error.messages)
    return plain_message(str(error), labels)


def _status(error: Exception) -> int:
    if isinstance(error, CONFLICT):
        return 409
    if isinstance(error, NotAllowed):
        return 403
    return 400


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
    choice = public_choice(character.pending_choice)
    errors, values = errors or {}, values or {}

    effects_list = list(
        effects_for_viewer(  # hidden ones only for the referee (ruling G-4)
            campaign,
            viewer_id=access.membership.user_id,
            viewer_is_referee=referee,
            state=EffectState.PENDING,
            character_id=character.pk,
        )
    )

    forms: list[dict[str, Any]] = []
    unavailable: dict[str, list[str]] = {}  # reason -> the actions it rules out
    # an archived campaign is read, not played (campaigns.access.refuse_archived): no
    # form that would only be refused; the page says what can be done instead (issue 34)
    archived = campaign.archived_at is not None
    for spec in viewer_actions(access) if not archived else ():
        reason = ruleset.unavailable(character.sheet, spec.key)
        if reason is not None and spec.key not in errors:
            unavailable.setdefault(reason, []).append(spec.label)
            continue
        forms.append(action_form(access, spec, values.get(spec.key), errors.get(spec.key, "")))
        forms[-1]["open"] = spec.key == open_action

    rows = resolution_log(character, before=before, length=LOG_LENGTH)
    labels = {spec.key: spec.label for spec in ruleset.actions}
    marks = undo_marks(rows[:LOG_LENGTH])
    redo = redo_target(character) if referee and not archived else None
    log: list[dict[str, Any]] = []
    for resolution in rows[:LOG_LENGTH]:
        view = resolution_view(resolution, ruleset_key=ruleset.key, viewer_is_referee=referee)
        view["actor_name"] = entry_author_words(resolution)
        view["title"] = log_title(resolution.kind, resolution.action, labels)
        view["took"] = elapsed_words(resolution.elapsed_minutes)
        view["revealable"] = referee and keeps_secret(resolution)
        view["rolls_withheld"] = any(roll.get("hidden") for roll in resolution.rolls)
        view["undo_mark"] = marks.get(resolution.pk, "")
        # Any entry in force can be undone, with everything newer (rules.play.undo).
        view["undoable"] = (
            referee
            and not archived
            and not view["undo_mark"]
            and resolution.kind not in (ResolutionKind.CREATE, ResolutionKind.UNDO)
        )
        if view["undoable"]:
            newest = not any(entry["undoable"] for entry in log) and before is None
            view["undo_label"] = "Undo this" if newest else "Undo back to here"
        log.append(view)
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
        "effects": effects_list,
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


def applied_again_words(
    effects: list[ScheduledEffect], campaign: Campaign, labels: dict[str, str]
) -> str:
    """Why an undo did not take something back (issue 34): what it brought back was due
    already, so the clock applied it again at once; and what would change that (undoing
    the entry that scheduled it as well). Empty for no effect."""
    said = []
    for effect in effects:
        text = (
            f"“{effect_text(effect)}” was due at {clock_display(effect.due_at, campaign)} "
            "and the clock is past it: the undo brought it back, and the clock applies "
            "whatever is due, so it happened again at once."
        )
        origin = effect.created_by
        if origin is not None:
            text += (
                " To change that, undo back to the entry that scheduled it as well: "
                f"“{log_title(origin.kind, origin.action, labels)}” at "
                f"{clock_display(origin.clock, campaign)}."
            )
        said.append(text)
    return " ".join(said)


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
        return labels.get(action, humanize(action))
    if kind == ResolutionKind.EFFECT:
        return f"On the clock: {humanize(action).lower()}"
    if kind == ResolutionKind.CHOICE:
        return "Decision"
    if kind == ResolutionKind.CREATE:
        return "Joins the party"
    if kind == ResolutionKind.BATTLE:  # a warband unit recovering as the battle moves on
        return "In battle: " + ("upkeep" if action == "battle_upkeep" else "end of its turn")
    return str(ResolutionKind(kind).label) if kind in ResolutionKind.values else humanize(kind)


def _before(request: HttpRequest) -> int | None:
    try:
        return int(request.GET["before"])
    except (KeyError, ValueError):
        return None


@login_required
def character_detail(request: HttpRequest, character_id: int) -> HttpResponse:
    access = access_character(request.user, character_id)
    return render(
        request,
        "characters/detail.html",
        sheet_context(request, access, before=_before(request)),
    )


@login_required
def character_live(request: HttpRequest, character_id: int) -> HttpResponse:
    """Polled every second by an open sheet: 304 while its stamp (the ETag) holds, read
    with the viewer's access in one query (web/live.py), else the fragment."""
    if (not_modified := sheet_unchanged(request, character_id)) is not None:
        return not_modified
    access = access_character(request.user, character_id)
    return tagged(
        render(request, "characters/_live.html", sheet_context(request, access)), stamp(access)
    )


def _answer(request: HttpRequest, character_id: int, status: int, **context: Any) -> HttpResponse:
    """The page (or its live fragment) after a post, with what went wrong if anything."""
    access = access_character(request.user, character_id)  # fresh state after the change
    if context.get("notice"):  # the log's words, said plainly, the name as written
        context["notice"] = plain_summary(context["notice"], access.character.name)
    if status < 400 and not is_htmx(request):
        if context.get("notice"):
            messages.success(request, context["notice"])
        return redirect("character", character_id=character_id)
    template = "characters/_live.html" if is_htmx(request) else "characters/detail.html"
    return render(request, template, sheet_context(request, access, **context), status=status)


def _action_form(
    request: HttpRequest, character_id: int, action: str
) -> tuple[CharacterAccess, ActionSpec, list[FormField]]:
    """The character as the user may see it, the action (404 when the ruleset has none)
    and its form's fields: what the action's post and its odds both read."""
    access = access_character(request.user, character_id)
    ruleset = get_ruleset(access.character.campaign.ruleset)
    try:
        spec = ruleset.action(action)
    except RuleError:
        raise Http404("no such action") from None
    fields = schema_fields(
        spec.params, ruleset=ruleset.key, sheet=ruleset.public_sheet(access.character.sheet)
    )
    return access, spec, fields


@login_required
@require_POST
def character_action(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    access, spec, fields = _action_form(request, character_id, action)
    try:
        expected = int(request.POST["expected_version"])
    except (KeyError, ValueError):
        expected = None
    try:
        params = parse_params(fields, request.POST)
        resolution = resolution_create_action(
            character_id=access.character.pk,
            actor=request.user,
            by_referee=access.is_referee,
            action=spec.key,
            params=params,
            expected_version=expected,
        )
    except (*BAD_INPUT, *CONFLICT, NotAllowed) as error:
        return _answer(
            request,
            character_id,
            _status(error),
            errors={spec.key: _message(error, field_labels(fields))},
            values={spec.key: posted_values(fields, request.POST)},
            open_action=spec.key,
        )
    return _answer(request, character_id, 200, notice=resolution.summary, open_action=spec.key)


@login_required
def character_action_form(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    """An editing action's form again, from the values of what was picked (htmx: the
    wound chosen in "Describe a wound")."""
    access = access_character(request.user, character_id)
    ruleset = get_ruleset(access.character.campaign.ruleset)
    try:
        spec = ruleset.action(action)
    except RuleError:
        raise Http404("no such action") from None
    if not access.may_take(spec.who):
        raise Http404("no such action")
    chosen = {
        key.removeprefix(PREFIX): value
        for key, value in request.GET.items()
        if key.startswith(PREFIX) and "." not in key.removeprefix(PREFIX)
    }
    form = action_form(access, spec, chosen=chosen)
    form["open"] = True
    return render(request, "characters/_action.html", {"form": form, "character": access.character})


@login_required
@require_POST
def character_choice(request: HttpRequest, character_id: int) -> HttpResponse:
    access = access_character(request.user, character_id)
    try:
        resolution = resolution_answer_choice(
            character_id=access.character.pk,
            actor=request.user,
            by_referee=access.is_referee,
            choice_id=request.POST.get("choice_id", ""),
            option=request.POST.get("option", ""),
        )
    except (*BAD_INPUT, *CONFLICT, NotAllowed) as error:
        return _answer(request, character_id, _status(error), choice_error=_message(error))
    return _answer(request, character_id, 200, notice=resolution.summary)


@login_required
@require_POST
def character_undo(request: HttpRequest, character_id: int) -> HttpResponse:
    """Undo the newest entry, or back to the entry ``to`` (each step logged, rules.play.undo)."""
    access = _referee_access(request, character_id)
    try:
        to = valid_id(request.POST["to"]) if request.POST.get("to") else None
        undos = resolution_undo(character_id=access.character.pk, actor=request.user, to=to)
    except (ValueError, TypeError):
        return _answer(request, character_id, 400, errors={"undo": "Pick an entry of the log."})
    except CONFLICT as error:
        return _answer(request, character_id, 409, errors={"undo": _message(error)})
    notice = (
        undos[-1].summary
        if len(undos) == 1
        else (f"{access.character.name}: Referee undid {len(undos)} entries.")
    )
    ruleset = get_ruleset(access.character.campaign.ruleset)
    again = applied_again_words(
        overdue_revived(undos),
        access.character.campaign,
        {spec.key: spec.label for spec in ruleset.actions},
    )
    return _answer(request, character_id, 200, notice=f"{notice} {again}".strip())


@login_required
@require_POST
def character_redo(request: HttpRequest, character_id: int) -> HttpResponse:
    access = _referee_access(request, character_id)
    try:
        resolution = resolution_redo(character_id=access.character.pk, actor=request.user)
    except CONFLICT as error:
        return _answer(request, character_id, 409, errors={"undo": _message(error)})
    return _answer(request, character_id, 200, notice=resolution.summary)


def _referee_access(request: HttpRequest, character_id: int) -> CharacterAccess:
    try:
        return access_character(request.user, character_id, referee=True)
    except NotAllowed as error:
        raise PermissionDenied(str(error)) from None


@login_required
@require_POST
def character_cancel_choice(request: HttpRequest, character_id: int) -> HttpResponse:
    """The referee withdraws a pending choice; the sheet stays as it is (ruling G-3)."""
    access = _referee_access(request, character_id)
    try:
        resolution = resolution_cancel_choice(character_id=access.character.pk, actor=request.user)
    except CONFLICT as error:
        return _answer(request, character_id, 409, choice_error=_message(error))
    return _answer(request, character_id, 200, notice=resolution.summary)


@login_required
@require_POST
def character_reveal(request: HttpRequest, character_id: int, resolution_id: int) -> HttpResponse:
    """The referee shows a resolution's hidden rolls to the players (ruling G-4)."""
    access = _referee_access(request, character_id)
    resolution = resolution_of(access.character, resolution_id)
    if resolution is None:
        raise Http404("no such resolution")
    resolution_reveal(resolution=resolution)
    return _answer(request, character_id, 200, notice="The hidden rolls are shown to players now.")


def odds_percent(probability: Fraction) -> str:
    """A chance as people read it: a whole percent, but never "0%" for what can happen
    nor "100%" for what may not (1/216 is "<1%", 215/216 ">99%"); the exact fraction is
    shown beside it (issue 26)."""
    shown = round(100 * probability)
    if shown == 0 and probability > 0:
        return "<1%"
    if shown == 100 and probability < 1:
        return ">99%"
    return f"{shown}%"


@idempotency_exempt  # asks the odds with the action's form: changes nothing
@login_required
@require_POST
def character_odds(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    """The chances of an action's outcomes for the values typed so far (htmx partial).

    Reads only: nothing is rolled or changed (rules.log.selectors.action_odds).
    """
    access, spec, fields = _action_form(request, character_id, action)
    context: dict[str, Any] = {"spec": spec}
    try:
        odds = action_odds(
            access=access, action=spec.key, params=parse_params(fields, request.POST)
        )
    except OddsUnavailable:
        context["message"] = "The chances of this are not worked out yet."
    except BAD_INPUT:
        context["message"] = "Fill in the form to see the chances."
    except (*CONFLICT, NotAllowed) as error:
        context["message"] = _message(error)
    else:
        context["outcomes"] = [
            {
                **outcome.as_dict(),
                "permille": round(1000 * outcome.probability),
                "percent": odds_percent(outcome.probability),
            }
            for outcome in odds.outcomes
        ]
        context["notes"] = odds.notes
    return render(request, "characters/_odds.html", context)


@login_required
def resolution_dice(request: HttpRequest, character_id: int, resolution_id: int) -> HttpResponse:
    """A member checks the dice of one resolution (docs/dice.md)."""
    access = access_character(request.user, character_id)
    resolution = resolution_of(access.character, resolution_id)
    if resolution is None:
        raise Http404("no such resolution")
    check = resolution_dice_check(resolution, viewer_is_referee=access.is_referee)
    context = {"character": access.character, "campaign": access.character.campaign, **check}
    return render(request, "characters/dice_check.html", context)


@login_required
@require_POST
def character_new(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Create a character from the dashboard's form (a player's own; the referee's any)."""
    membership = access_campaign(request.user, campaign_id)
    ruleset = get_ruleset(membership.campaign.ruleset)
    fields = creation_fields(ruleset)
    owner_id: int | None = None
    if membership.is_referee and request.POST.get("owner"):
        try:
            owner_id = int(request.POST["owner"])
        except ValueError:
            owner_id = None
    try:
        sheet = parse_params(fields, request.POST)
        character = character_create(
            membership=membership,
            name=posted_text(request.POST, "name", "Name"),
            sheet=sheet,
            owner_id=owner_id,
        )
    except (*BAD_INPUT, *CONFLICT) as error:  # an archived campaign: 409, said on the page
        context = dashboard_context(
            request,
            membership,
            values=posted_values(fields, request.POST),
            create_error=_message(error, field_labels(fields)),
            create_name=request.POST.get("name", ""),
        )
        return render(request, "campaigns/detail.html", context, status=_status(error))
    messages.success(request, f"{character.name} joins the party.")
    return redirect("character", character_id=character.pk)
