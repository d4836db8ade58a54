"""Embedded mode for ``make run``: SQLite, in-process tasks, demo logins allowed."""

from config.settings.base import *  # noqa: F403
from config.settings.base import SECRET_KEY as _SECRET_KEY

DEBUG = True
# A throwaway key for the developer's machine only; production refuses to start without
# its own (config/settings/production.py).
SECRET_KEY = _SECRET_KEY or "embedded-mode-only-not-a-secret"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
SAWBONES_EMBEDDED = True
# Webhooks may call this machine (the tests' receiver, a developer's bot).
SAWBONES_WEBHOOK_ALLOW_PRIVATE = True
