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

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from campaigns.access import access_campaign
from characters.access import CharacterAccess, access_character
from core.cleaning import valid_id
from core.errors import NotAllowed, ResolutionConflict
from core.middleware import idempotency_exempt
from core.said import said
from rules.engine.dice import DiceError
from rules.engine.interface import (
    ActionBlocked,
    ActionSpec,
    OddsUnavailable,
    RuleError,
    Ruleset,
)
from rules.engine.registry import get_ruleset
from rules.log.selectors import (
    action_odds,
    overdue_revived,
    resolution_dice_check,
    resolution_of,
)
from rules.play.services import (
    character_create,
    resolution_answer_choice,
    resolution_cancel_choice,
    resolution_create_action,
    resolution_reveal,
)
from rules.play.undo import resolution_redo, resolution_undo
from web.forms import (
    PREFIX,
    FormField,
    ParamsError,
    parse_params,
    posted_values,
    schema_fields,
)
from web.htmx import is_htmx
from web.live import sheet_unchanged, tagged
from web.plain import error_text, field_labels, plain_message, plain_summary
from web.views.campaigns import creation_fields, dashboard_context, posted_text
from web.views.sheet_page import action_form, applied_again_words, sheet_context, stamp

# Errors the rules raise, and the status the page answers with (as config/exceptions.py).
BAD_INPUT = (ParamsError, RuleError, DiceError, ValidationError)
CONFLICT = (ResolutionConflict, ActionBlocked)


def _message(error: Exception, labels: dict[str, str] | None = None) -> str:
    """What went wrong, in the page's words (web.plain): the API keeps the
    precise field errors, a page says it with the form's labels."""
    if isinstance(error, ValidationError):
        return " ".join(plain_message(message, labels) for message in error.messages)
    return plain_message(error_text(error), labels)


def _status(error: Exception) -> int:
    if isinstance(error, CONFLICT):
        return 409
    if isinstance(error, NotAllowed):
        return 403
    return 400


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


def _action_spec(
    request: HttpRequest, character_id: int, action: str
) -> tuple[CharacterAccess, Ruleset, ActionSpec]:
    """The character as the user may see it, its ruleset and the action (404 when the
    ruleset has none)."""
    access = access_character(request.user, character_id)
    ruleset = get_ruleset(access.character.campaign.ruleset)
    try:
        spec = ruleset.action(action)
    except RuleError:
        raise Http404("no such action") from None
    return access, ruleset, spec


def _action_form(
    request: HttpRequest, character_id: int, action: str
) -> tuple[CharacterAccess, ActionSpec, list[FormField]]:
    """The character as the user may see it, the action (404 when the ruleset has none)
    and its form's fields: what the action's post and its odds both read."""
    access, ruleset, spec = _action_spec(request, character_id, action)
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
    return _answer(request, character_id, 200, notice=resolution.said_summary, open_action=spec.key)


@login_required
def character_action_form(request: HttpRequest, character_id: int, action: str) -> HttpResponse:
    """An editing action's form again, from the values of what was picked (htmx: the
    wound chosen in "Describe a wound")."""
    access, _ruleset, spec = _action_spec(request, character_id, action)
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
    return _answer(request, character_id, 200, notice=resolution.said_summary)


@login_required
@require_POST
def character_undo(request: HttpRequest, character_id: int) -> HttpResponse:
    """Undo the newest entry, or back to the entry ``to`` (each step logged, rules.play.undo)."""
    access = _referee_access(request, character_id)
    try:
        to = valid_id(request.POST["to"]) if request.POST.get("to") else None
        undos = resolution_undo(character_id=access.character.pk, actor=request.user, to=to)
    except (ValueError, TypeError):
        return _answer(request, character_id, 400, errors={"undo": _("Pick an entry of the log.")})
    except CONFLICT as error:
        return _answer(request, character_id, 409, errors={"undo": _message(error)})
    notice = (
        undos[-1].said_summary
        if len(undos) == 1
        else f"{access.character.name}: "
        + ngettext("Referee undid %(count)s entry.", "Referee undid %(count)s entries.", len(undos))
        % {"count": len(undos)}
    )
    ruleset = get_ruleset(access.character.campaign.ruleset)
    again = applied_again_words(
        overdue_revived(undos),
        access.character.campaign,
        {spec.key: said(spec.label) for spec in ruleset.actions},
    )
    return _answer(request, character_id, 200, notice=f"{notice} {again}".strip())


@login_required
@require_POST
def character_redo(request: HttpRequest, character_id: int) -> HttpResponse:
    return _referee_step(
        request, character_id, resolution_redo, lambda why: {"errors": {"undo": why}}
    )


def _referee_step(
    request: HttpRequest,
    character_id: int,
    step: Callable[..., Any],
    refused: Callable[[str], dict[str, Any]],
) -> HttpResponse:
    """A referee's change of one resolution (a redo, a choice withdrawn): its summary, or
    why it cannot be (409, where ``refused`` puts it on the page)."""
    access = _referee_access(request, character_id)
    try:
        resolution = step(character_id=access.character.pk, actor=request.user)
    except CONFLICT as error:
        return _answer(request, character_id, 409, **refused(_message(error)))
    return _answer(request, character_id, 200, notice=resolution.said_summary)


def _referee_access(request: HttpRequest, character_id: int) -> CharacterAccess:
    try:
        return access_character(request.user, character_id, referee=True)
    except NotAllowed as error:
        raise PermissionDenied(str(error)) from None


@login_required
@require_POST
def character_cancel_choice(request: HttpRequest, character_id: int) -> HttpResponse:
    """The referee withdraws a pending choice; the sheet stays as it is (ruling G-3)."""
    return _referee_step(
        request, character_id, resolution_cancel_choice, lambda why: {"choice_error": why}
    )


@login_required
@require_POST
def character_reveal(request: HttpRequest, character_id: int, resolution_id: int) -> HttpResponse:
    """The referee shows a resolution's hidden rolls to the players (ruling G-4)."""
    access = _referee_access(request, character_id)
    resolution = resolution_of(access.character, resolution_id)
    if resolution is None:
        raise Http404("no such resolution")
    resolution_reveal(resolution=resolution)
    return _answer(
        request, character_id, 200, notice=_("The hidden rolls are shown to players now.")
    )


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
        context["message"] = _("The chances of this are not worked out yet.")
    except BAD_INPUT:
        context["message"] = _("Fill in the form to see the chances.")
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
            name=posted_text(request.POST, "name", _("Name")),
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
    messages.success(request, _("%(character)s joins the party.") % {"character": character.name})
    return redirect("character", character_id=character.pk)
