"""Signs of life for the health endpoints (docs/operations.md).

The workers leave a timestamp in the cache (Redis in a deployment) each time they run
beat's watchdog (``rules.tasks.watch_clock_jobs``): a recent one shows that beat, the
broker and at least one worker all work.
"""

from __future__ import annotations

from datetime import datetime

from django.core.cache import cache
from django.utils import timezone

WORKER_SEEN_KEY = "health:worker-seen"


def mark_worker_seen(now: datetime | None = None) -> None:
    cache.set(WORKER_SEEN_KEY, (now or timezone.now()).isoformat(), timeout=None)


def worker_seen() -> datetime | None:
    value = cache.get(WORKER_SEEN_KEY)
    return datetime.fromisoformat(value) if isinstance(value, str) else None
