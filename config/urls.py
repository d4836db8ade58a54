"""URLs: the REST API under /api/v1/ (config/api_urls.py), its schema and docs, and the
pages (config/web_urls.py)."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("api/v1/", include("config.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("admin/", admin.site.urls),
    path("favicon.ico", RedirectView.as_view(url=static("img/sawbones.svg"), permanent=True)),
    path("", include("config.web_urls")),
]
