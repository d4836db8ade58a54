"""Reads for accounts."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import AccountPreferences, ApiToken, DiscordLink


def tokens_for_user(user: Any) -> QuerySet[ApiToken]:
    """The user's tokens that still work, newest first (expired ones are gone)."""
    now = timezone.now()
    return (
        ApiToken.objects.filter(user=user)
        .filter(Q(expiry__isnull=True) | Q(expiry__gt=now))
        .select_related("campaign")
        .order_by("-created", "-id")
    )


def discord_link_of(user: Any) -> DiscordLink | None:
    """The person's Discord link, or None."""
    return DiscordLink.objects.filter(user=user).first()


def user_for_discord(discord_user_id: str) -> Any:
    """The person a Discord user plays as, or None when they have not linked."""
    link = DiscordLink.objects.select_related("user").filter(discord_user_id=discord_user_id)
    found = link.first()
    return None if found is None or not found.user.is_active else found.user


def account_language(user: Any) -> str:
    """The language the person chose for the pages (a code of settings.LANGUAGES), or ""
    when they chose none."""
    return (
        AccountPreferences.objects.filter(user=user).values_list("language", flat=True).first()
        or ""
    )
