"""Sessions read from the cache, written through to the database (issue 30): every
signed-in request is one query cheaper (``SESSION_ENGINE = "core.sessions"``, set where the
cache is Redis, shared by every process: config/settings/base.py).

Django's ``cached_db`` store, which already reads the database when the cache cannot
answer, with one change: a session read from the database while Redis is down is not
put back in the cache, so a signed-in page keeps working through a Redis restart instead
of failing on that write. Writing or deleting a session still needs the cache (its copy
must not outlive a log-out): that request is answered 503 and may be sent again.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends import cached_db
from django.core.cache import caches

from core.errors import BROKER_ERRORS

logger = logging.getLogger(__name__)


class SessionStore(cached_db.SessionStore):
    def load(self) -> dict[str, Any]:
        cache = caches[settings.SESSION_CACHE_ALIAS]  # as cached_db's own
        try:
            data = cache.get(self.cache_key)
        except Exception:  # as cached_db: an unreachable cache or an invalid key, a miss
            data = None
        if data is not None:
            return data
        stored = self._get_session_from_db()  # type: ignore[attr-defined] # django-stubs lacks it
        if not stored:
            return {}
        data = self.decode(stored.session_data)
        try:
            cache.set(self.cache_key, data, self.get_expiry_age(expiry=stored.expire_date))
        except BROKER_ERRORS:
            logger.warning("the session cache is unreachable; the session read from the database")
        return data
