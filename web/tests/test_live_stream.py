"""The live pages' event stream (web/streams.py, web/views/live.py) through Django's test
client: who may open one, what a server that cannot hold streams answers, and that a
change made anywhere reaches the stream as one ``changed`` event for the region that
shows it. The browser's side (polls held while the stream is open, the fallback) is in
tests/browser/test_live_stream.py."""

from __future__ import annotations

from collections.abc import Iterator
from time import monotonic, sleep
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Membership
from rules.play.services import character_create, resolution_create_action
from web import streams

pytestmark = pytest.mark.django_db(transaction=True)  # the watcher reads from its own thread
# What a threaded server (gthread, runserver) says of itself.
THREADED: dict[str, Any] = {"wsgi.multithread": True}
OPEN: list[Reader] = []


def stopped(the: streams.Watcher) -> bool:
    """Whether the watcher's thread has ended (it does within a period of nothing watched)."""
    deadline = monotonic() + 3
    while the.running and monotonic() < deadline:
        sleep(0.05)
    return not the.running


@pytest.fixture(autouse=True)
def _quick_streams(settings: Any) -> Iterator[None]:
    settings.SAWBONES_STREAM_WATCH_SECONDS = 0.05
    settings.SAWBONES_STREAM_KEEPALIVE_SECONDS = 0.3
    settings.SAWBONES_STREAM_MAX_SECONDS = 20
    streams._watcher = None  # a watcher with this test's period
    yield
    while OPEN:  # a test that failed half-way left its streams open
        OPEN.pop().close()
    if streams._watcher is not None:  # its thread done before the database goes
        assert stopped(streams._watcher)
    streams._watcher = None


@pytest.fixture
def aldo(campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    return character_create(membership=membership, name="Aldo", sheet={"hp": 9})


def url(*keys: str) -> str:
    return reverse("live-events") + "?" + "&".join(f"watch={key}" for key in keys)


class Reader:
    """The stream's chunks as a browser reads them. A quiet stream sends a comment every
    keep-alive (0.3 s here), so waiting for the next event never hangs past its timeout."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.chunks = iter(response.streaming_content)
        OPEN.append(self)

    def next_event(self, timeout: float = 5.0) -> str:
        """The next chunk that is not a keep-alive comment ("" at the end of the stream),
        within ``timeout`` seconds, else ``TimeoutError``."""
        deadline = monotonic() + timeout
        for chunk in self.chunks:
            if not chunk.startswith(b":"):
                return bytes(chunk).decode()
            if monotonic() > deadline:
                raise TimeoutError
        return ""

    def close(self) -> None:
        self.response.close()
        if self in OPEN:
            OPEN.remove(self)


def open_stream(client: Client, *keys: str) -> Reader:
    response = client.get(url(*keys), **THREADED)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert "no-cache" in response["Cache-Control"]
    assert response["X-Accel-Buffering"] == "no"
    reader = Reader(response)
    assert reader.next_event() == "retry: 2000\n\n"
    return reader


def damage(character_id: int, actor: Any, amount: int = 3) -> None:
    resolution_create_action(
        character_id=character_id,
        actor=actor,
        by_referee=True,
        action="damage",
        params={"amount": amount},
    )


def test_a_change_to_the_sheet_reaches_its_stream_as_one_event(web, aldo, referee, player):
    reader = open_stream(web(player), f"sheet:{aldo.pk}")
    with pytest.raises(TimeoutError):
        reader.next_event(timeout=0.5)  # nothing changed: keep-alives only
    damage(aldo.pk, referee)
    assert reader.next_event() == f"event: changed\ndata: sheet:{aldo.pk}\n\n"
    with pytest.raises(TimeoutError):
        reader.next_event(timeout=0.5)  # once, not at every read of the watcher
    reader.close()


def test_the_dashboard_and_the_board_are_told_apart(web, make_campaign, referee, player):
    campaign = make_campaign("hit_dice")
    membership = Membership.objects.get(campaign=campaign, user=player)
    reader = open_stream(web(referee), f"campaign:{campaign.pk}")
    bo = character_create(membership=membership, name="Bo", sheet={"hp": 5})
    assert reader.next_event() == f"event: changed\ndata: campaign:{campaign.pk}\n\n"
    damage(bo.pk, referee)
    assert reader.next_event() == f"event: changed\ndata: campaign:{campaign.pk}\n\n"
    reader.close()


def test_one_stream_follows_the_page_s_regions(web, aldo, campaign, referee):
    reader = open_stream(web(referee), f"sheet:{aldo.pk}", f"campaign:{campaign.pk}")
    damage(aldo.pk, referee)
    events = {reader.next_event(), reader.next_event()}
    assert events == {
        f"event: changed\ndata: sheet:{aldo.pk}\n\n",
        f"event: changed\ndata: campaign:{campaign.pk}\n\n",
    }
    reader.close()


def test_a_stream_ends_after_its_lifetime_and_the_watcher_lets_go(settings, web, aldo, player):
    settings.SAWBONES_STREAM_MAX_SECONDS = 0.5
    reader = open_stream(web(player), f"sheet:{aldo.pk}")
    assert reader.next_event(timeout=3) == ""  # the end: the browser connects again
    reader.close()
    the = streams.watcher()
    assert the.reads > 0 and the.watching == {}
    assert stopped(the)  # within a period once nothing is watched


def test_outsiders_get_404_for_what_they_may_not_see(web, aldo, campaign, outsider, other_player):
    for user, key in [
        (outsider, f"sheet:{aldo.pk}"),
        (outsider, f"campaign:{campaign.pk}"),
        (other_player, f"sheet:{aldo.pk}"),  # a member, but another player's sheet
        (outsider, "sheet:999999"),
        (other_player, f"board:{campaign.pk}"),  # hit_dice has no battle board
    ]:
        assert web(user).get(url(key), **THREADED).status_code == 404, (user, key)


def test_a_malformed_watch_is_a_400_in_plain_words(web, aldo, player):
    client = web(player)
    for query in ["", "?watch=sheet", "?watch=blog:1", "?watch=sheet:-1", "?watch=sheet:1x"]:
        response = client.get(reverse("live-events") + query, **THREADED)
        assert response.status_code == 400, query
        assert "cannot follow" in response.content.decode()
    five = url(*(f"sheet:{n}" for n in range(1, 6)))
    assert client.get(five, **THREADED).status_code == 400


def test_signed_out_is_sent_to_log_in(web, aldo):
    response = web(None).get(url(f"sheet:{aldo.pk}"), **THREADED)
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_a_server_that_serves_one_request_at_a_time_says_204(web, aldo, player, outsider):
    """gunicorn's sync workers: a stream would hold the worker, so the page polls instead
    (204 tells EventSource not to connect again). Access is still checked first."""
    assert web(player).get(url(f"sheet:{aldo.pk}")).status_code == 204
    assert web(outsider).get(url(f"sheet:{aldo.pk}")).status_code == 404


def test_writes_go_on_while_the_watcher_reads_without_pause(settings, web, campaign, referee):
    """The watcher reading as fast as it can (no period) never stops a write: on SQLite's
    shared-cache test database its reads take no table locks (conftest.py)."""
    settings.SAWBONES_STREAM_WATCH_SECONDS = 0
    streams._watcher = None
    membership = Membership.objects.get(campaign=campaign, user__username="player")
    reader = open_stream(web(referee), f"campaign:{campaign.pk}")
    for number in range(100):
        character_create(membership=membership, name=f"Extra {number}", sheet={"hp": 5})
    assert streams.watcher().reads > 1
    reader.close()
