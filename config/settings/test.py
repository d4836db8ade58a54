"""Settings for the test suite. Honours DATABASE_URL and REDIS_URL like the others."""

from config.settings.base import *  # noqa: F403

SECRET_KEY = "test-only-not-a-secret"  # noqa: S105 - tests only
DEBUG = False
ALLOWED_HOSTS = ["*"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast, tests only
# Tests call tasks in-process unless a test starts a real worker on purpose; such a
# worker takes its test's one queue, so nothing is routed elsewhere (the routes are
# tested on their own: config/tests/test_queues.py).
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_ROUTES = {}
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_AUTOREFRESH = True  # serve from the finders; no collectstatic in tests
# Throttle counters in the test process only (conftest.py clears them for each test).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Sessions as deployed with Redis (core/sessions.py), whether REDIS_URL is set or not:
# the tests count the same queries either way; the cache is the test process's own.
SESSION_ENGINE = "core.sessions"
# Webhooks may call this machine (the tests' receiver, a developer's bot).
SAWBONES_WEBHOOK_ALLOW_PRIVATE = True
# The live pages' streams (web/streams.py): a change reaches an open page within a
# quarter second, and a stream whose page closed notices within a second (its next
# keep-alive), so a test's streams end soon after its pages.
SAWBONES_STREAM_WATCH_SECONDS = 0.25
SAWBONES_STREAM_KEEPALIVE_SECONDS = 1.0
# On PostgreSQL: the same backend, with a cheaper flush after tests that commit
# (config/test_postgresql/base.py), and commits that do not wait for the disk (the test
# databases are thrown away: nothing needs to survive a crash).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    DATABASES["default"]["ENGINE"] = "config.test_postgresql"  # noqa: F405
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c synchronous_commit=off"  # noqa: F405
