"""The app's own error pages (templates/404.html, 403.html, 500.html), the favicon,
and the rules help pages (docs/rulesets/<key>.md rendered safely)."""

from __future__ import annotations

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path, reverse

from config.urls import urlpatterns as real_urlpatterns
from rules.engine.registry import ruleset_keys
from web.views import rulebook as rules_views


def broken(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


urlpatterns = [path("broken/", broken), *real_urlpatterns]


@pytest.mark.urls("web.tests.test_error_pages")
def test_a_server_error_shows_the_apps_500_page(db):
    client = Client(raise_request_exception=False)
    response = client.get("/broken/")
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()
    assert "RuntimeError" not in response.content.decode()


def test_favicon(db):
    response = Client().get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("img/sawbones.svg")


@pytest.mark.parametrize("key", ruleset_keys())
def test_each_ruleset_has_its_rules_help_page(db, key):
    response = Client().get(reverse("rules-help", args=[key]))
    assert response.status_code == 200
    assert "<h1>" in response.content.decode()


def test_rules_help_escapes_raw_html(db, tmp_path, settings, monkeypatch):
    (tmp_path / "docs" / "rulesets").mkdir(parents=True)
    (tmp_path / "docs" / "rulesets" / "hit_dice.md").write_text(
        "# Title\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n"
    )
    settings.BASE_DIR = tmp_path
    rules_views._rendered.cache_clear()
    html = rules_views.rules_html("hit_dice")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html


def test_unknown_ruleset_help_is_404(db):
    assert Client().get("/rules/nope/").status_code == 404
