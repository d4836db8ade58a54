"""Fixtures of the Discord interface's tests: an Ed25519 key pair of the tests' own that
signs real interactions posted to the real view, a local HTTP receiver standing in for
Discord's API and a channel's webhook, Discord users linked to the usual people."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.test import Client

from accounts.services import discord_link_code_create, discord_link_redeem
from campaigns.models import Membership
from characters.models import Character
from discord_play.services import channel_bind
from rules.play.services import character_create

APPLICATION_ID = "900000000000000001"
GUILD = "800000000000000001"
CHANNEL = "700000000000000001"
# The Discord user id of each test person (Discord sends them as text).
DISCORD_IDS = {
    "referee": "600000000000000001",
    "player": "600000000000000002",
    "other_player": "600000000000000003",
    "outsider": "600000000000000004",
    "stranger": "600000000000000005",  # never linked
}
URL = "/discord/interactions/"
SITE = "https://sawbones.example.org"
_ids = itertools.count(1_000_000_000_000_000)


class Receiver:
    """A local HTTP server for any method: records each request (method, path, headers,
    JSON body) and answers the scripted ``(status, body, headers)`` in turn, then 204."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.script: list[tuple[int, bytes, dict[str, str]]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                receiver.received.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "headers": dict(self.headers),
                        "body": json.loads(raw) if raw else None,
                    }
                )
                status, body, headers = (
                    receiver.script.pop(0) if receiver.script else (204, b"", {})
                )
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_PATCH = do_PUT = _any  # noqa: N815 - http.server's names

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        raw = b"" if body is None else json.dumps(body).encode()
        self.script.append((status, raw, {"Content-Type": "application/json", **(headers or {})}))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


@pytest.fixture
def signing_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture
def discord(settings, signing_key, receiver) -> Any:
    """The server set up for Discord with the tests' key, Discord's API at the receiver."""
    public = signing_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    settings.SAWBONES_DISCORD_PUBLIC_KEY = public.hex()
    settings.SAWBONES_DISCORD_APPLICATION_ID = APPLICATION_ID
    settings.SAWBONES_DISCORD_API_BASE = receiver.url + "/api/v10"
    settings.SAWBONES_SITE_URL = SITE
    return settings


def sign(key: Ed25519PrivateKey, body: bytes, timestamp: str) -> str:
    return key.sign(timestamp.encode() + body).hex()


class Discord:
    """Sends interactions as Discord would: JSON, signed with the tests' key."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self.key = key
        self.client = Client()

    def post(
        self,
        interaction: dict[str, Any],
        *,
        key: Ed25519PrivateKey | None = None,
        timestamp: int | None = None,
        body: bytes | None = None,
        signature: str | None = None,
    ) -> Any:
        raw = json.dumps(interaction).encode() if body is None else body
        stamp = str(int(time.time()) if timestamp is None else timestamp)
        signed = sign(key or self.key, json.dumps(interaction).encode(), stamp)
        headers = {"X-Signature-Timestamp": stamp}
        headers["X-Signature-Ed25519"] = signed if signature is None else signature
        if signature == "":
            del headers["X-Signature-Ed25519"]
        return self.client.post(URL, raw, content_type="application/json", headers=headers)

    def answer(self, interaction: dict[str, Any]) -> dict[str, Any]:
        response = self.post(interaction)
        assert response.status_code == 200, response.content
        answer: dict[str, Any] = response.json()
        return answer


@pytest.fixture
def send(discord, signing_key) -> Discord:
    return Discord(signing_key)


def _user(who: str) -> dict[str, Any]:
    return {"id": DISCORD_IDS[who], "username": who}


def command(
    who: str,
    sub: str,
    channel: str | None = CHANNEL,
    interaction_id: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """A ``/sawbones <sub>`` interaction from a channel of a server (or a DM: channel None)."""
    inner = [
        {"name": name, "type": 4 if isinstance(value, int) else 3, "value": value}
        for name, value in options.items()
    ]
    made: dict[str, Any] = {
        "id": interaction_id or str(next(_ids)),
        "application_id": APPLICATION_ID,
        "type": 2,
        "token": f"token-{next(_ids)}",
        "version": 1,
        "data": {
            "id": "1",
            "name": "sawbones",
            "type": 1,
            "options": [{"name": sub, "type": 1, "options": inner}],
        },
    }
    if channel is None:
        made["user"] = _user(who)
        made["channel_id"] = "555"
    else:
        made["guild_id"] = GUILD
        made["channel_id"] = channel
        made["member"] = {"user": _user(who), "permissions": "0"}
    return made


def autocomplete(
    who: str, sub: str, focused: str, typed: str = "", **options: Any
) -> dict[str, Any]:
    made = command(who, sub, **options)
    made["type"] = 4
    inner = made["data"]["options"][0]["options"]
    inner.append({"name": focused, "type": 3, "value": typed, "focused": True})
    return made


def press(who: str, custom_id: str, message: dict[str, Any] | None = None) -> dict[str, Any]:
    """A button of a message pressed."""
    return {
        "id": str(next(_ids)),
        "application_id": APPLICATION_ID,
        "type": 3,
        "token": f"token-{next(_ids)}",
        "version": 1,
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "member": {"user": _user(who), "permissions": "0"},
        "data": {"custom_id": custom_id, "component_type": 2},
        "message": message or {"id": "1", "embeds": []},
    }


def link(user: Any, who: str) -> None:
    _, code = discord_link_code_create(user=user)
    discord_link_redeem(code=code, discord_user_id=DISCORD_IDS[who])


@pytest.fixture
def table(campaign, referee, player, other_player, outsider) -> dict[str, Any]:
    """The hit dice campaign bound to the channel, everyone linked, Aldo (the player's)
    and Bo (the other player's)."""
    for user, who in (
        (referee, "referee"),
        (player, "player"),
        (other_player, "other_player"),
        (outsider, "outsider"),
    ):
        link(user, who)
    channel_bind(campaign=campaign, guild_id=GUILD, channel_id=CHANNEL, user=referee)
    members = {m.user_id: m for m in Membership.objects.filter(campaign=campaign)}
    aldo = character_create(
        membership=members[player.pk], name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )
    bo = character_create(
        membership=members[other_player.pk], name="Bo", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )
    return {"campaign": campaign, "aldo": aldo, "bo": bo}


def content_of(answer: dict[str, Any]) -> str:
    """Everything a person reads in an answer, as one text."""
    data = answer.get("data") or {}
    parts = [data.get("content", "")]
    for item in data.get("embeds", []):
        parts += [item.get("title", ""), item.get("description", "")]
        parts += [f"{f['name']} {f['value']}" for f in item.get("fields", [])]
    return "\n".join(parts)


def character_count() -> int:
    return Character.objects.count()
