"""The battle board: a warband battle's page (rulings WB-3, WB-6).

The referee sees the warbands side by side, each unit with its state (a picture, a
colour and a word), its wounds as pips, the turn, the phase and the active warband,
one button for the next phase, a rout meter per warband and quick forms per unit
(injury check with the table's d20, injury roll, fall, ledge). Players see the same
board without the controls, with wounds on their own units only. The board polls like
the dashboard (204 while nothing changed).

Access and writes are ``rules.battles``'s and ``rules.play.services``'s: this module only
reads the posted forms and draws.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from campaigns.models import Membership
from characters.access import access_character
from characters.selectors import characters_in_order
from core.errors import NotAllowed, ResolutionConflict
from core.said import said
from rules.battles.models import Battle
from rules.battles.selectors import (
    LATEST_BATTLE,
    access_battles,
    battle_view,
    latest_battle,
    running_battle,
    warband_names,
    warband_rules,
)
from rules.battles.services import battle_advance, battle_begin, battle_finish
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, RuleError
from rules.engine.rulesets.warband import INJURY_MEANS, Warband
from rules.log.selectors import live_witness
from rules.play.services import resolution_create_action
from web.forms import FormField, ParamsError, humanize, parse_params, schema_fields
from web.htmx import is_htmx
from web.live import board_stamp as stamp_of
from web.live import board_unchanged, tagged
from web.plain import error_said, possessive
from web.rulesets.warband import LOOKS

# The quick forms of a unit on the board, and after the battle.
BOARD_ACTIONS = ("injury_check", "injury_roll", "fall", "ledge_check", "disengage")
AFTER_ACTIONS = ("recover", "roll_scars")
BAD_INPUT = (ParamsError, RuleError, DiceError, ValidationError)
CONFLICT = (ResolutionConflict, ActionBlocked)


def _unit(member: dict[str, Any], viewer: Membership) -> dict[str, Any]:
    injury = member["injury"]
    wounds, most = member["wounds"], member["max_wounds"]
    return {
        **member,
        "look": LOOKS[injury],
        "means": said(INJURY_MEANS[injury]),
        "pips": [i < wounds for i in range(most)] if most is not None else None,
        "mine": member["owner"] == viewer.user_id,
    }


def _warband(band: dict[str, Any], active: bool, viewer: Membership) -> dict[str, Any]:
    threshold = band["rout_threshold"]
    down = band["incapacitated"]
    return {
        **band,
        "active": active,
        "members": [_unit(member, viewer) for member in band["members"]],
        "rout_marks": [i < down for i in range(max(threshold, down))],
        "rout_left": max(0, threshold - down),
    }


# What the quick forms call each param, for their error sentences.
QUICK_LABELS = {
    "attack_roll": (gettext_lazy("The attack's d20"), ""),
    "attack": (gettext_lazy("The attack"), ""),
    "modifiers": (gettext_lazy("Modifiers"), ""),
    "height_inches": (gettext_lazy("The fall"), gettext_lazy(" inches")),
    "drop_inches": (gettext_lazy("The drop"), gettext_lazy(" inches")),
    "sides": (gettext_lazy("The sides it could fall from"), ""),
}


def read_quick_form(ruleset: Warband, action: str, data: Any) -> dict[str, Any]:
    """The params a quick form means, or :class:`ParamsError` with a sentence for people.

    The rules check the params again (the API's precise field errors); this only says
    what is out of bounds the way the board's labels say it.
    """
    fields = _quick_fields(ruleset)[action]
    params = parse_params(fields, data)
    for control in fields:
        label, unit = QUICK_LABELS.get(control.key, (control.label, ""))
        if control.key not in params:
            if control.required:
                raise ParamsError(_("%(label)s is missing.") % {"label": label})
            continue
        value = params[control.key]
        if control.choices and value not in {key for key, _ in control.choices}:
            allowed = ", ".join(text.lower() for _, text in control.choices)
            raise ParamsError(
                _("%(label)s must be one of: %(allowed)s.") % {"label": label, "allowed": allowed}
            )
        low, high = control.minimum, control.maximum
        if isinstance(value, int | float) and (
            (low is not None and value < low) or (high is not None and value > high)
        ):
            raise ParamsError(
                _("%(label)s must be from %(low)s to %(high)s%(unit)s.")
                % {"label": label, "low": f"{low:g}", "high": f"{high:g}", "unit": unit}
            )
    return params


def _quick_fields(ruleset: Warband) -> dict[str, list[FormField]]:
    return {
        key: schema_fields(ruleset.action(key).params, ruleset=ruleset.key)
        for key in (*BOARD_ACTIONS, *AFTER_ACTIONS)
    }


def _after(membership: Membership, battle: Battle | None) -> list[dict[str, Any]]:
    """With no battle running: the units of the last battle still to be seen to."""
    if battle is not None:
        return []
    last = latest_battle(membership.campaign)
    if last is None:
        return []
    units = characters_in_order(membership.campaign)
    rows = []
    for unit in units:
        sheet = unit.sheet
        if sheet.get("warband") not in last.warbands:
            continue
        hurt = sheet["injury"] != "none" or sheet["wounds"] < sheet["max_wounds"]
        if hurt:
            rows.append(
                {
                    "id": unit.pk,
                    "name": unit.name,
                    "warband": sheet["warband"],
                    "look": LOOKS[sheet["injury"]],
                    "action": "roll_scars" if sheet["injury"] == "incapacitated" else "recover",
                }
            )
    return rows


def board_stamp(membership: Membership) -> str:
    """Changes whenever the board would: the battle's step, any unit's version."""
    row = live_witness(membership.campaign_id, latest=(LATEST_BATTLE,))  # one query
    assert row is not None  # the membership's campaign
    return stamp_of(row)


def board_context(
    membership: Membership,
    *,
    errors: dict[int, str] | None = None,
    error: str = "",
    notice: str = "",
    values: dict[str, Any] | None = None,
) -> dict[str, Any]:
    campaign = membership.campaign
    ruleset = access_battles_rules(membership)
    battle = running_battle(campaign)
    view = battle_view(battle, membership) if battle is not None else None
    warbands = (
        [
            _warband(band, index == view["active_index"], membership)
            for index, band in enumerate(view["warbands"])
        ]
        if view is not None
        else []
    )
    names = warband_names(campaign)
    picked = list((values or {}).get("warbands", names))
    return {
        "campaign": campaign,
        "membership": membership,
        "is_referee": membership.is_referee,
        "battle": view,
        "warbands": warbands,
        "known_warbands": names,
        "start_slots": [
            (n, picked[n - 1] if n <= len(picked) else "") for n in range(1, len(names) + 1)
        ],
        "next_label": _next_label(view),
        "after": _after(membership, battle) if membership.is_referee else [],
        "fields": _quick_fields(ruleset),
        "errors": errors or {},
        "error": error,
        "notice": notice,
        "stamp": board_stamp(membership),
    }


def _next_label(view: dict[str, Any] | None) -> str:
    """What the next-phase button leads to, for its label."""
    if view is None:
        return ""
    phases, phase = view["phases"], view["phase"]
    index = phases.index(phase) if phase in phases else len(phases) - 1
    if index + 1 < len(phases):
        return humanize(phases[index + 1])
    following = (view["active_index"] + 1) % len(view["warbands"])
    # the possessive in the page's language (German "Aldos", Spanish the name: "de Aldo")
    return _("%(whose)s upkeep") % {"whose": possessive(view["warbands"][following]["name"])}


def access_battles_rules(membership: Membership) -> Warband:
    ruleset = warband_rules(membership.campaign)
    if ruleset is None:
        raise Http404("only warband campaigns fight battles")
    return ruleset


def _referee(request: HttpRequest, campaign_id: int) -> Membership:
    try:
        return access_battles(request.user, campaign_id, referee=True)
    except NotAllowed as denied:
        raise PermissionDenied(str(denied)) from None


def _answer(
    request: HttpRequest, membership: Membership, status: int = 200, **extra: Any
) -> HttpResponse:
    """The board (or its live part, for htmx) after a post, with what went wrong."""
    if status < 400 and not is_htmx(request):
        return redirect("battle", campaign_id=membership.campaign_id)
    template = "campaigns/_battle_live.html" if is_htmx(request) else "campaigns/battle.html"
    return render(request, template, board_context(membership, **extra), status=status)


def _status(error: Exception) -> int:
    return 409 if isinstance(error, CONFLICT) else 400


def _message(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "; ".join(error.messages)
    if isinstance(error, Http404):
        return _("The battle is already over.")
    return error_said(error)


@login_required
def battle_board(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = access_battles(request.user, campaign_id)
    return render(request, "campaigns/battle.html", board_context(membership))


@login_required
def battle_live(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Polled by the board: 304 while its stamp (the ETag) holds, else the fresh board
    (web/live.py)."""
    if (not_modified := board_unchanged(request, campaign_id)) is not None:
        return not_modified
    membership = access_battles(request.user, campaign_id)
    context = board_context(membership)
    return tagged(render(request, "campaigns/_battle_live.html", context), context["stamp"])


@login_required
@require_POST
def battle_start(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The start form: one select per turn slot; empty slots are left out."""
    membership = _referee(request, campaign_id)
    picked = [request.POST.get(f"slot{n}", "").strip() for n in range(1, 13)]
    order = [name for name in picked if name]
    if not order:  # the help says an empty place keeps a warband out; the API's empty
        # list (every warband) is not what a form left at "(none)" means (issue 29)
        return _answer(
            request,
            membership,
            400,
            error=_(
                "Choose the warbands that fight: every place is empty, which keeps them all out."
            ),
            values={"warbands": picked},
        )
    try:
        battle_begin(campaign_id=membership.campaign_id, warbands=order, actor=request.user)
    except (*BAD_INPUT, *CONFLICT) as error:
        return _answer(
            request,
            membership,
            _status(error),
            error=_battle_error(error),
            values={"warbands": picked},
        )
    return _answer(request, membership, notice=_("The battle begins."))


def _battle_error(error: Exception) -> str:
    """A sentence for the start form (the API's says which field)."""
    return _message(error).removeprefix("warbands: ").capitalize()


@login_required
@require_POST
def battle_next_phase(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = _referee(request, campaign_id)
    try:
        battle_advance(campaign_id=membership.campaign_id, actor=request.user)
    except Http404 as error:
        return _answer(request, membership, 409, error=_message(error))
    return _answer(request, membership)


@login_required
@require_POST
def battle_stop(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = _referee(request, campaign_id)
    try:
        _finished, due = battle_finish(campaign_id=membership.campaign_id)
    except Http404 as error:
        return _answer(request, membership, 409, error=_message(error))
    names = ", ".join(unit["name"] for unit in due)
    notice = (
        _("The battle is over. Due a roll for scars: %(names)s.") % {"names": names}
        if names
        else _("The battle is over.")
    )
    return _answer(request, membership, notice=notice)


@login_required
@require_POST
def battle_unit_action(
    request: HttpRequest, campaign_id: int, character_id: int, action: str
) -> HttpResponse:
    """A quick form of the board: one action of one unit, by the referee."""
    membership = _referee(request, campaign_id)
    ruleset = access_battles_rules(membership)
    access = access_character(request.user, character_id)
    if access.character.campaign_id != membership.campaign_id or action not in (
        *BOARD_ACTIONS,
        *AFTER_ACTIONS,
    ):
        raise Http404("no such unit or action")
    try:
        params = read_quick_form(ruleset, action, request.POST)
        resolution = resolution_create_action(
            character_id=character_id,
            actor=request.user,
            by_referee=True,
            action=action,
            params=params,
        )
    except (*BAD_INPUT, *CONFLICT) as error:
        return _answer(request, membership, _status(error), errors={character_id: _message(error)})
    return _answer(request, membership, notice=resolution.said_summary)
