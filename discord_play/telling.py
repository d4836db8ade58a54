"""What happened, told to a Discord channel: one resolution (an action, a choice), and what
an advance of the clock did, its deaths and notable events first. Public messages: what
they show comes through ``discord_play.redaction`` (hidden rolls never). Used by the slash
commands, the advance's follow-up and the campaign's Discord webhooks alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _

from campaigns.models import Campaign
from campaigns.selectors import clock_display
from core.said import said
from discord_play import messages as m
from discord_play.redaction import public_report, public_resolution
from rules.clock.models import ClockJob, ClockJobState
from rules.clock.report import notable_first
from rules.engine.registry import get_ruleset
from rules.engine.words import text_said
from rules.log.models import Resolution
from web.plain import plain_message
from web.views.clock import entry_url
from web.views.sheet_page import log_title

# Of a report's message (6,000 characters at most): what the first embed, with the notable
# events, may take; the rest is shared by the characters' embeds.
NOTABLE_SHARE = 2000
MESSAGE_BUDGET = m.EMBEDS_TOTAL_MAX - 400  # the titles, and the line of what was left out
CHARACTERS_SHOWN = m.EMBEDS_MAX - 1


def site_url(path: str) -> str:
    """The page's whole address, or "" when the site's address (``SAWBONES_SITE_URL``) is
    not set: Discord takes whole addresses only."""
    base = str(getattr(settings, "SAWBONES_SITE_URL", "") or "").rstrip("/")
    return f"{base}{path}" if base else ""


def entry_link(campaign: Campaign, character_id: int, clock: int, resolution_id: int | None) -> str:
    """The campaign log at one entry (the pages' own link, ``web.views.clock.entry_url``)."""
    return site_url(entry_url(campaign, character_id, clock, resolution_id))


def dice_lines(rolls: list[dict[str, Any]]) -> list[str]:
    """Each roll shown as "label: 1d20 rolled 13"; a shuffle (the order of a deck) not."""
    lines = []
    for roll in rolls:
        if roll.get("kind") == "shuffle":
            continue
        dice = roll.get("dice") or []
        shown = f" ({', '.join(map(str, dice))})" if len(dice) > 1 else ""
        label = plain_message(said(text_said("label", roll)) or _("roll")).rstrip(".")
        lines.append(
            _("%(label)s: %(expression)s rolled %(total)s%(dice)s")
            % {
                "label": m.plain(label),
                "expression": roll.get("expression", ""),
                "total": roll.get("total", ""),
                "dice": shown,
            }
        )
    return lines


def resolution_embed(resolution: Resolution) -> dict[str, Any]:
    """One resolution for the channel: what happened in the game's words, its dice but the
    hidden ones (ruling G-4, ``discord_play.redaction``), the state after, a link to it in
    the log; red when it killed the character."""
    character = resolution.character
    campaign = character.campaign
    ruleset = get_ruleset(campaign.ruleset)
    view = public_resolution(resolution, ruleset_key=ruleset.key)
    labels = {spec.key: spec.label for spec in ruleset.actions}
    state = ruleset.status(resolution.sheet_after)
    before = ruleset.status(resolution.sheet_before) if resolution.sheet_before else ""
    died = state == "dead" and before != "dead"
    dice = dice_lines(view["rolls"])
    fields = [(_("Dice"), "\n".join(dice))] if dice else []
    fields.append((_("Now"), state.replace("_", " ")))
    link = entry_link(campaign, resolution.character_id, resolution.clock, resolution.pk)
    return m.embed(
        title=f"{character.name}: {log_title(resolution.kind, resolution.action, labels)}",
        description=m.plain(plain_message(view["summary"])),
        fields=fields,
        url=link,
        color=m.RED if died else m.GREEN,
        rest=_("Read it all in the log.") if link else "",
    )


def _when(campaign: Campaign, minute: int | None) -> str:
    return "" if minute is None else clock_display(minute, campaign)


def report_message(
    campaign: Campaign, report: Mapping[str, Any], job: ClockJob | None
) -> dict[str, Any]:
    """What the clock did (a report as the table reads it, ``redaction.public_report``):
    first its deaths and notable events, the worst first, then each character's events in
    time order; a report longer than a message is summed up, each character's events told
    as far as they fit, whole, and the whole report linked."""
    page = site_url(reverse("clock-report", args=[campaign.pk, job.pk])) if job else ""
    rest = (
        _("The whole report: %(url)s") % {"url": page}
        if page
        else _("The whole report is on the campaign's page.")
    )
    span = ""
    if report.get("from") is not None and report.get("to") is not None:
        span = _(": %(start)s to %(end)s") % {
            "start": _when(campaign, report["from"]),
            "end": _when(campaign, report["to"]),
        }
    characters = list(report.get("characters") or [])
    notable = notable_first(characters)
    lines = []
    for row in notable:
        link = entry_link(campaign, row["character"], row["clock"], row["resolution"])
        text = _("%(name)s %(words)s (%(when)s): %(summary)s") % {
            "name": f"**{m.plain(row['name'])}**",
            "words": row["words"],
            "when": _when(campaign, row["clock"]),
            "summary": m.plain(plain_message(row["summary"])),
        }
        lines.append(f"{text} [{_('In the log')}]({link})" if link else text)
    if not characters:
        lines.append(_("Nothing happened to anyone."))
    elif not notable:
        lines.append(_("Nothing notable: what happened to each is below."))
    deaths = any(row["kind"] == "death" for row in notable)
    first = m.embed(
        title=_("What the clock did%(span)s") % {"span": span},
        description=m.shorten("\n".join(lines), NOTABLE_SHARE, rest=rest),
        url=page,
        color=m.RED if deaths else (m.AMBER if notable else m.BLUE),
    )
    shown = characters[:CHARACTERS_SHOWN]
    budget = MESSAGE_BUDGET - m.embed_size(first)
    share = max(200, min(m.DESCRIPTION_MAX, budget // max(1, len(shown))))
    cards = [first]
    for entry in shown:
        events = entry["events"]
        if entry["state_before"] != entry["state_after"]:
            state = _("%(before)s, then %(after)s") % {
                "before": entry["state_before"],
                "after": entry["state_after"],
            }
        else:
            state = entry["state_after"]
        told = [
            f"{_when(campaign, event['clock'])} · {m.plain(plain_message(event['summary']))}"
            for event in events
        ]
        heading = _("%(count)s events.") % {"count": len(events)}
        cards.append(
            m.embed(
                title=f"{entry['name']} ({state.replace('_', ' ')})",
                description=m.shorten("\n".join([heading, *told]), share, rest=rest),
                color=m.BLUE,
            )
        )
    content = ""
    left = len(characters) - len(shown)
    if left > 0:
        content = _("%(count)s more characters are in the whole report.") % {"count": left}
    return m.message(content=content, embeds=cards, more=rest)


def advance_message(job: ClockJob) -> dict[str, Any]:
    """The follow-up of ``/sawbones advance``: how the advance ended, and its report as the
    table reads it."""
    campaign = job.campaign
    if job.state == ClockJobState.FAILED:
        return m.say(
            _(
                "The clock could not finish this advance. The referee sees why on the "
                "campaign's page and can resume it there."
            ),
            ephemeral=False,
        )
    if job.state in (ClockJobState.QUEUED, ClockJobState.RUNNING):
        return m.say(
            _(
                "The clock is still moving; what it did will be on the campaign's page when "
                "it is done."
            ),
            ephemeral=False,
        )
    told = report_message(campaign, public_report(job.report, job=job), job)
    if job.state == ClockJobState.WAITING:
        note = _(
            "The clock stopped at %(when)s: a choice waits. The referee resumes it once the "
            "choice is made."
        ) % {"when": _when(campaign, job.clock_reached)}
        told["content"] = f"{note} {told.get('content', '')}".strip()
    return told
