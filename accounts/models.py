"""API tokens: many per user, named, scoped, optionally limited to one campaign.

django-rest-knox stores and checks them (only a SHA-512 digest is kept; the secret is
shown once, when the token is made). Knox's token model is swapped for this one
(``KNOX_TOKEN_MODEL``) to add what integrations need: a name, a scope, a campaign,
the last use. What a scope allows is decided in ``campaigns.access``.
"""

from __future__ import annotations

from typing import ClassVar

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
