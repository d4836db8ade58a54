"""Calls to Discord's HTTP API (``SAWBONES_DISCORD_API_BASE``, its version 10 by default):
edit an interaction's first answer, register the command. Plain ``urllib`` as the
webhooks' deliveries; a ``429`` says how long to wait (``webhooks.services.retry_after``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib import error as urlerror
from urllib import request as urlrequest
from urllib.parse import quote

from django.conf import settings

from webhooks.services import retry_after

DEFAULT_API_BASE = "https://discord.com/api/v10"
TIMEOUT_SECONDS = 10
USER_AGENT = "DiscordBot (https://github.com/sawbones, 1)"


@dataclass(frozen=True)
class Reply:
    status: int | None
    body: bytes = b""
    retry_after: float | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def api_base() -> str:
    return str(getattr(settings, "SAWBONES_DISCORD_API_BASE", "") or DEFAULT_API_BASE).rstrip("/")


def call(method: str, path: str, body: Any, *, bot_token: str = "") -> Reply:
    """One request to Discord's API; never raises for an answer or a network error."""
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT}
    if bot_token:
        headers["Authorization"] = f"Bot {bot_token}"
    request = urlrequest.Request(  # noqa: S310 - the configured https base (or a test's)
        api_base() + path, data=json.dumps(body).encode(), method=method, headers=headers
    )
    try:
        with urlrequest.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:  # noqa: S310
            return Reply(int(answer.status), answer.read(1_000_000))
    except urlerror.HTTPError as error:
        data = error.read(100_000)
        wait = retry_after(data, error.headers) if error.code == 429 else None
        return Reply(int(error.code), data, wait, f"answered {error.code}")
    except (urlerror.URLError, OSError, ValueError) as error:
        return Reply(None, error=f"could not reach Discord: {error}"[:500])


def edit_original(application_id: str, token: str, message: dict[str, Any]) -> Reply:
    """Edit an interaction's first answer (a deferred one: ``type`` 5)."""
    path = f"/webhooks/{quote(application_id, safe='')}/{quote(token, safe='')}/messages/@original"
    return call("PATCH", path, message)


def put_commands(application_id: str, bot_token: str, commands: list[dict[str, Any]]) -> Reply:
    """Register the application's global commands (replacing the ones it had)."""
    path = f"/applications/{quote(application_id, safe='')}/commands"
    return call("PUT", path, commands, bot_token=bot_token)
