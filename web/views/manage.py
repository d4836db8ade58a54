"""The referee's campaign settings page and a player's "leave" (issue 13): name, options,
"actions move the clock", players, invite links, deleting the campaign. Each form posts
to its own service (campaigns.services, characters.services, rules.play.editing)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from campaigns.access import access_campaign
from campaigns.models import Invite, Membership
from campaigns.selectors import campaign_calendar, campaigns_of_user, invites_of, members_of
from campaigns.services import (
    MAX_INVITE_HOURS,
    campaign_calendar_set,
    campaign_delete,
    campaign_update,
    invite_create,
    invite_revoke,
    invite_usable,
    membership_digest_set,
)
from characters.services import campaign_leave, member_remove
from core.cleaning import loads_json, valid_id
from core.errors import ResolutionConflict
from core.said import said
from rules.engine.calendar import PRESETS, CalendarError
from rules.engine.registry import get_ruleset
from rules.logbook.importing import campaign_import, export_players
from web.plain import (
    PLAIN,
    error_said,
    error_text,
    field_labels,
    plain_import_problem,
    plain_message,
)
from web.referee import referee_membership
from web.views.campaigns import _posted_options, option_fields
from web.views.clock import calendar_form_values, calendar_preview_rows, posted_calendar

FORMS = ("settings", "calendar", "invite", "revoke", "remove", "delete")


def _words(error: Exception, labels: dict[str, str]) -> str:
    """What went wrong, in the page's words: options named by their labels, no schema
    wording (web.plain; the API keeps the precise messages)."""
    said = error.messages if isinstance(error, ValidationError) else [error_text(error)]
    return " ".join(plain_message(message, labels) for message in said)


# What the referee's own list says of an invite that no longer works (campaigns.services.
# invite_usable words it for the person who opened it).
def _invite_state(invite: Invite, refusal: str | None) -> str:
    if refusal is None:
        return ""
    if invite.revoked_at is not None:
        return _("was revoked: it lets nobody in")
    if invite.single_use and invite.uses >= 1:
        return _("was for one person and has been used")
    return _("has expired")


def _hours(raw: str) -> int | None:
    """The invite's lifetime as typed: empty for never, else a whole number of hours."""
    if not raw:
        return None
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_INVITE_HOURS:
        # the range said, whatever was wrong (issue 34: -1 and 99999999999 read alike)
        raise ValidationError(
            _(
                "Expires after: a whole number of hours from 1 to %(hours)s (a year); "
                "leave it empty for a link that never expires."
            )
            % {"hours": MAX_INVITE_HOURS}
        )
    return int(raw)


@login_required
def campaign_manage(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = referee_membership(request, campaign_id)
    campaign = membership.campaign
    ruleset = get_ruleset(campaign.ruleset)
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        form = request.POST.get("form", "")
        try:
            notice = _post(request, membership, form)
        except (
            ValidationError,
            ResolutionConflict,
            ValueError,
            CalendarError,
            Invite.DoesNotExist,
        ) as error:
            labels = field_labels(option_fields(ruleset, {}))
            errors[form if form in FORMS else "settings"] = _words(error, labels)
            status = 409 if isinstance(error, ResolutionConflict) else 400
        else:
            if form == "delete":
                messages.success(request, notice)
                return redirect("home")
            messages.success(request, notice)
            return redirect(reverse("campaign-manage", args=[campaign_id]))
        campaign.refresh_from_db()
    people = members_of(campaign)
    invites: list[dict[str, Any]] = [
        {"invite": invite, "refusal": _invite_state(invite, invite_usable(invite))}
        for invite in invites_of(campaign)
    ]
    context = {
        "campaign": campaign,
        "option_fields": option_fields(ruleset, dict(campaign.options)),
        "chosen": ruleset,
        "people": people,
        "invites": invites,
        "errors": errors,
        "calendar": calendar_form_values(campaign)
        if not (errors.get("calendar") and request.method == "POST")
        else request.POST,
        "presets": [(key, said(words)) for key, (words, _) in PRESETS.items()],
        "rows": calendar_preview_rows(campaign_calendar(campaign), campaign.clock),
        "max_invite_hours": MAX_INVITE_HOURS,
    }
    return render(request, "campaigns/manage.html", context, status=status)


def _post(request: HttpRequest, membership: Membership, form: str) -> str:
    campaign = membership.campaign
    data = request.POST
    if form == "settings":
        ruleset = get_ruleset(campaign.ruleset)
        name = str(data.get("name", "")).strip()
        if not name:
            raise ValidationError(_("The campaign needs a name: nothing was saved."))
        campaign_update(
            campaign_id=campaign.pk,
            name=name,
            options=_posted_options(ruleset, data),
            actions_move_clock=data.get("actions_move_clock") == "on",
        )
        return _("Settings saved.")
    if form == "calendar":
        key = str(data.get("preset", "")).strip() if "use_preset" in data else ""
        calendar = None if key else posted_calendar(data)
        campaign_calendar_set(campaign_id=campaign.pk, calendar=calendar, preset_key=key)
        return _("Calendar saved: the clock reads in it now (it did not move).")
    if form == "invite":
        hours = str(data.get("expires_in_hours", "")).strip()
        invite = invite_create(
            campaign=campaign,
            user=request.user,
            expires_in_hours=_hours(hours),
            single_use=data.get("single_use") == "on",
        )
        return _("New invite link ready: code %(code)s.") % {"code": invite.code}
    if form == "revoke":
        invite_revoke(campaign_id=campaign.pk, invite_id=valid_id(data.get("invite", "")))
        return _("The invite link is revoked: it lets nobody in any more.")
    if form == "remove":
        member_remove(
            campaign_id=campaign.pk, user_id=valid_id(data.get("user", "")), referee=request.user
        )
        return _("The player is removed; their characters are yours now.")
    if form == "delete":
        campaign_delete(campaign_id=campaign.pk, confirm=str(data.get("confirm", "")))
        return _("%(campaign)s is deleted.") % {"campaign": campaign.name}
    raise ValidationError(_("Unknown form."))


@login_required
@require_POST
def campaign_leave_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = access_campaign(request.user, campaign_id)
    try:
        campaign_leave(campaign_id=membership.campaign_id, user=request.user)
    except ResolutionConflict as error:
        messages.error(request, error_said(error), extra_tags=PLAIN)
        return redirect("campaign", campaign_id=campaign_id)
    messages.success(request, _("You left %(campaign)s.") % {"campaign": membership.campaign.name})
    return redirect("home")


MAX_IMPORT_BYTES = 20 * 1024 * 1024
NAME_LENGTH = 120


def _named_as_copy(data: Any, taken: set[str]) -> Any:
    """An export whose campaign name the importer already has, named "... (copy)" (or
    "(copy 2)"...): two campaigns of one name on the home page cannot be told apart."""
    meta = data.get("campaign") if isinstance(data, dict) else None
    if not isinstance(meta, dict) or str(meta.get("name", "")) not in taken:
        return data
    name = str(meta["name"])
    number = 1
    while True:
        suffix = " (copy)" if number == 1 else f" (copy {number})"
        copy = name[: NAME_LENGTH - len(suffix)] + suffix
        if copy not in taken:
            return {**data, "campaign": {**meta, "name": copy}}
        number += 1


def _posted_players(text: str) -> dict[str, str] | None:
    """The import page's "Players" box: a line per player of the file, "their name there
    = a username here"; a name alone is the same username here. None when empty."""
    mapping: dict[str, str] = {}
    for line in text.splitlines():
        old, sep, new = line.strip().partition("=")
        old, new = old.strip(), (new if sep else old).strip()
        if line.strip() and not (old and new):
            raise ValidationError(
                _(
                    "Write each player as their name in the file = a username here: "
                    "“%(line)s” is not."
                )
                % {"line": line.strip()}
            )
        if old:
            mapping[old] = new
    return mapping or None


def _names(names: list[str]) -> str:
    """ "alice", "alice and bob", "alice, bob and carol"."""
    if len(names) == 1:
        return names[0]
    return _("%(first)s and %(last)s") % {"first": ", ".join(names[:-1]), "last": names[-1]}


def _imported(campaign: Any, user: Any, data: Any, mapped: dict[str, str] | None) -> str:
    """What the import did, for its referee: who is invited, whose characters wait. The
    same whether the usernames belong to anyone or not (issue 36)."""
    said = _("%(campaign)s is imported: you are its referee.") % {"campaign": campaign.name}
    mapped = mapped or {}
    invited = sorted({new for new in mapped.values() if new != user.get_username()})
    if invited:
        said += " " + ngettext(
            "%(names)s is invited to play the characters the file says they played: until "
            "each accepts, those characters are yours.",
            "%(names)s are invited to play the characters the file says they played: until "
            "each accepts, those characters are yours.",
            len(invited),
        ) % {"names": _names(invited)}
    yourself = sorted(old for old, new in mapped.items() if new == user.get_username())
    if yourself:  # issue 34: said, not refused: the referee may mean to play them
        said += " " + ngettext(
            "You mapped %(names)s to yourself: the characters %(names)s played are yours, the "
            "referee's, and no one plays them; to give them back, invite %(names)s and "
            "choose who plays each on the character's edit page.",
            "You mapped %(names)s to yourself: the characters they played are yours, the "
            "referee's, and no one plays them; to give them back, invite them and choose "
            "who plays each on the character's edit page.",
            len(yourself),
        ) % {"names": _names(yourself)}
    left = [n for n in export_players(data) if n not in mapped and n != user.get_username()]
    if left:
        said += " " + _(
            "The characters %(names)s played are yours for now: invite them, then choose "
            "who plays each on the character's edit page."
        ) % {"names": _names(left)}
    return said


@login_required
def campaign_import_page(request: HttpRequest) -> HttpResponse:
    """Import a campaign from its downloaded JSON: a new campaign, you its referee; the
    file's players mapped to people here are invited to play their characters again
    (issues 29 and 36)."""
    error = ""
    status = 200
    players_text = ""
    if request.method == "POST":
        upload = request.FILES.get("export")
        players_text = str(request.POST.get("players", ""))
        try:
            players = _posted_players(players_text)
            if upload is None:
                raise ValidationError(_("Choose the campaign file you downloaded."))
            if upload.size is not None and upload.size > MAX_IMPORT_BYTES:
                raise ValidationError(_("That file is too large to import."))
            try:
                data = loads_json(upload.read().decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                raise ValidationError(_("That file is not a campaign download.")) from None
            data = _named_as_copy(data, {m.campaign.name for m in campaigns_of_user(request.user)})
            try:
                campaign = campaign_import(user=request.user, data=data, players=players)
            except ValidationError as refused:  # the API's words, said for people
                raise ValidationError([plain_import_problem(m) for m in refused.messages]) from None
        except ValidationError as problem:
            error = " ".join(problem.messages)
            status = 400
        else:
            messages.success(request, _imported(campaign, request.user, data, players))
            return redirect("campaign", campaign_id=campaign.pk)
    context = {"error": error, "players": players_text}
    return render(request, "campaigns/import.html", context, status=status)


@login_required
@require_POST
def campaign_digest_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """A player asks for the e-mail digest of what the clock does to their characters, or
    stops it (campaigns.services.membership_digest_set)."""
    membership = access_campaign(request.user, campaign_id)
    if membership.is_referee:
        raise PermissionDenied(_("The e-mail digest is for players: the referee sees everything."))
    on = request.POST.get("email_digest") == "on"
    membership_digest_set(membership_id=membership.pk, on=on)
    address = membership.user.email
    if not on:
        messages.success(request, _("No more e-mails from this campaign."))
    elif address:
        messages.success(
            request,
            _(
                "We will e-mail %(address)s what happens to your characters, "
                "at most once a day, and only when something did."
            )
            % {"address": address},
        )
    else:
        messages.success(
            request,
            _("Saved. Add an e-mail address on your account page so the e-mails can reach you."),
        )
    return redirect(reverse("campaign", args=[campaign_id]) + "#digest")
