"""config.cache: one redis-py client per connection pool, and the cache works through it."""

from __future__ import annotations

import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.core.cache.backends.redis import RedisCache

from config.cache import PooledRedisCache

REDIS_URL = os.environ.get("REDIS_URL", "")


def client(cache: Any, *, write: bool = False) -> Any:
    """The redis-py client a cache call would use."""
    return cache._cache.get_client(write=write)


def test_each_call_gets_the_same_client_where_django_makes_a_new_one() -> None:
    # no connection is made until a command runs: no server needed here
    ours = PooledRedisCache("redis://127.0.0.1:6379/9", {})
    assert client(ours) is client(ours, write=True)
    django_own = RedisCache("redis://127.0.0.1:6379/9", {})
    assert client(django_own) is not client(django_own)


def test_a_client_per_pool_with_a_replica() -> None:
    ours = PooledRedisCache("redis://127.0.0.1:6379/9,redis://127.0.0.1:6380/9", {})
    writer, reader = client(ours, write=True), client(ours)
    assert writer is not reader  # reads go to the replica's pool, writes to the first
    assert client(ours) is reader


@pytest.mark.skipif(not REDIS_URL, reason="a real Redis: CI's PostgreSQL run sets REDIS_URL")
def test_the_cache_works_through_the_shared_client_from_many_threads() -> None:
    cache = PooledRedisCache(REDIS_URL, {"OPTIONS": {}})
    prefix = uuid.uuid4().hex

    def count(n: int) -> int:
        key = f"{prefix}-{n % 4}"
        cache.add(key, 0, timeout=30)
        return cache.incr(key)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(count, range(200)))
    assert sorted(results) == sorted(n for _ in range(4) for n in range(1, 51))
    assert [cache.get(f"{prefix}-{k}") for k in range(4)] == [50] * 4
    cache.delete_many([f"{prefix}-{k}" for k in range(4)])
    assert cache.get(f"{prefix}-0") is None
