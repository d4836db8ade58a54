"""Writes for accounts."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext
from knox.crypto import hash_token
from knox.models import get_digest_token
from knox.settings import CONSTANTS

from accounts.models import AccountPreferences, ApiToken, DiscordLink, DiscordLinkCode
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
        raise ValidationError({"username": [gettext("this username is taken")]}) from None
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
        raise ValidationError(
            {"non_field_errors": [gettext("Unable to log in with provided credentials.")]}
        )
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
        raise ValidationError({"expires_at": [gettext("must be in the future")]})
    if (
        campaign_id is not None
        and not Membership.objects.filter(campaign_id=campaign_id, user=user).exists()
    ):
        raise ValidationError({"campaign": [gettext("no such campaign")]})
    if tokens_for_user(user).count() >= MAX_TOKENS_PER_USER:
        raise ValidationError(
            {
                "detail": [
                    gettext("you have %(count)s tokens: revoke one before making more")
                    % {"count": MAX_TOKENS_PER_USER}
                ]
            }
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
        raise Http404(gettext("no such token"))


# -- Discord links (docs/discord.md) ---------------------------------------------------------
DISCORD_CODE_LIFETIME = timedelta(minutes=10)
# Letters and digits no one mistakes for another when typing them from a screen.
_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
_CODE_LENGTH = 8  # 31**8, about 2**40 codes, each alive ten minutes and tried once


def discord_code_digest(code: str) -> str:
    """The stored digest of a code as typed: case, spaces and dashes do not matter."""
    normal = "".join(code.split()).replace("-", "").upper()
    return hash_token(normal)


def discord_link_code_create(*, user: Any) -> tuple[DiscordLinkCode, str]:
    """A new link code for ``user`` and its text (shown once: only its digest is kept).
    It replaces the person's earlier unused codes."""
    raw = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(_CODE_LENGTH))
    code = f"{raw[:4]}-{raw[4:]}"
    with transaction.atomic():
        DiscordLinkCode.objects.filter(user=user, used_at__isnull=True).delete()
        record = DiscordLinkCode.objects.create(
            user=user,
            digest=discord_code_digest(code),
            expires_at=timezone.now() + DISCORD_CODE_LIFETIME,
        )
    return record, code


def discord_link_redeem(*, code: str, discord_user_id: str) -> Any:
    """Link the Discord user to the person who made ``code``; the person. The code works
    once (compare-and-set on ``used_at``); a Discord user linked to someone else moves to
    this person, and a person linked to another Discord user is linked to this one now.
    A wrong, used or expired code is a ValidationError in plain words."""
    now = timezone.now()
    refused = ValidationError(
        {
            "code": [
                gettext(
                    "That code does not work: it may be mistyped, used already or more than "
                    "ten minutes old. Make a new one on your account page."
                )
            ]
        }
    )
    if not code or len(code) > 40:
        raise refused
    with transaction.atomic():
        record = (
            DiscordLinkCode.objects.select_related("user")
            .filter(digest=discord_code_digest(code), used_at__isnull=True, expires_at__gt=now)
            .first()
        )
        if record is None:
            raise refused
        taken = DiscordLinkCode.objects.filter(pk=record.pk, used_at__isnull=True).update(
            used_at=now
        )
        if not taken:  # the same code typed twice at once: the other one linked
            raise refused
        DiscordLink.objects.filter(discord_user_id=discord_user_id).exclude(
            user=record.user
        ).delete()
        DiscordLink.objects.update_or_create(
            user=record.user, defaults={"discord_user_id": discord_user_id}
        )
    return record.user


def discord_unlink(*, user: Any) -> bool:
    """Forget the person's Discord user; whether there was one."""
    deleted, _ = DiscordLink.objects.filter(user=user).delete()
    return bool(deleted)


def account_language_set(*, user: Any, language: str) -> None:
    """Keep the person's choice of language ("" for none); a code that is not one of
    settings.LANGUAGES is refused."""
    if language and language not in dict(settings.LANGUAGES):
        raise ValidationError({"language": [gettext("not a language of this site")]})
    AccountPreferences.objects.update_or_create(user=user, defaults={"language": language})
