"""API tokens: many per user, named, scoped, optionally limited to one campaign.

django-rest-knox stores and checks them (only a SHA-512 digest is kept; the secret is
shown once, when the token is made). Knox's token model is swapped for this one
(``KNOX_TOKEN_MODEL``) to add what integrations need: a name, a scope, a campaign,
the last use. What a scope allows is decided in ``campaigns.access``.

A person may also link their Discord user (``DiscordLink``, with a ``DiscordLinkCode``
typed in Discord) to play from Discord's slash commands (``discord_play``), and choose
the language of the pages (``AccountPreferences``).
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from knox.models import AbstractAuthToken
from knox.settings import CONSTANTS

from campaigns.access import TokenScope


class ApiToken(AbstractAuthToken):
    # Knox keys tokens by their digest; clients and pages name them by a plain id.
    id = models.BigAutoField(primary_key=True)
    digest = models.CharField(max_length=CONSTANTS.DIGEST_LENGTH, unique=True)
    name = models.CharField(max_length=100)
    scope = models.CharField(max_length=16, choices=TokenScope.choices)
    campaign = models.ForeignKey(
        "campaigns.Campaign",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="when set, the token reaches this campaign only",
    )
    last_used_at = models.DateTimeField(null=True, blank=True)

    # A plain manager: tokens are made by accounts.services.token_create, not by knox's.
    objects: ClassVar[models.Manager[ApiToken]] = models.Manager()

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.scope}) of {self.user}"


class DiscordLink(models.Model):
    """The Discord user who plays as this person from Discord (docs/discord.md): their
    slash commands act with the person's own powers, decided by the same access
    functions as every request. One Discord user per person, one person per Discord user."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="discord_link"
    )
    # A Discord snowflake (a 64-bit number), kept as the decimal text Discord sends.
    discord_user_id = models.CharField(max_length=20, unique=True)
    linked_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Discord user {self.discord_user_id} plays as {self.user}"


class DiscordLinkCode(models.Model):
    """A code that links the Discord user who types it (``/sawbones link``) to the person
    who made it: single use, for ten minutes. Only its digest is kept, as for API tokens
    (``accounts.services.discord_link_code_create``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    digest = models.CharField(max_length=CONSTANTS.DIGEST_LENGTH, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Discord link code of {self.user}, until {self.expires_at}"


class AccountPreferences(models.Model):
    """What a person chose for themselves: for now the language of the pages
    (docs/translating.md). Blank is no choice: the footer's picker (a cookie), else the
    browser's Accept-Language, else English. A person without a row chose nothing."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    # A code of settings.LANGUAGES, checked by accounts.services.account_language_set (no
    # choices here: a new language must not need a migration).
    language = models.CharField(max_length=8, blank=True, default="")

    def __str__(self) -> str:
        return f"Preferences of {self.user}: language {self.language or '(none)'}"
