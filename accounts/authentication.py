"""``Authorization: Token <secret>``: django-rest-knox checks the digest; this adds the
token's grant (``campaigns.access``) and its last use."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext
from knox.auth import TokenAuthentication
from rest_framework import exceptions

from accounts.models import ApiToken
from campaigns.access import Grant, attach_grant

# A token used all day is written once a minute, not on every request.
LAST_USED_RESOLUTION = timedelta(minutes=1)


# Secrets are 64 hex characters (40 for tokens from before named tokens).
MAX_SECRET_LENGTH = 128


class ScopedTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, token: bytes) -> tuple[Any, ApiToken]:
        """Knox's check, after refusing what no secret can be (not a 500)."""
        try:
            token.decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(gettext("Invalid token.")) from None
        if len(token) > MAX_SECRET_LENGTH:
            raise exceptions.AuthenticationFailed(gettext("Invalid token."))
        return super().authenticate_credentials(token)

    def validate_user(self, auth_token: ApiToken) -> tuple[Any, ApiToken]:
        user, token = super().validate_user(auth_token)
        attach_grant(user, Grant(scope=token.scope, campaign_id=token.campaign_id))
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
        return user, token
