"""Sessions read from the cache, written through to the database (issue 30,
core/sessions.py): a signed-in request reads no session row; a session the cache lost is
read from the database; a log-out ends the cached copy too; with the cache unreachable a
signed-in page still works."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from redis.exceptions import ConnectionError as RedisConnectionError

pytestmark = pytest.mark.django_db


def sessions_read(client, url="/api/v1/campaigns/"):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, response.content
    return sum("django_session" in q["sql"] for q in captured)


def test_a_signed_in_request_reads_its_session_from_the_cache(web, player):
    client = web(player)
    assert sessions_read(client) == 0
    cache.clear()  # lost (Redis restarted): read from the database, and cached again
    assert sessions_read(client) == 1
    assert sessions_read(client) == 0


def test_a_log_out_ends_the_cached_session_too(web, player):
    client = web(player)
    cookie = client.cookies["sessionid"].value
    assert sessions_read(client) == 0
    client.post("/logout/")
    client.cookies["sessionid"] = cookie  # the old cookie, sent again
    assert client.get("/api/v1/campaigns/").status_code in (401, 403)


def test_with_the_cache_unreachable_a_signed_in_page_reads_the_database(web, player, monkeypatch):
    client = web(player)

    def unreachable(*args, **kwargs):
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(cache, "get", unreachable)
    monkeypatch.setattr(cache, "set", unreachable)
    response = client.get("/")
    assert response.status_code == 200
    assert player.username in response.content.decode()
