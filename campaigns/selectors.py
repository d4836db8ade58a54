"""Reads for campaigns."""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import Count, QuerySet

from campaigns.models import Campaign, Invite, Membership, RevealedSeed
from core.errors import error_text
from rules.engine.calendar import Calendar, CalendarError, date_at, minute_of, parse_calendar


def memberships_for_user(user: Any) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(user=user)
        .select_related("campaign")
        .order_by("-campaign__created_at", "-campaign_id")
    )


def campaigns_of_user(user: Any) -> list[Membership]:
    """The user's memberships, newest campaign first, each with ``party_size``: how many
    characters its campaign has (the home page's list); one query."""
    return list(memberships_for_user(user).annotate(party_size=Count("campaign__characters")))


def campaign_calendar(campaign: Campaign | None) -> Calendar | None:
    """The campaign's calendar (None: the default, "Day N"), read once per campaign object."""
    if campaign is None or not campaign.calendar:
        return None
    cached = getattr(campaign, "_calendar_cache", None)
    if cached is not None and cached[0] is campaign.calendar:
        return cached[1]
    calendar = parse_calendar(campaign.calendar)
    campaign._calendar_cache = (campaign.calendar, calendar)  # type: ignore[attr-defined]
    return calendar


def clock_display(minutes: int, campaign: Campaign | None = None) -> str:
    """The in-game minute in the campaign's calendar ("Moonday 6 Bloom 1000, 01:30");
    without one, ruling G-1's "Day N, HH:MM", as the rulesets write it."""
    return date_at(campaign_calendar(campaign), minutes).text


def clock_date(minutes: int, campaign: Campaign | None = None) -> dict[str, Any]:
    """The in-game minute as the API's ``date``: ``{year, month, month_name, day, weekday,
    hour, minute, text}`` (the first ones null without a calendar)."""
    return date_at(campaign_calendar(campaign), minutes).as_dict()


def campaign_referee_ids(campaign: Campaign) -> set[int]:
    return set(
        Membership.objects.filter(campaign=campaign, role="referee").values_list(
            "user_id", flat=True
        )
    )


# -- fair dice (docs/dice.md) ------------------------------------------------------------------
def dice_commitment(seed_hex: str) -> str:
    """The public commitment to a seed: SHA-256 of the seed's bytes, lower-case hex."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def campaign_seed_periods(campaign: Campaign) -> list[dict[str, Any]]:
    """Every seed the campaign has used, oldest first; the current one keeps its secret."""
    periods: list[dict[str, Any]] = [
        {
            "commitment": dice_commitment(revealed.seed),
            "seed": revealed.seed,
            "first_counter": revealed.first_counter,
            "last_counter": revealed.last_counter,
            "revealed_at": revealed.revealed_at,
        }
        for revealed in RevealedSeed.objects.filter(campaign=campaign)
    ]
    used = campaign.dice_counter > campaign.dice_seed_first_counter
    periods.append(
        {
            "commitment": dice_commitment(campaign.dice_seed),
            "seed": None,  # secret until the referee rotates it
            "first_counter": campaign.dice_seed_first_counter,
            "last_counter": campaign.dice_counter - 1 if used else None,
            "revealed_at": None,
        }
    )
    return periods


def seed_for_counter(campaign: Campaign, counter: int) -> str:
    """The seed (hex) that drew the die at ``counter``: each counter has exactly one."""
    if counter >= campaign.dice_seed_first_counter:
        return campaign.dice_seed
    revealed = RevealedSeed.objects.filter(
        campaign=campaign, first_counter__lte=counter, last_counter__gte=counter
    ).first()
    if revealed is None:  # only a campaign older than seed rotation can get here
        return campaign.dice_seed
    return revealed.seed


def latest_invite(campaign: Campaign) -> Invite | None:
    """The campaign's newest invite link (the referee's dashboard shows it)."""
    return Invite.objects.filter(campaign=campaign).order_by("-id").first()


def campaign_members(campaign: Campaign) -> list[Membership]:
    """Everyone in the campaign with their user, in the order they joined."""
    return list(Membership.objects.filter(campaign=campaign).select_related("user").order_by("id"))


def invite_for_code(code: str) -> Invite | None:
    """The invite a link's code names, with its campaign and who made it; None if none."""
    if not code:
        return None
    return Invite.objects.select_related("campaign", "created_by").filter(code=code).first()


def membership_of(campaign: Campaign, user: Any) -> Membership | None:
    """The user's membership of the campaign, if they are in it."""
    return Membership.objects.filter(campaign=campaign, user=user).first()


def clock_minute_of(campaign: Campaign, date: dict[str, Any], field: str = "until") -> int:
    """The in-game minute a date of the campaign's calendar names (``{year, month, day,
    hour, minute}``; without a calendar ``{day, hour, minute}``, Day 1 first). A date that
    cannot be is a ValidationError in plain words under ``field``."""
    try:
        return minute_of(
            campaign_calendar(campaign),
            year=date.get("year"),
            month=date.get("month"),
            day=date.get("day", 1),
            hour=date.get("hour", 0),
            minute=date.get("minute", 0),
        )
    except CalendarError as error:
        raise ValidationError({field: [error_text(error)]}) from None


# -- the e-mail digest (issue 25) ---------------------------------------------------------------
def digest_due_memberships(now: Any, every: Any) -> list[int]:
    """The players whose e-mail digest may go out at ``now``: they asked for it, have an
    e-mail address, and got none in the last ``every`` (a timedelta). Whether anything
    happened to their characters is the digest's to find out."""
    # Each half of "never sent or sent a day ago" its own range of the partial index
    # ``membership_digest_due``: as one condition with an OR, PostgreSQL read every
    # opted-in player's entry and filtered them. The addresses then asked of those
    # players' accounts alone, by their keys: joined in the same query, it hashed every
    # account. Either grew the sweep with all the players, not the few due (issue 39,
    # bench/scale.py).
    asked = Membership.objects.filter(email_digest=True, role="player")
    never = asked.filter(digest_sent_at__isnull=True).values_list("pk", "user_id")
    long_ago = asked.filter(digest_sent_at__lte=now - every).values_list("pk", "user_id")
    due = sorted(never.union(long_ago, all=True))
    users = {user_id for _, user_id in due}
    addressed = set(
        get_user_model().objects.filter(pk__in=users).exclude(email="").values_list("pk", flat=True)
    )
    return [membership_id for membership_id, user_id in due if user_id in addressed]


def membership_for_digest(membership_id: int) -> Membership | None:
    """One membership with its campaign and user (None if it is gone)."""
    return Membership.objects.select_related("campaign", "user").filter(pk=membership_id).first()


def invites_of(campaign: Campaign) -> list[Invite]:
    """The campaign's invite codes, newest first."""
    return list(Invite.objects.filter(campaign=campaign).order_by("-id"))


def members_of(campaign: Campaign) -> list[Membership]:
    """The campaign's people, the referee first, with their users."""
    return list(campaign.memberships.select_related("user").order_by("-role", "id"))
