"""URLs: the REST API under /api/v1/ (config/api_urls.py), its schema and docs, Discord's
interactions (discord_play), and the pages (config/web_urls.py)."""

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.views import account_language
from config import health
from discord_play.views import interactions as discord_interactions

urlpatterns = [
    path("api/v1/", include("config.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file: no inline script (CSP).
    # Swagger UI sets inline styles: allowed on this page only.
    path(
        "api/docs/",
        csp_update({"style-src": [UNSAFE_INLINE]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema")
        ),
        name="api-docs",
    ),
    path("admin/", admin.site.urls),
    # For load balancers and monitoring (docs/operations.md).
    path("health/", health.web_health, name="health"),
    path("health/worker/", health.worker_health, name="health-worker"),
    # Discord's Interactions Endpoint URL: its protocol, not the API's (docs/discord.md).
    path("discord/interactions/", discord_interactions, name="discord-interactions"),
    # The language: the footer's picker for everyone (Django's set_language: a cookie) and
    # a signed-in person's own choice (docs/translating.md).
    path("i18n/", include("django.conf.urls.i18n")),
    path("account/language/", account_language, name="account-language"),
    path("favicon.ico", RedirectView.as_view(url=static("img/sawbones.svg"), permanent=True)),
    path("", include("config.web_urls")),
]

# The database or Redis out of reach (restarting) is a 503, anything else the 500 page.
handler500 = "config.errors.server_error"
