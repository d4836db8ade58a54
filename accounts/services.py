"""Writes for accounts."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction


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
