"""Reads for accounts."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import ApiToken


def tokens_for_user(user: Any) -> QuerySet[ApiToken]:
    """The user's tokens that still work, newest first (expired ones are gone)."""
    now = timezone.now()
    return (
        ApiToken.objects.filter(user=user)
        .filter(Q(expiry__isnull=True) | Q(expiry__gt=now))
        .select_related("campaign")
        .order_by("-created", "-id")
    )
