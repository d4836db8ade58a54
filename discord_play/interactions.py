"""What each ``/sawbones`` interaction does (docs/discord.md), through the same access
functions (``campaigns.access``, ``characters.access``), services and selectors as the API:
who may do what is decided there, never here.

An interaction arrives as Discord's JSON (``discord_play.views`` checked its signature and
claimed its id); :func:`respond` answers with Discord's JSON: a message (``type`` 4), a
deferred answer edited later (5: the clock's advance), an updated message (7: a choice
answered by a button) or autocomplete choices (8). What someone reads is in plain words
(``web.plain``, as the pages say it); what only its asker should read is ephemeral.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import Http404
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.selectors import user_for_discord
from accounts.services import discord_link_redeem, discord_unlink
from campaigns.access import access_campaign, refuse_archived
from campaigns.models import Campaign
from campaigns.selectors import clock_display
from characters.access import CharacterAccess, access_character
from core.errors import UNAVAILABLE_ERRORS, NotAllowed, ResolutionConflict
from discord_play import messages as m
from discord_play.autocomplete import autocomplete_for
from discord_play.call import (
    AUTOCOMPLETE,
    AUTOCOMPLETE_RESULT,
    COMMAND,
    COMPONENT,
    DEFERRED,
    Answer,
    Call,
    Refused,
    parse_params,
)
from discord_play.choosing import choose, resolution_message
from discord_play.discord_api import edit_original
from discord_play.finding import (
    NO_CHANNEL_CAMPAIGN,
    NO_SUCH_CHARACTER,
    NOTHING_SEEN,
    channel_membership,
    find_action,
    find_character,
)
from discord_play.selectors import (
    campaign_for_channel,
    characters_in_full,
    last_advance_clock,
    refereed_campaigns,
)
from discord_play.services import channel_bind
from discord_play.sheets import sheet_embed
from discord_play.tasks import report_advance
from discord_play.telling import site_url
from rules.clock.api import advance_minutes
from rules.clock.services import clock_advance_start
from rules.engine.calendar import DAY
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, OddsUnavailable, RuleError
from rules.engine.text import duration_text
from rules.log.selectors import action_odds
from rules.logbook.recap import RecapWindow, campaign_recap
from rules.play.services import resolution_create_action_checked
from web.plain import plain_message
from web.views.characters import odds_percent


def how_to_link() -> str:
    account = site_url(reverse("account"))
    where = _(" (%(url)s)") % {"url": account} if account else ""
    return _(
        "Your Discord user is not linked to a Sawbones account yet. On your Sawbones "
        "account page%(where)s, under Link Discord, make a code; then type /sawbones link "
        "and give it the code."
    ) % {"where": where}


# -- answering ------------------------------------------------------------------------------
def respond(interaction: Mapping[str, Any]) -> Answer:
    """The answer to a signed interaction (not a PING: the view answers those)."""
    call = Call(interaction)
    if call.type == AUTOCOMPLETE:
        return Answer(autocomplete_for(call), type=AUTOCOMPLETE_RESULT)
    try:
        if call.type == COMMAND and call.subcommand == "link":
            return Answer(link(call))
        user = user_for_discord(call.discord_user_id) if call.discord_user_id else None
        if user is None:
            return Answer(m.say(how_to_link()))
        if call.type == COMPONENT:
            return choose(call, user)
        if call.type != COMMAND:
            return Answer(m.say(_("Sawbones does not know what to do with that.")))
        handler = COMMANDS.get(call.subcommand)
        if handler is None:
            return Answer(m.say(_("Sawbones has no such command.")))
        return handler(call, user)
    except REFUSED as error:
        return Answer(m.say(_refusal(error)))


REFUSALS: tuple[type[Exception], ...] = (
    RuleError,
    DiceError,
    ActionBlocked,
    ResolutionConflict,
    NotAllowed,
    ValidationError,
)


# What a command may be refused with: said to its asker, nothing done.
REFUSED: tuple[type[BaseException], ...] = (Refused, Http404, *REFUSALS, *UNAVAILABLE_ERRORS)


def _refusal(error: BaseException) -> str:
    """What the asker is told when their command is refused, in plain words."""
    if isinstance(error, Refused):
        return str(error)
    if isinstance(error, Http404):  # whatever it was, they may not see it: nothing of it
        return str(NOTHING_SEEN)
    if isinstance(error, ValidationError):
        return " ".join(plain_message(text) for text in error.messages)
    if isinstance(error, UNAVAILABLE_ERRORS):
        return _(
            "Sawbones cannot reach its database or its task queue just now. Nothing was "
            "changed; try again in a minute."
        )
    if isinstance(error, REFUSALS):
        return plain_message(str(error))
    return _("Sawbones could not do that.")


def link(call: Call) -> dict[str, Any]:
    user = discord_link_redeem(code=call.text("code"), discord_user_id=call.discord_user_id)
    return m.say(
        _(
            "Linked: from now on your Sawbones commands here act as %(name)s. Type "
            "/sawbones unlink to stop."
        )
        % {"name": user.get_username()}
    )


def unlink(call: Call, user: Any) -> Answer:
    discord_unlink(user=user)
    return Answer(m.say(_("Unlinked: your Discord user acts as nobody in Sawbones any more.")))


# -- the commands -------------------------------------------------------------------------------
def bind(call: Call, user: Any) -> Answer:
    if not call.guild_id or not call.channel_id:
        raise Refused(_("Bind a channel of a server, not a direct message."))
    text = call.text("campaign")
    campaigns = refereed_campaigns(user)
    chosen = [c for c in campaigns if text in (str(c.pk), c.name)] or [
        c for c in campaigns if c.name.casefold() == text.casefold()
    ]
    campaign_id = chosen[0].pk if len(chosen) == 1 else text
    try:
        membership = access_campaign(user, campaign_id, referee=True)
    except Http404:
        raise Refused(_("You are in no campaign of that name or number.")) from None
    channel_bind(
        campaign=membership.campaign,
        guild_id=call.guild_id,
        channel_id=call.channel_id,
        user=user,
    )
    return Answer(
        m.say(
            _(
                "This channel follows %(campaign)s now: /sawbones sheet, act, advance and "
                "recap here are about it."
            )
            % {"campaign": m.plain(membership.campaign.name)},
            ephemeral=False,
        )
    )


def sheet(call: Call, user: Any) -> Answer:
    named = call.text("character")
    if named:
        accesses = [find_character(call, user, named)]
    else:
        membership = channel_membership(call, user)
        accesses = [
            access_character(user, pick.character.pk)
            for pick in characters_in_full(user, membership.campaign)
            if pick.character.owner_id == user.pk
        ]
        if not accesses:
            raise Refused(
                _("You have no character in %(campaign)s. Name one to see it.")
                % {"campaign": m.plain(membership.campaign.name)}
            )
    embeds = [sheet_embed(access, link=site_url(_character_path(access))) for access in accesses]
    return Answer(m.message(embeds=embeds, ephemeral=True))


def _character_path(access: CharacterAccess) -> str:
    return reverse("character", args=[access.character.pk])


def act(call: Call, user: Any) -> Answer:
    access = find_character(call, user, call.text("character"))
    spec = find_action(access, call.text("action"))
    params = parse_params(call.text("params"))
    try:
        resolution, access = resolution_create_action_checked(
            character_id=access.character.pk, user=user, action=spec.key, params=params
        )
    except Http404:
        raise Refused(NO_SUCH_CHARACTER) from None
    return Answer(resolution_message(resolution, access, ephemeral=False))


def odds(call: Call, user: Any) -> Answer:
    access = find_character(call, user, call.text("character"))
    spec = find_action(access, call.text("action"))
    try:
        found = action_odds(
            access=access, action=spec.key, params=parse_params(call.text("params"))
        )
    except OddsUnavailable:
        raise Refused(_("The chances of this are not worked out yet.")) from None
    lines = [
        f"{m.plain(plain_message(o.label))}: {odds_percent(o.probability)} ({o.probability})"
        for o in found.outcomes
    ]
    notes = [m.plain(plain_message(note)) for note in found.notes]
    card = m.embed(
        title=_("The chances: %(action)s for %(name)s")
        % {"action": spec.label, "name": access.character.name},
        description="\n".join(lines + notes),
    )
    return Answer(m.message(embeds=[card], ephemeral=True))


def advance(call: Call, user: Any) -> Answer:
    campaign = campaign_for_channel(call.channel_id)
    if campaign is None:
        raise Refused(NO_CHANNEL_CAMPAIGN)
    try:
        membership = access_campaign(user, campaign.pk, referee=True)
    except Http404:
        raise Refused(NO_CHANNEL_CAMPAIGN) from None
    asked = {
        name: int(value)
        for name in ("days", "hours", "minutes")
        if isinstance(value := call.options.get(name), int) and not isinstance(value, bool)
    }
    minutes, until = advance_minutes(membership.campaign, asked)
    refuse_archived(membership.campaign)  # said now; the service decides under its lock
    application_id = str(call.raw.get("application_id") or settings.SAWBONES_DISCORD_APPLICATION_ID)
    language = translation.get_language() or str(settings.LANGUAGE_CODE)  # the follow-up's

    def start() -> int:
        job = clock_advance_start(
            campaign_id=membership.campaign_id,
            minutes=minutes,
            requested_by=user,
            request_id=f"discord:{call.id}",
            until=until,
        )
        return job.pk

    if current_app.conf.task_always_eager:
        # In-process (the embedded mode) the advance runs where it is started: started
        # once Discord has its deferred answer, so that answer never waits for it.
        def start_then_report() -> None:
            with translation.override(language):  # after the answer: the asker's language
                try:
                    job_id = start()
                except Exception as error:
                    refused = m.say(_refusal(error), ephemeral=False)
                    edit_original(application_id, call.token, refused)
                    raise
            report_advance.delay(job_id, application_id, call.token, language)

        return Answer(type=DEFERRED, after=[start_then_report])
    job_id = start()  # recorded before the answer: a worker runs it, whatever happens here

    def report() -> None:
        report_advance.delay(job_id, application_id, call.token, language)

    return Answer(type=DEFERRED, after=[report])


def recap(call: Call, user: Any) -> Answer:
    membership = channel_membership(call, user)
    campaign = membership.campaign
    days = call.options.get("days")
    if isinstance(days, int) and not isinstance(days, bool) and days > 0:
        start: int | None = max(0, campaign.clock - days * DAY)
    else:
        start = last_advance_clock(campaign)
    told = campaign_recap(membership, RecapWindow(clock_from=start))
    return Answer(m.message(**recap_message(campaign, told), ephemeral=True))


COMMANDS: dict[str, Callable[[Call, Any], Answer]] = {
    "unlink": unlink,
    "campaign": bind,
    "sheet": sheet,
    "act": act,
    "odds": odds,
    "advance": advance,
    "recap": recap,
}


# -- the recap -----------------------------------------------------------------------------------
def recap_message(campaign: Campaign, told: Mapping[str, Any]) -> dict[str, Any]:
    clock = told["clock"]
    page = site_url(reverse("campaign-recap", args=[campaign.pk]))
    rest = _("The whole recap: %(url)s") % {"url": page} if page else ""
    if clock["from"] is not None and clock["to"] is not None:
        span = _("From %(start)s to %(end)s: %(passed)s.") % {
            "start": clock_display(clock["from"], campaign),
            "end": clock_display(clock["to"], campaign),
            "passed": duration_text(clock["passed"]),
        }
    else:
        span = _("The clock did not move in this span.")
    cards = [
        m.embed(
            title=_("Recap: %(campaign)s") % {"campaign": campaign.name}, description=span, url=page
        )
    ]
    for character in told["characters"]:
        state = character["state_after"]
        if character["state_before"] != state:
            state = _("%(before)s, then %(after)s") % {
                "before": character["state_before"],
                "after": state,
            }
        lines = [
            f"{entry['date']} · {m.plain(entry['title'])}: "
            + m.plain(plain_message(entry["summary"]))
            for entry in character["entries"]
        ]
        cards.append(
            m.embed(
                title=f"{character['name']} ({state})",
                description="\n".join(lines),
                rest=rest,
            )
        )
    content = "" if told["characters"] else _("Nothing happened to your characters in this span.")
    return {"content": content, "embeds": cards, "more": rest}
