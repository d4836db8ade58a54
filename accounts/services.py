"""Writes for accounts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404
from django.utils import timezone
from knox.models import get_digest_token
from knox.settings import CONSTANTS

from accounts.models import ApiToken
from accounts.selectors import tokens_for_user
from campaigns.models import Membership


def user_register(*, username: str, password: str, email: str = "") -> Any:
    """Create a user after Django's password validators; a taken name is a 400."""
    user_model = get_user_model()
    user = user_model(username=username.strip(), email=email or "")
    user.full_clean(exclude=["password"])
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        raise ValidationError({"password": error.messages}) from None
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise ValidationError({"username": ["this username is taken"]}) from None
    return user


def user_change_email(*, user: Any, email: str) -> Any:
    """Set the user's e-mail address (empty removes it), validated like the sign-up's."""
    user.email = (email or "").strip()
    user.full_clean(exclude=["password"])
    user.save(update_fields=["email"])
    return user


def user_authenticate(*, request: Any, username: str, password: str) -> Any:
    """The user with these credentials, or a 400 (the same for an unknown username)."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise ValidationError({"non_field_errors": ["Unable to log in with provided credentials."]})
    return user


# A person with more live tokens than this revokes some first (they are listed on the
# account page): a script that mints one per run cannot pile them up without end.
MAX_TOKENS_PER_USER = 100


def token_create(
    *,
    user: Any,
    name: str,
    scope: str,
    campaign_id: int | None = None,
    expires_at: datetime | None = None,
) -> tuple[ApiToken, str]:
    """A new token and its secret (shown once: only its digest is stored)."""
    now = timezone.now()
    if expires_at is not None and expires_at <= now:
        raise ValidationError({"expires_at": ["must be in the future"]})
    if (
        campaign_id is not None
        and not Membership.objects.filter(campaign_id=campaign_id, user=user).exists()
    ):
        raise ValidationError({"campaign": ["no such campaign"]})
    if tokens_for_user(user).count() >= MAX_TOKENS_PER_USER:
        raise ValidationError(
            {"detail": [f"you have {MAX_TOKENS_PER_USER} tokens: revoke one before making more"]}
        )
    digest, secret = get_digest_token()
    token = ApiToken.objects.model(
        user=user,
        name=name.strip() or "API token",
        scope=scope,
        campaign_id=campaign_id,
        expiry=expires_at,
        digest=digest,
        token_key=secret[: CONSTANTS.TOKEN_KEY_LENGTH],
    )
    token.save()
    return token, secret


def token_revoke(*, user: Any, token_id: int) -> None:
    """Delete the user's token: the next request with it is refused (401)."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise Http404("no such token")
