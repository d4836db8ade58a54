"""Settings shared by every environment; everything variable comes from the environment.

``local`` (embedded: SQLite, in-process tasks, demo logins), ``test`` and
``production`` build on this module.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_INLINE

from config.queues import task_queues, task_routes
from config.sentry import init_sentry

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",") if h]
CSRF_TRUSTED_ORIGINS = [
    o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",  # its old plain-text tokens moved to accounts.ApiToken
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served locally: the docs work offline
    "axes",
    "corsheaders",
    "csp",
    "django_htmx",
    "core",  # idempotency keys (core.idempotency); the request id's signals (core.apps)
    "accounts",
    "campaigns",
    "characters",
    "rules.log",  # label "rules": resolutions, scheduled effects, tables, their bulk writes
    "rules.clock",  # the campaign clock: jobs, ticks, their tasks
    "rules.play",  # the play: actions, choices, undo, editing (no table of its own)
    "rules.battles",  # warband battles
    "rules.logbook",  # the log read back: export, import, replay
    "web",
    "webhooks",
    "discord_play",  # play from Discord: slash commands, the webhooks' Discord format
    "webhook_delivery",  # sending webhooks, in each URL's format (Discord's included)
]

MIDDLEWARE = [
    # GET /metrics (before any Host check: Prometheus scrapes by address), and every
    # other request timed and counted (docs/operations.md, "Metrics")
    "config.metrics.MetricsMiddleware",
    "core.middleware.RequestIdMiddleware",  # on every log line of the request (core.logs)
    "core.middleware.BodySizeLimitMiddleware",  # before anything reads a body
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "corsheaders.middleware.CorsMiddleware",  # /api/ only (CORS_URLS_REGEX)
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The reader's language (docs/translating.md): the language cookie (the footer's
    # picker), else Accept-Language, else English; after the session, before CommonMiddleware
    # as Django asks. It sets Content-Language on every answer, the API's too.
    "django.middleware.locale.LocaleMiddleware",
    "core.middleware.ApiPathMiddleware",  # API paths with or without "/", JSON errors
    "django.middleware.common.CommonMiddleware",
    "django_htmx.middleware.HtmxMiddleware",  # request.htmx (web/htmx.py)
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in person's own choice of language beats the cookie and the browser's, on
    # the pages (not the API: it answers Accept-Language).
    "accounts.language.AccountLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Writes with an Idempotency-Key (API) or a page form's one-time key act once; after
    # the user is known, before CSRF is checked: a replay is the user's own first answer.
    "core.middleware.IdempotencyMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "rules.clock.ticker.TickerMiddleware",  # embedded mode's live clock (SAWBONES_TICKER_SECONDS)
    "core.middleware.PrivateCacheMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # LANGUAGE_CODE for <html lang>, LANGUAGES for the pickers
                "django.template.context_processors.i18n",
            ],
            # {% form_key %} in every form that changes something (issue 24)
            "builtins": ["web.templatetags.form_keys"],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")),
        # A kept connection is checked before each request reuses it: after a database
        # restart the next request opens a new one instead of failing (docs/operations.md).
        conn_health_checks=True,
    )
}
# psycopg's prepare threshold stays None, Django's setting: our statements compiled once
# per process are prepared on the connection by rules.log.statements.run_bound alone,
# which sets it while it runs one (issue 39).
# A pool of at most DATABASE_POOL_MAX_SIZE connections per process (PostgreSQL only;
# Django's own pool, psycopg_pool): for the threaded server of the event streams, whose
# threads would otherwise each keep a connection (docs/deployment.md). A pool replaces
# persistent connections, so CONN_MAX_AGE is 0 with it.
if os.environ.get("DATABASE_POOL_MAX_SIZE") and "postgresql" in DATABASES["default"]["ENGINE"]:
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": int(os.environ["DATABASE_POOL_MAX_SIZE"]),
        "timeout": float(os.environ.get("DATABASE_POOL_TIMEOUT", "10")),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# E-mail (password reset): SMTP configured from the environment; embedded mode prints
# messages on the console instead (config/settings/local.py).
EMAIL_BACKEND = os.environ.get(
    "DJANGO_EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend"
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Sawbones <sawbones@localhost>")
PASSWORD_RESET_TIMEOUT = 3 * 24 * 60 * 60  # seconds: a reset link works for three days

# django-axes first: it refuses a locked-out login before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# English by default; German and Spanish beside it (docs/translating.md). The catalogues
# are locale/<code>/LC_MESSAGES/django.po, compiled by `make messages` (never committed).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First, so a refused or missing token is a 401 with WWW-Authenticate: Token.
        "accounts.authentication.ScopedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "campaigns.access.TokenScopePermission",
        # last: a query key the operation does not declare is a 400 (config/query.py)
        "config.query.KnownQueryParameters",
    ],
    "DEFAULT_SCHEMA_CLASS": "config.openapi.SawbonesAutoSchema",
    # JSON only: a form-encoded or multipart body is a 415, never half understood
    # (nested `params` and `options` do not survive form encoding); a whole number
    # written 1.0 is read as 1 (core.cleaning.WholeNumberJSONParser).
    "DEFAULT_PARSER_CLASSES": ["core.cleaning.WholeNumberJSONParser"],
    # ?format= that no renderer answers: a 400 naming it (core.cleaning)
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.cleaning.FormatParameterNegotiation",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.exceptions.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "core.throttles.UserThrottle",
        "core.throttles.AnonThrottle",
        "core.throttles.IpThrottle",
    ],
    # How many proxies in front of the app append to X-Forwarded-For (0: none, the
    # client's address is REMOTE_ADDR). Every limit and django-axes use it.
    "NUM_PROXIES": int(os.environ.get("DJANGO_NUM_PROXIES", "0")),
}

# Limits (docs/api.md). Generous: a referee's page polls a clock job 2.5 times a second.
# Each rate is "<number>/<second|minute|hour|day>"; the environment may change any.
SAWBONES_THROTTLE_RATES: dict[str, str | None] = {
    "user": os.environ.get("SAWBONES_THROTTLE_USER", "600/min"),
    "anon": os.environ.get("SAWBONES_THROTTLE_ANON", "120/min"),
    "ip": os.environ.get("SAWBONES_THROTTLE_IP", "1200/min"),
    "register": os.environ.get("SAWBONES_THROTTLE_REGISTER", "20/hour"),
    # password checks (auth/token/, the log-in page): each costs a password hash
    "login": os.environ.get("SAWBONES_THROTTLE_LOGIN", "20/min"),
}
# Request bodies: JSON bodies of this API are small; 1 MB leaves room for campaign tables.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("SAWBONES_MAX_BODY_BYTES", str(1024 * 1024)))
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000
# Logins (page and auth/token/) locked after repeated failures: per username and address.
AXES_FAILURE_LIMIT = int(os.environ.get("SAWBONES_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("SAWBONES_LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "core.throttles.client_ip"
AXES_LOCKOUT_CALLABLE = "web.views.accounts.locked_out"
AXES_VERBOSE = False
# API tokens (accounts.models.ApiToken): django-rest-knox keeps their SHA-512 digests.
# A token expires only when its owner gave it an expiry.
KNOX_TOKEN_MODEL = "accounts.ApiToken"  # noqa: S105 - a model name
REST_KNOX = {"TOKEN_TTL": None, "AUTH_HEADER_PREFIX": "Token"}
# Knox's own token table is swapped for accounts.ApiToken: its migrations would only
# create an unused table (whose key to auth_user would block flushing users).
MIGRATION_MODULES = {"knox": None}

SPECTACULAR_SETTINGS = {
    "TITLE": "Sawbones API",
    "DESCRIPTION": "Harm and recovery for tabletop campaigns, resolved on the server.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # A PATCH body's required fields are the ones its serializer requires (the server's),
    # not none at all: PATCH characters/{id}/ with {} is refused by both.
    "COMPONENT_SPLIT_PATCH": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # OpenAPI 3.1 speaks JSON Schema 2020-12, the language of the rules' own schemas.
    "OAS_VERSION": "3.1.0",
    # Named enums instead of hash-suffixed ones where two models share a field name.
    "ENUM_NAME_OVERRIDES": {
        "ResolutionKindEnum": "rules.log.models.ResolutionKind.values",
        "ClockJobKindEnum": "rules.clock.models.ClockJobKind.values",
        "ClockJobStateEnum": "rules.clock.models.ClockJobState.values",
        "EffectStateEnum": "rules.log.models.EffectState.values",
        "WebhookFormatEnum": "webhooks.models.WebhookFormat.values",  # sawbones or discord
        "InvitationStateEnum": "campaigns.models.InvitationState.values",
        "ExportFormatEnum": "rules.logbook.export.FORMATS",  # an export's "format"
        # a deckahedron sheet's piles (issue 27: the sheets are typed components)
        "DeckahedronCardEnum": "rules.engine.rulesets.deckahedron.CARD_IDS",
        "DeckahedronStaminaCardEnum": "rules.engine.rulesets.deckahedron.STAMINA_CARD_IDS",
    },
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums"],
}

# Celery: with REDIS_URL tasks go to Redis; without it they run in-process.
REDIS_URL = os.environ.get("REDIS_URL", "")
# The cache holds the throttles' counters: shared by every worker through Redis.
CACHES = {
    "default": {"BACKEND": "config.cache.PooledRedisCache", "LOCATION": REDIS_URL}
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
}
CACHES["default"]["KEY_PREFIX"] = "sawbones"
# Sessions read from that cache, written through to the database (core/sessions.py): one
# query less on every signed-in request. Only where the cache is shared: a process's own
# memory would keep a session that another process ended (a log-out).
SESSION_ENGINE = "core.sessions" if REDIS_URL else "django.contrib.sessions.backends.db"
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True  # a task whose worker dies is delivered again
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
# A queue per kind of work (config/queues.py): a worker started without -Q takes them
# all (one worker is enough for a small deployment); docker-compose.yml runs one
# service per queue.
CELERY_TASK_QUEUES = task_queues()
CELERY_TASK_ROUTES = task_routes()
# Live campaigns move with real time (docs/clock.md); the tick also re-enqueues clock
# jobs whose task was lost.
SAWBONES_LIVE_TICK_SECONDS = float(os.environ.get("SAWBONES_LIVE_TICK_SECONDS", "60"))
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "tick-live-campaigns": {
        "task": "rules.tasks.tick_live_campaigns",
        "schedule": SAWBONES_LIVE_TICK_SECONDS,
        # a missed tick is caught up by the next one
        "options": {"expires": SAWBONES_LIVE_TICK_SECONDS * 5 / 6},
    },
    # Clock jobs whose heartbeat is stale (their worker died, their message was lost)
    # are sent again (docs/clock.md, docs/operations.md); also the workers' sign of life.
    "watch-clock-jobs": {
        "task": "rules.tasks.watch_clock_jobs",
        "schedule": float(os.environ.get("SAWBONES_CLOCK_WATCHDOG_SECONDS", "10")),
        "options": {"expires": 9},
    },
    # The players' e-mail digests (at most one a day each): a send task per player due,
    # on the email queue (rules.clock.digest).
    "queue-digests": {
        "task": "rules.tasks.queue_digests",
        "schedule": float(os.environ.get("SAWBONES_DIGEST_SWEEP_SECONDS", "600")),
        "options": {"expires": 300},
    },
    # Idempotency keys past their time are deleted (core.idempotency, docs/api.md).
    "sweep-idempotency-keys": {
        "task": "core.tasks.sweep_idempotency_keys",
        "schedule": 3600.0,
        "options": {"expires": 3000},
    },
    # Webhook deliveries whose task was lost, or whose retry is due (docs/webhooks.md).
    "deliver-due-webhooks": {
        "task": "webhooks.tasks.deliver_due_webhooks",
        "schedule": float(os.environ.get("SAWBONES_WEBHOOK_SWEEP_SECONDS", "60")),
        "options": {"expires": 50},
    },
}

# The address of the site in mails sent with no request to read it from (the e-mail
# digest's link): "https://sawbones.example.org"; empty, mails give the path alone.
SAWBONES_SITE_URL = os.environ.get("SAWBONES_SITE_URL", "")

# Play from Discord (docs/discord.md): the application's Ed25519 public key (hex) and id
# from Discord's developer portal; unset, POST /discord/interactions/ is a 404. The bot's
# token registers the command (manage.py discord_commands). Discord's API (its v10); tests
# point it at a local receiver.
SAWBONES_DISCORD_PUBLIC_KEY = os.environ.get("SAWBONES_DISCORD_PUBLIC_KEY", "")
SAWBONES_DISCORD_APPLICATION_ID = os.environ.get("SAWBONES_DISCORD_APPLICATION_ID", "")
SAWBONES_DISCORD_BOT_TOKEN = os.environ.get("SAWBONES_DISCORD_BOT_TOKEN", "")
SAWBONES_DISCORD_API_BASE = os.environ.get(
    "SAWBONES_DISCORD_API_BASE", "https://discord.com/api/v10"
)

# GET /metrics answers only "Authorization: Bearer <METRICS_TOKEN>"; unset, it is a 404
# (config/metrics.py, docs/operations.md).
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")

# Effects per batch (per transaction) of a clock advance (docs/clock.md).
SAWBONES_CLOCK_BATCH_SIZE = int(os.environ.get("SAWBONES_CLOCK_BATCH_SIZE", "500"))
# A queued or running clock job whose heartbeat is older than this many seconds has lost
# its task: the watchdog sends it again (rules.clock.watchdog.clock_watchdog).
SAWBONES_CLOCK_STALE_SECONDS = float(os.environ.get("SAWBONES_CLOCK_STALE_SECONDS", "30"))
# /health/worker/ says "silent" when no worker ran beat's watchdog for this long.
SAWBONES_WORKER_SILENT_AFTER_SECONDS = float(
    os.environ.get("SAWBONES_WORKER_SILENT_AFTER_SECONDS", "120")
)

# The live pages' event streams (web/streams.py, docs/performance.md): how often a
# process reads the watched stamps, the comment a quiet stream sends to show it is alive,
# and how long a stream lasts before the browser connects again (and access is checked
# again).
SAWBONES_STREAM_WATCH_SECONDS = float(os.environ.get("SAWBONES_STREAM_WATCH_SECONDS", "1"))
SAWBONES_STREAM_KEEPALIVE_SECONDS = float(os.environ.get("SAWBONES_STREAM_KEEPALIVE_SECONDS", "15"))
SAWBONES_STREAM_MAX_SECONDS = float(os.environ.get("SAWBONES_STREAM_MAX_SECONDS", "300"))

# Webhooks (docs/webhooks.md): only public addresses unless allowed (embedded, tests).
SAWBONES_WEBHOOK_ALLOW_PRIVATE = env_bool("SAWBONES_WEBHOOK_ALLOW_PRIVATE", False)
SAWBONES_WEBHOOK_TIMEOUT = 5
SAWBONES_WEBHOOK_BACKOFF_SECONDS = float(os.environ.get("SAWBONES_WEBHOOK_BACKOFF_SECONDS", "10"))
SAWBONES_WEBHOOK_MAX_ATTEMPTS = int(os.environ.get("SAWBONES_WEBHOOK_MAX_ATTEMPTS", "10"))
# A delivery task this many seconds late counts as lost (its message went with the broker):
# beat's sweep (every SAWBONES_WEBHOOK_SWEEP_SECONDS) sends it again.
SAWBONES_WEBHOOK_LOST_TASK_SECONDS = float(
    os.environ.get("SAWBONES_WEBHOOK_LOST_TASK_SECONDS", "120")
)

# CORS for the API only, for browser-based tabletop modules using a token: origins
# listed in SAWBONES_CORS_ALLOWED_ORIGINS (comma-separated), none by default. No
# cookies cross-origin: such a module sends a token.
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOWED_ORIGINS = [
    o.strip() for o in os.environ.get("SAWBONES_CORS_ALLOWED_ORIGINS", "").split(",") if o.strip()
]
CORS_ALLOW_CREDENTIALS = False
CORS_EXPOSE_HEADERS = ["Retry-After", "WWW-Authenticate"]

# Content-Security-Policy on every answer (django-csp): scripts and styles from this
# site only, no inline script. Style attributes stay allowed (bars drawn to a width);
# they cannot run code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Local embedded mode prints demo logins; nowhere else has them.
SAWBONES_EMBEDDED = False
# Seconds between live clock ticks by a thread of the web process (rules.clock.ticker); 0: none,
# Celery beat ticks instead. Only the embedded mode sets it.
SAWBONES_TICKER_SECONDS = 0.0
# The app's own page for a refused form (CSRF), like its 403 page.
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"

# Logs on the console; LOG_FORMAT=json: one JSON object a line, each with the id of the
# request (or of the request whose task it is) it belongs to (core.logs).
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "core.logs.RequestIdFilter"}},
    "formatters": {
        "json": {"()": "core.logs.JsonFormatter"},
        "text": {"format": "%(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "json" if LOG_FORMAT == "json" else "text",
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
# The workers keep Django's logging (the JSON lines) instead of Celery's own format.
CELERY_WORKER_HIJACK_ROOT_LOGGER = LOG_FORMAT != "json"

# Errors to Sentry when SENTRY_DSN is set (config/sentry.py); off otherwise.
SENTRY_ENABLED = init_sentry()
