"""Embedded mode for ``make run``: SQLite, in-process tasks, demo logins allowed.

DEBUG is off by default here too, so a newcomer meets the app's own 404, 403 and 500
pages (templates/404.html...), never Django's debug page listing every URL; tracebacks
still go to the console. ``DJANGO_DEBUG=1 make run`` turns Django's debug pages on.
E-mails (password reset, the players' digests) are printed on the console. Live clocks
are ticked, and due digests sent, by a thread of the runserver process
(rules.clock.ticker), since there is no Celery beat here.
"""

import os

from config.settings.base import *  # noqa: F403
from config.settings.base import SECRET_KEY as _SECRET_KEY
from config.settings.base import env_bool

DEBUG = env_bool("DJANGO_DEBUG", False)
# A throwaway key for the developer's machine only; production refuses to start without
# its own (config/settings/production.py).
SECRET_KEY = _SECRET_KEY or "embedded-mode-only-not-a-secret"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
SAWBONES_EMBEDDED = True
# Webhooks may call this machine (the tests' receiver, a developer's bot).
SAWBONES_WEBHOOK_ALLOW_PRIVATE = True
# Static files straight from static/ (no collectstatic), whatever DEBUG says.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
SAWBONES_SITE_URL = os.environ.get("SAWBONES_SITE_URL", "http://127.0.0.1:8000")
# The live clock's ticker thread in the runserver process (rules.clock.ticker): seconds between
# ticks, 0 for none.
SAWBONES_TICKER_SECONDS = float(os.environ.get("SAWBONES_TICKER_SECONDS", "60"))
