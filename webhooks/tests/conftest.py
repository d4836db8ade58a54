"""Fixtures of the webhooks' tests: a real HTTP receiver, a character to act on."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from campaigns.models import Membership
from characters.models import Character
from rules.play.services import character_create


class Receiver:
    """A local HTTP server that records each POST and answers the scripted statuses
    (then 200)."""

    def __init__(self, statuses: list[int] | None = None, port: int = 0) -> None:
        self.statuses = list(statuses or [])
        self.received: list[dict[str, Any]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers["Content-Length"])
                body = self.rfile.read(length).decode()
                receiver.received.append({"headers": dict(self.headers), "body": body})
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(item["body"]) for item in self.received]


@pytest.fixture
def receiver() -> Iterator[Any]:
    made: list[Receiver] = []

    def make(statuses: list[int] | None = None, port: int = 0) -> Receiver:
        made.append(Receiver(statuses, port))
        return made[-1]

    yield make
    for item in made:
        item.close()


@pytest.fixture
def aldo(campaign, player) -> Character:
    membership = Membership.objects.get(campaign=campaign, user=player)
    return character_create(
        membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )
