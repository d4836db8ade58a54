"""The Redis cache, its clients made once.

Django's ``RedisCacheClient.get_client`` makes a new ``redis.Redis`` on every cache
call, and redis-py's constructor builds its table of response callbacks each time:
57 µs, some 5% of a signed-in API request's CPU, which makes three to five cache calls
(its session, its throttles). Here each connection pool keeps one client: redis-py's
clients hold no connection of their own between commands (each command takes one from
the pool and gives it back), so one may serve every call, from any thread.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class _PooledClients(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:  # two threads may both make one: either serves
            made = self._client  # type: ignore[attr-defined]  # redis.Redis
            client = self._clients[id(pool)] = made(connection_pool=pool)
        return client


class PooledRedisCache(RedisCache):
    """Django's ``RedisCache``, a client per connection pool (settings: ``CACHES``)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _PooledClients
