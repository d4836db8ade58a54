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

import json
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.selectors import user_for_discord
from accounts.services import discord_link_redeem, discord_unlink
from campaigns.access import access_campaign, refuse_archived
from campaigns.models import Campaign, Membership
from campaigns.selectors import clock_display
from characters.access import CharacterAccess, access_character, may_act
from characters.choices import public_choice
from core.errors import UNAVAILABLE_ERRORS, NotAllowed, ResolutionConflict
from discord_play import messages as m
from discord_play.discord_api import edit_original
from discord_play.selectors import (
    Pick,
    campaign_for_channel,
    characters_in_full,
    last_advance_clock,
    refereed_campaigns,
)
from discord_play.services import channel_bind
from discord_play.sheets import sheet_embed
from discord_play.tasks import report_advance
from discord_play.telling import resolution_embed, site_url
from rules.clock.api import advance_minutes
from rules.clock.services import clock_advance_start
from rules.engine.calendar import DAY
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, ActionSpec, OddsUnavailable, RuleError
from rules.engine.registry import get_ruleset
from rules.engine.text import duration_text
from rules.log.models import Resolution
from rules.log.selectors import action_odds
from rules.logbook.recap import RecapWindow, campaign_recap
from rules.play.services import resolution_answer_choice, resolution_create_action_checked
from web.plain import plain_message
from web.views.characters import odds_percent

# Discord's interaction types and answer types (its "Receiving and Responding").
PING, COMMAND, COMPONENT, AUTOCOMPLETE = 1, 2, 3, 4
PONG, MESSAGE, DEFERRED, UPDATE, AUTOCOMPLETE_RESULT = 1, 4, 5, 7, 8
# Button styles.
PRIMARY, SECONDARY, DANGER = 1, 2, 4
# A choice's button: "choice:<character>:<the choice id's start>:<option's index>"; a
# confirmed lethal option says "sure" instead of "choice".
_CHOICE_ID = re.compile(r"^(choice|sure):(\d{1,19}):([0-9a-f]{1,32}):(\d{1,2})$")
CHOICE_ID_PREFIX = 16  # hex digits of the choice's id a button carries
PARAMS_MAX = 1000


@dataclass
class Answer:
    """What to answer Discord: the answer's ``type`` and ``data``, and what to do once the
    answer has gone (the advance's follow-up is sent after Discord has its deferred
    answer)."""

    data: dict[str, Any] | None = None
    type: int = MESSAGE
    after: list[Callable[[], None]] = field(default_factory=list)

    @property
    def body(self) -> dict[str, Any]:
        return {"type": self.type} if self.data is None else {"type": self.type, "data": self.data}


class Refused(Exception):
    """What the asker is told, in their own message only; nothing was done."""


# -- reading the interaction ----------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    raw: Mapping[str, Any]

    @property
    def id(self) -> str:
        return str(self.raw.get("id", ""))

    @property
    def type(self) -> int:
        return int(self.raw.get("type", 0))

    @property
    def token(self) -> str:
        return str(self.raw.get("token", ""))

    @property
    def discord_user_id(self) -> str:
        member = self.raw.get("member") or {}
        user = member.get("user") or self.raw.get("user") or {}
        return str(user.get("id", ""))

    @property
    def guild_id(self) -> str:
        return str(self.raw.get("guild_id") or "")

    @property
    def channel_id(self) -> str:
        channel = self.raw.get("channel") or {}
        return str(self.raw.get("channel_id") or channel.get("id") or "")

    @property
    def data(self) -> Mapping[str, Any]:
        return self.raw.get("data") or {}

    @property
    def subcommand(self) -> str:
        options = self.data.get("options") or []
        return str(options[0].get("name", "")) if options else ""

    @property
    def options(self) -> dict[str, Any]:
        """The subcommand's options by name."""
        options = self.data.get("options") or []
        inner = options[0].get("options") or [] if options else []
        return {str(o.get("name")): o.get("value") for o in inner}

    @property
    def focused(self) -> tuple[str, str]:
        """The option being typed in an autocomplete interaction, and what is typed."""
        options = self.data.get("options") or []
        inner = options[0].get("options") or [] if options else []
        for option in inner:
            if option.get("focused"):
                return str(option.get("name")), str(option.get("value") or "")
        return "", ""

    def text(self, name: str) -> str:
        value = self.options.get(name)
        return "" if value is None else str(value).strip()


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


# -- which campaign, which character -----------------------------------------------------------
NO_CHANNEL_CAMPAIGN = gettext_lazy(
    "No campaign of yours follows this channel. Name a character, or ask the campaign's "
    "referee to bind this channel with /sawbones campaign."
)
NOTHING_SEEN = gettext_lazy("There is nothing of that name or number that you may see.")
NO_SUCH_CHARACTER = gettext_lazy("You have no character of that name or number that you may see.")


def channel_membership(call: Call, user: Any) -> Membership:
    """The person's membership of the campaign this channel follows; an outsider is told
    the same as where no campaign is bound (they learn nothing of it)."""
    campaign = campaign_for_channel(call.channel_id)
    if campaign is None:
        raise Refused(NO_CHANNEL_CAMPAIGN)
    try:
        return access_campaign(user, campaign.pk)
    except Http404:
        raise Refused(NO_CHANNEL_CAMPAIGN) from None


def find_character(call: Call, user: Any, text: str) -> CharacterAccess:
    """The character ``text`` names (its number, as autocomplete gives it, or its exact
    name), decided by ``characters.access``: one the person may not see is not found."""
    text = text.strip()
    if not text:
        raise Refused(_("Name a character."))
    if text.isdigit():
        try:
            return access_character(user, text)
        except Http404:
            raise Refused(NO_SUCH_CHARACTER) from None
    named = [p for p in characters_in_full(user) if p.character.name.casefold() == text.casefold()]
    here = campaign_for_channel(call.channel_id)
    if len(named) > 1 and here is not None:
        named = [p for p in named if p.character.campaign_id == here.pk] or named
    if not named:
        raise Refused(NO_SUCH_CHARACTER)
    if len(named) > 1:
        raise Refused(
            _("Several of your characters are called %(name)s: pick one from the list.")
            % {"name": text}
        )
    try:
        return access_character(user, named[0].character.pk)
    except Http404:
        raise Refused(NO_SUCH_CHARACTER) from None


def find_action(access: CharacterAccess, text: str) -> ActionSpec:
    """The action ``text`` names (its key, as autocomplete gives it, or its label)."""
    ruleset = get_ruleset(access.character.campaign.ruleset)
    wanted = text.strip().casefold()
    for spec in ruleset.actions:
        if wanted in (spec.key.casefold(), spec.label.casefold()):
            return spec
    raise Refused(
        _("%(ruleset)s characters have no action called %(action)s.")
        % {"ruleset": ruleset.name, "action": text.strip() or _("that")}
    )


_INTEGER = re.compile(r"^-?\d{1,15}$")


def parse_params(text: str) -> dict[str, Any]:
    """An action's params as typed: ``key=value`` pairs separated by spaces (quotes around
    a value with spaces; numbers, true and false as such), or a JSON object."""
    text = text.strip()
    if not text:
        return {}
    if len(text) > PARAMS_MAX:
        raise Refused(_("The params are too long."))
    if text.startswith("{"):
        try:
            given = json.loads(text)
        except ValueError:
            given = None
        if not isinstance(given, dict):
            raise Refused(_('The params in braces must be a JSON object, such as {"amount": 3}.'))
        return given
    try:
        parts = shlex.split(text)
    except ValueError:
        raise Refused(_("A quote in the params is not closed.")) from None
    params: dict[str, Any] = {}
    for part in parts:
        key, sign, raw = part.partition("=")
        if not sign or not key:
            raise Refused(
                _("Give the params as name=value pairs, such as amount=3: %(part)s is not one.")
                % {"part": part}
            )
        value: Any = raw
        if _INTEGER.match(raw):
            value = int(raw)
        elif raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        params[key] = value
    return params


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
            try:
                job_id = start()
            except Exception as error:
                edit_original(application_id, call.token, m.say(_refusal(error), ephemeral=False))
                raise
            report_advance.delay(job_id, application_id, call.token)

        return Answer(type=DEFERRED, after=[start_then_report])
    job_id = start()  # recorded before the answer: a worker runs it, whatever happens here

    def report() -> None:
        report_advance.delay(job_id, application_id, call.token)

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


# -- what an action or a choice did, for the channel -------------------------------------------
def choice_buttons(character_id: int, choice: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """A pending choice's options as buttons; a lethal one in red."""
    if choice is None:
        return []
    prefix = str(choice["id"])[:CHOICE_ID_PREFIX]
    return m.buttons(
        [
            (
                f"choice:{character_id}:{prefix}:{index}",
                str(option.get("label") or option.get("key")),
                DANGER if option.get("confirm") else PRIMARY,
            )
            for index, option in enumerate(choice.get("options", []))
        ]
    )


def resolution_message(
    resolution: Resolution, access: CharacterAccess, *, ephemeral: bool
) -> dict[str, Any]:
    choice = public_choice(resolution.pending_choice)
    content = ""
    if choice is not None:
        content = _("%(name)s has a choice to make: %(prompt)s") % {
            "name": m.plain(access.character.name),
            "prompt": m.plain(plain_message(choice["prompt"])),
        }
        # the buttons' labels may be shortened: each option whole, below
        options = [m.plain(str(o.get("label") or o.get("key"))) for o in choice["options"]]
        content += "\n" + "\n".join(f"- {option}" for option in options)
    return m.message(
        content=content,
        embeds=[resolution_embed(resolution)],
        components=choice_buttons(access.character.pk, choice),
        ephemeral=ephemeral,
    )


def choose(call: Call, user: Any) -> Answer:
    """A choice's button pressed: answered as ``POST characters/{id}/choices/`` answers it,
    by the owner or the referee as the choice says (ruling G-3)."""
    found = _CHOICE_ID.match(str(call.data.get("custom_id", "")))
    if found is None:
        raise Refused(_("That button is not one of Sawbones' any more."))
    kind, character_id, prefix, index = found.groups()
    try:
        access = access_character(user, character_id)
    except Http404:
        raise Refused(_("This choice is not yours to make.")) from None
    choice = access.character.pending_choice
    if choice is None or not str(choice["id"]).startswith(prefix):
        raise Refused(_("That choice is made already."))
    options = choice.get("options", [])
    if int(index) >= len(options):
        raise Refused(_("That choice is made already."))
    option = options[int(index)]
    if not may_act(choice.get("who", "owner"), is_referee=access.is_referee):
        raise Refused(_("Only the referee may make this choice."))
    if option.get("confirm") and kind != "sure":
        sure = m.buttons(
            [
                (
                    f"sure:{character_id}:{prefix}:{index}",
                    _("Yes: %(label)s") % {"label": option["label"]},
                    DANGER,
                )
            ]
        )
        return Answer(
            m.message(
                content=m.plain(plain_message(option["confirm"])), components=sure, ephemeral=True
            )
        )
    resolution = resolution_answer_choice(
        character_id=access.character.pk,
        actor=user,
        by_referee=access.is_referee,
        choice_id=str(choice["id"]),
        option=str(option["key"]),
    )
    access = access_character(user, character_id)
    answered = resolution_message(resolution, access, ephemeral=False)
    if kind == "sure":  # from the question only its asker saw: a message for the channel
        return Answer(answered)
    earlier = list((call.raw.get("message") or {}).get("embeds") or [])
    answered = m.message(
        content=answered.get("content", ""),
        embeds=[*earlier, *answered.get("embeds", [])],
        components=answered.get("components", []),
    )
    return Answer(answered, type=UPDATE)


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


# -- autocomplete ------------------------------------------------------------------------------
def autocomplete_for(call: Call) -> dict[str, Any]:
    """Choices for the option being typed, from what the person may see; none for someone
    not linked."""
    user = user_for_discord(call.discord_user_id) if call.discord_user_id else None
    if user is None:
        return m.autocomplete([])
    name, typed = call.focused
    typed = typed.strip().casefold()
    if name == "campaign":
        return m.autocomplete(
            (c.name, str(c.pk)) for c in refereed_campaigns(user) if typed in c.name.casefold()
        )
    if name == "character":
        here = campaign_for_channel(call.channel_id)
        picks = characters_in_full(user)
        picks.sort(key=lambda p: here is None or p.character.campaign_id != here.pk)
        return m.autocomplete(
            (_character_choice(pick, here), str(pick.character.pk))
            for pick in picks
            if typed in pick.character.name.casefold()
        )
    if name == "action":
        specs = _actions_for(call, user)
        return m.autocomplete(
            (spec.label, spec.key)
            for spec in specs
            if typed in spec.label.casefold() or typed in spec.key
        )
    return m.autocomplete([])


def _character_choice(pick: Pick, here: Campaign | None) -> str:
    if here is not None and pick.character.campaign_id == here.pk:
        return pick.character.name
    return f"{pick.character.name} ({pick.membership.campaign.name})"


def _actions_for(call: Call, user: Any) -> list[ActionSpec]:
    """The actions the person may take: the named character's, else those of the
    channel's campaign's ruleset."""
    try:
        access = find_character(call, user, call.text("character"))
    except Refused:
        campaign = campaign_for_channel(call.channel_id)
        if campaign is None:
            return []
        try:
            membership = access_campaign(user, campaign.pk)
        except Http404:
            return []
        ruleset = get_ruleset(campaign.ruleset)
        return [s for s in ruleset.actions if may_act(s.who, is_referee=membership.is_referee)]
    ruleset = get_ruleset(access.character.campaign.ruleset)
    return [spec for spec in ruleset.actions if access.may_take(spec.who)]
