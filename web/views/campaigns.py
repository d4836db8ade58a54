"""Pages of a campaign: create one, the referee's dashboard (the players' party page),
its live fragment, invites and joining.

Thin: access through ``campaigns.access``, writes through ``campaigns.services`` and
``rules.play.services``, reads through the selectors; the few page-only reads are the
small functions at the top, each one query whatever the party's size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from campaigns.access import access_campaign
from campaigns.models import Campaign, Membership
from campaigns.selectors import (
    campaign_calendar,
    campaign_members,
    campaign_seed_periods,
    clock_display,
    invite_for_code,
    latest_invite,
    membership_of,
)
from campaigns.services import (
    campaign_create,
    campaign_join,
    campaign_unarchive,
    invite_create,
    membership_reports_seen,
)
from characters.models import Character
from characters.selectors import PartyMember, party
from core.cleaning import reject_nul_characters
from core.errors import ResolutionConflict
from core.said import said
from rules.battles.selectors import warband_rules
from rules.clock.models import ClockJob
from rules.clock.selectors import clock_hold, clock_jobs_for_campaign, reports_since
from rules.engine.calendar import date_at
from rules.engine.interface import RuleError, Ruleset
from rules.engine.registry import get_ruleset, ruleset_keys
from rules.log.models import EffectState, ScheduledEffect
from rules.log.selectors import effects_for_viewer
from rules.play.dice_rotation import campaign_archive, campaign_dice_rotate
from web.forms import FormField, ParamsError, humanize, parse_params, schema_fields
from web.htmx import is_htmx
from web.live import party_stamp, party_unchanged, tagged
from web.plain import PLAIN, choice_said, error_said, error_text, plain_message
from web.referee import referee_membership
from web.rulesets import sheet_templates
from web.templatetags.sawbones import effect_text
from web.views.clock import report_context

TIMELINE_LENGTH = 12
DAY = 24 * 60
OPTION_PREFIX = "opt."  # the campaign options' names on the new-campaign form
PENDING_INVITE = "pending_invite"  # session key: the invite code opened while logged out
MORNING_HOUR = 6  # "next morning" on the clock buttons: the next 06:00
# The live clock's choices: in-game minutes per real minute (rules.clock.live.clock_live_set).
LIVE_RATIOS = (
    ("0", gettext_lazy("Off")),
    ("1", gettext_lazy("1 minute per minute (real time)")),
    ("10", gettext_lazy("10 minutes per minute")),
    ("60", gettext_lazy("1 hour per minute")),
    ("1440", gettext_lazy("1 day per minute")),
)


def posted_text(data: Any, key: str, label: str) -> str:
    """A posted text field, stripped; NUL characters are a RuleError (400), as in the API."""
    value = str(data.get(key, "")).strip()
    reject_nul_characters(value, label)
    return value


def available_rulesets() -> list[Ruleset]:
    """The registry's rulesets that load; one broken ruleset fails only its campaigns."""
    loaded = []
    for key in ruleset_keys():
        try:
            loaded.append(get_ruleset(key))
        except (ImportError, AttributeError, RuleError):
            continue
    return loaded


def pending_effects(campaign: Campaign, *, referee: bool, viewer_id: int) -> list[ScheduledEffect]:
    """The campaign's pending effects in due order, as the viewer may see them (G-4)."""
    return list(
        effects_for_viewer(
            campaign,
            viewer_id=viewer_id,
            viewer_is_referee=referee,
            state=EffectState.PENDING,
        )
    )


@dataclass(frozen=True)
class TimelineRow:
    """Effects falling due at the same minute with the same meaning, on one line."""

    due_at: int
    text: str
    names: list[str]
    hidden: bool


def timeline(effects: list[ScheduledEffect], length: int) -> tuple[list[TimelineRow], int]:
    """The first ``length`` rows of the timeline and how many effects come after them."""
    rows: list[TimelineRow] = []
    for index, effect in enumerate(effects):
        text = effect_text(effect)
        last = rows[-1] if rows else None
        if last is not None and last.due_at == effect.due_at and last.text == text:
            last.names.append(effect.character.name)
            continue
        if len(rows) == length:
            return rows, len(effects) - index
        rows.append(TimelineRow(effect.due_at, text, [effect.character.name], effect.hidden))
    return rows, 0


def latest_job(campaign: Campaign) -> ClockJob | None:
    jobs = clock_jobs_for_campaign(campaign, limit=1)
    return jobs[0] if jobs else None


def _stamp(clock: int, count: int, versions: int, job: ClockJob | None) -> str:
    """The dashboard's stamp as its page has it (web.live.party_stamp)."""
    row: dict[str, Any] = {"clock": clock, "count": count, "versions": versions, "job_pk": None}
    if job is not None:
        row |= {"job_pk": job.pk, "job_state": job.state}
    return party_stamp(row, referee=True)


@dataclass(frozen=True)
class Card:
    """One party member as the viewer sees them on the dashboard."""

    member: PartyMember
    visible: bool  # the viewer may see the sheet (their own, or the referee)
    sheet: dict[str, Any] | None
    raw_sheet: dict[str, Any] | None  # the stored sheet, for the referee only (G-4)
    choice: dict[str, Any] | None
    effects: list[ScheduledEffect]

    @property
    def character(self) -> Character:
        return self.member.character


def _cards(
    members: list[PartyMember], ruleset: Ruleset, effects: list[ScheduledEffect], referee: bool
) -> list[Card]:
    by_character: dict[int, list[ScheduledEffect]] = {}
    for effect in effects:
        by_character.setdefault(effect.character_id, []).append(effect)
    cards = []
    for member in members:
        character = member.character
        visible = referee or member.is_own
        cards.append(
            Card(
                member=member,
                visible=visible,
                sheet=ruleset.public_sheet(character.sheet) if visible else None,
                raw_sheet=character.sheet if referee else None,
                choice=choice_said(character.pending_choice) if visible else None,
                effects=by_character.get(character.pk, []),
            )
        )
    # Whatever waits on a decision comes first (the dashboard highlights it).
    return sorted(cards, key=lambda card: card.choice is None)


def _live_context(membership: Membership, viewer_id: int) -> dict[str, Any]:
    campaign = membership.campaign
    ruleset = get_ruleset(campaign.ruleset)
    referee = membership.is_referee
    members = party(campaign, viewer_id=viewer_id)
    for member in members:
        member.character.campaign = campaign  # no query per card
    effects = pending_effects(campaign, referee=referee, viewer_id=viewer_id)
    cards = _cards(members, ruleset, effects, referee)
    rows, more = timeline(effects, TIMELINE_LENGTH)
    job = latest_job(campaign) if referee else None
    # what holds the clock and what moves it on (issue 34): the oldest unfinished job,
    # not the newest, which may be queued behind it
    hold = clock_hold(campaign) if referee else None
    return {
        "campaign": campaign,
        "membership": membership,
        "is_referee": referee,
        "ruleset": ruleset,
        "cards": cards,
        "waiting": sum(1 for card in cards if card.choice),
        "timeline": rows,
        "timeline_more": more,
        "card_templates": sheet_templates(campaign.ruleset, "card"),
        "clock_text": said(clock_display(campaign.clock, campaign)),
        "clock_hold": hold,
        "stamp": _stamp(
            campaign.clock, len(members), sum(m.character.version for m in members), job
        ),
    }


def creation_fields(ruleset: Ruleset, values: dict[str, Any] | None = None) -> list[FormField]:
    """The new-character form: the ruleset's first fields, each defaulting as the rules do."""
    return schema_fields(
        ruleset.sheet_schema,
        values=values,
        only=ruleset.creation_fields,
        ruleset=ruleset.key,
        defaults=ruleset.default_sheet(),
    )


def until_fields(campaign: Campaign, morning_hour: int) -> dict[str, Any]:
    """The clock form's "until a date" fields (the API's ``until``), in the campaign's
    calendar, filled with tomorrow morning: its months by name (none without a calendar:
    then "Day N" alone)."""
    calendar = campaign_calendar(campaign)
    tomorrow = date_at(calendar, campaign.clock + DAY)
    return {
        "months": [name for name, _ in calendar.months] if calendar is not None else [],
        "year": tomorrow.year,
        "month": tomorrow.month,
        "day": tomorrow.day,
        "time": f"{morning_hour:02d}:00",
    }


def dashboard_context(request: HttpRequest, membership: Membership, **extra: Any) -> dict[str, Any]:
    context = _live_context(membership, membership.user_id)
    campaign = membership.campaign
    if membership.is_referee:
        context["invite"] = latest_invite(campaign)
        context["members"] = campaign_members(campaign)
    context["own_characters"] = [card.character for card in context["cards"] if card.member.is_own]
    context["creation_fields"] = creation_fields(context["ruleset"], extra.pop("values", None))
    context["morning_hour"] = MORNING_HOUR
    if membership.is_referee:
        context["until"] = until_fields(campaign, MORNING_HOUR)
    context["has_battles"] = warband_rules(campaign) is not None
    context["has_tables"] = bool(context["ruleset"].tables)  # no "Tables" to an empty page
    ratio = format(campaign.live_ratio.normalize(), "f")  # "60", "2.5"
    known = dict(LIVE_RATIOS)
    context["live_ratio"] = ratio
    context["live_ratios"] = (
        LIVE_RATIOS
        if ratio in known
        else (*LIVE_RATIOS, (ratio, _("%(ratio)s minutes per minute") % {"ratio": ratio}))
    )
    context.update(extra)
    return context


@login_required
def campaign_detail(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The referee's dashboard; for a player, the party page."""
    membership = access_campaign(request.user, campaign_id)
    context = dashboard_context(request, membership)
    context["seed_periods"] = campaign_seed_periods(membership.campaign)
    if not membership.is_referee:
        context["news"] = _news(membership, context["own_characters"])
    return render(request, "campaigns/detail.html", context)


def _news(membership: Membership, own_characters: list[Character]) -> list[dict[str, Any]]:
    """What the clock did to the player's characters since they last looked (its reports,
    rules.clock.report); looking marks them seen."""
    seen_at = timezone.now()
    since = membership.reports_seen_at or membership.joined_at
    reports = reports_since(membership.campaign, own={c.pk for c in own_characters}, since=since)
    membership_reports_seen(membership_id=membership.pk, seen_at=seen_at)
    return [report_context(membership.campaign, report) for report in reports]


@login_required
@require_POST
def dice_rotate(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The referee reveals the dice seed in use and commits to a new one (docs/dice.md)."""
    done = _("The dice seed is revealed: every roll made with it can now be checked.")
    return _referee_post(request, campaign_id, campaign_dice_rotate, done, "#dice")


def _to_campaign(request: HttpRequest, campaign_id: int, anchor: str) -> HttpResponse:
    """Back to the campaign page after a form there. From htmx: a redirect that differs
    from the page in its #anchor only would not load it again, so the page refreshes."""
    page = reverse("campaign", args=[campaign_id])
    if is_htmx(request):
        answer = HttpResponse(status=204)
        if urlsplit(request.headers.get("HX-Current-URL", "")).path == page:
            answer["HX-Refresh"] = "true"
        else:
            answer["HX-Redirect"] = page + anchor
        return answer
    return redirect(page + anchor)


def _referee_post(
    request: HttpRequest, campaign_id: int, write: Callable[..., object], done: str, anchor: str
) -> HttpResponse:
    """A referee's button on the campaign page: ``write(campaign_id=...)``, then back to
    the page with ``done``, or with the refusal in words (409)."""
    membership = referee_membership(request, campaign_id)
    try:
        write(campaign_id=membership.campaign_id)
    except ResolutionConflict as error:
        messages.error(request, error_said(error), extra_tags=PLAIN)
    else:
        messages.success(request, done)
    return _to_campaign(request, campaign_id, anchor)


@login_required
@require_POST
def campaign_archive_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The referee archives the campaign; its dice seed is revealed (docs/dice.md)."""
    done = _("The campaign is archived. The dice seed is revealed: every roll can now be checked.")
    return _referee_post(request, campaign_id, campaign_archive, done, "#archive")


@login_required
@require_POST
def campaign_unarchive_view(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The referee brings an archived campaign back into play."""
    done = _("The campaign is back in play.")
    return _referee_post(request, campaign_id, campaign_unarchive, done, "#archive")


@login_required
def campaign_live(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Polled by the dashboard: 304 while its stamp (the ETag) holds, read with the
    viewer's membership in one query (web/live.py), else the fresh party and timeline."""
    if (not_modified := party_unchanged(request, campaign_id)) is not None:
        return not_modified
    membership = access_campaign(request.user, campaign_id)
    context = _live_context(membership, membership.user_id)
    response = render(request, "campaigns/_live.html", {**context, "oob": True})
    return tagged(response, context["stamp"])


# -- creating a campaign -----------------------------------------------------------------


def option_fields(ruleset: Ruleset, values: dict[str, Any] | None = None) -> list[FormField]:
    """The campaign options form: built from the ruleset's options schema by the same
    builder as the character forms, each saying its default."""
    fields = schema_fields(ruleset.options_schema, values=values, prefix=OPTION_PREFIX)
    for control in fields:
        default = ruleset.options[control.key]
        shown = ", ".join(map(str, default)) if isinstance(default, list) else default
        if isinstance(default, bool):
            shown = "on" if default else "off"
        control.help = f"{control.help} Default: {shown}.".strip()
    return fields


def _posted_options(ruleset: Ruleset, data: Any) -> dict[str, Any]:
    for key in ruleset.options:
        reject_nul_characters(data.get(OPTION_PREFIX + key), humanize(key))
    try:
        return parse_params(option_fields(ruleset), data)
    except ParamsError as error:
        raise ValidationError({"options": [str(error)]}) from None


@login_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: HttpRequest) -> HttpResponse:
    rulesets = available_rulesets()
    by_key = {ruleset.key: ruleset for ruleset in rulesets}
    chosen = by_key.get(request.POST.get("ruleset") or request.GET.get("ruleset", ""))
    chosen = chosen or rulesets[0]
    errors: dict[str, list[str]] = {}
    name = ""
    values: dict[str, Any] | None = None
    if request.method == "POST":
        name = str(request.POST.get("name", "")).strip()
        try:
            name = posted_text(request.POST, "name", _("Campaign name"))
            options = _posted_options(chosen, request.POST)
            values = options
            if not name:
                raise ValidationError({"name": [_("Give the campaign a name.")]})
            campaign = campaign_create(
                user=request.user, name=name, ruleset=chosen.key, options=options
            )
        except ValidationError as error:
            errors = error.message_dict
        except RuleError as error:
            errors = {"__all__": [plain_message(error_text(error))]}
        else:
            messages.success(
                request,
                _("%(campaign)s is ready. Invite your players.") % {"campaign": campaign.name},
            )
            return redirect("campaign", campaign_id=campaign.pk)
    return render(
        request,
        "campaigns/new.html",
        {
            "rulesets": rulesets,
            "chosen": chosen,
            "name": name,
            "errors": errors,
            "other_errors": [
                message
                for key, found in errors.items()
                if key not in {"name", "ruleset", "options"}
                for message in found
            ],
            "option_fields": option_fields(chosen, values),
        },
        status=400 if errors else 200,
    )


@login_required
def campaign_options(request: HttpRequest) -> HttpResponse:
    """The options fieldset for the ruleset picked on the new-campaign form (htmx)."""
    by_key = {ruleset.key: ruleset for ruleset in available_rulesets()}
    chosen = by_key.get(request.GET.get("ruleset", ""))
    if chosen is None:
        return HttpResponse(status=404)
    return render(
        request,
        "campaigns/_options.html",
        {"chosen": chosen, "option_fields": option_fields(chosen)},
    )


# -- invites and joining -----------------------------------------------------------------


@login_required
@require_POST
def invite_new(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = referee_membership(request, campaign_id)
    # Other links (single-use, expiring ones made in Settings) stay unless asked (issue 24).
    revoke = request.POST.get("revoke_others") in ("on", "true", "1")
    invite = invite_create(campaign=membership.campaign, user=request.user, replace_others=revoke)
    notice = (
        _("New invite link ready: send it to your players. Earlier links no longer work.")
        if revoke
        else _("New invite link ready: send it to your players. Earlier links still work.")
    )
    if is_htmx(request):  # said beside the link, not on the next page
        return render(
            request,
            "campaigns/_invite.html",
            {"invite": invite, "campaign": membership.campaign, "invite_notice": notice},
        )
    messages.success(request, notice)
    return redirect(reverse("campaign", args=[campaign_id]) + "#invite")


def pending_invite_url(request: HttpRequest) -> str:
    """The join page of the invite link opened before logging in or signing up, if any."""
    code = request.session.get(PENDING_INVITE)
    return reverse("join-code", args=[code]) if isinstance(code, str) and code else ""


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, code: str = "") -> HttpResponse:
    """``/join/<code>/``: see which campaign the link is for, then join it as a player."""
    code = (request.POST.get("code") or code).strip().replace("\x00", "")
    if not request.user.is_authenticated:
        if code:  # kept through log-in or sign-up, whichever link they follow
            request.session[PENDING_INVITE] = code[:64]
        return redirect_to_login(request.get_full_path())
    invite = invite_for_code(code)
    error = ""
    if request.method == "POST":
        try:
            membership = campaign_join(user=request.user, code=code)
        except ValidationError as exc:
            error = " ".join(plain_message(message) for message in exc.messages)
        else:
            request.session.pop(PENDING_INVITE, None)
            messages.success(
                request, _("Welcome to %(campaign)s.") % {"campaign": membership.campaign.name}
            )
            return redirect("campaign", campaign_id=membership.campaign_id)
    elif code and invite is None:
        error = _("No campaign has this invite code. Check the link with your referee.")
    already = membership_of(invite.campaign, request.user) if invite else None
    return render(
        request,
        "campaigns/join.html",
        {"code": code, "invite": invite, "error": error, "already": already},
        status=400 if error else 200,
    )
