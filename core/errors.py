"""Errors every app raises, mapped to HTTP by config.exceptions."""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from django.utils.translation import gettext_lazy
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core.said import said_error

# A broker (Redis) that cannot be reached: down, restarting, unreachable.
BROKER_ERRORS: tuple[type[BaseException], ...] = (
    KombuOperationalError,
    RedisConnectionError,
    RedisTimeoutError,
    ConnectionError,
    TimeoutError,
)


class ResolutionConflict(Exception):
    """The character changed or waits on a choice: answered 409 and nothing changes."""


class NotAllowed(Exception):
    """The user may see the character but not do this (answered 403)."""


class ServiceUnavailable(Exception):
    """A service the request needs (the database, the task queue) cannot be reached
    now: answered 503 with ``Retry-After``, and nothing was changed."""


# What a request meets while the database or Redis restarts: answered 503, not 500.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    ServiceUnavailable,
    OperationalError,
    InterfaceError,
    *BROKER_ERRORS,
)
UNAVAILABLE_MESSAGE = gettext_lazy(
    "Sawbones cannot reach its database or its task queue just now (they are restarting). "
    "Try again in a minute."
)
RETRY_AFTER_SECONDS = 30


def error_text(error: BaseException) -> str:
    """What ``error`` says, in the active language (:func:`core.said.said_error`)."""
    return said_error(error)
