"""CORS for the API only (django-cors-headers), the Content-Security-Policy on every
answer (django-csp), and Cache-Control on answers about a person."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.services import token_create

pytestmark = pytest.mark.django_db

VTT = "https://vtt.example.org"


@override_settings(CORS_ALLOWED_ORIGINS=[VTT])
def test_a_preflight_from_an_allowed_origin(referee):
    response = Client().options(
        reverse("api-campaigns"),
        HTTP_ORIGIN=VTT,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == VTT
    assert "POST" in response["Access-Control-Allow-Methods"]
    allowed = response["Access-Control-Allow-Headers"].lower()
    assert "authorization" in allowed and "content-type" in allowed
    assert "Access-Control-Allow-Credentials" not in response


@override_settings(CORS_ALLOWED_ORIGINS=[VTT])
def test_an_actual_request_with_a_token_from_an_allowed_origin(referee, campaign):
    _, secret = token_create(user=referee, name="tabletop", scope="read")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}", HTTP_ORIGIN=VTT)
    response = client.get(reverse("api-campaigns"))
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == VTT
    assert "Retry-After" in response["Access-Control-Expose-Headers"]
    assert [c["id"] for c in response.json()] == [campaign.pk]


@override_settings(CORS_ALLOWED_ORIGINS=[VTT])
def test_other_origins_and_pages_get_no_cors_headers(referee):
    other = Client().options(
        reverse("api-campaigns"),
        HTTP_ORIGIN="https://evil.example.net",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
    )
    assert "Access-Control-Allow-Origin" not in other
    page = Client().get(reverse("login"), HTTP_ORIGIN=VTT)
    assert "Access-Control-Allow-Origin" not in page


def test_no_origin_is_allowed_by_default():
    response = Client().options(
        reverse("api-rulesets"), HTTP_ORIGIN=VTT, HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET"
    )
    assert "Access-Control-Allow-Origin" not in response


def test_the_cors_origins_come_from_the_environment():
    import os
    import subprocess
    import sys

    code = "from django.conf import settings; print(settings.CORS_ALLOWED_ORIGINS)"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "SAWBONES_CORS_ALLOWED_ORIGINS": f"{VTT}, https://other.example.org",
    }
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == str([VTT, "https://other.example.org"])


# -- security headers -----------------------------------------------------------------
@pytest.mark.parametrize("path", ["/", "/login/", "/signup/", "/api/v1/rulesets/", "/api/docs/"])
def test_every_answer_has_a_content_security_policy(path):
    policy = Client().get(path)["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'"
    # Swagger UI styles itself inline: allowed on the API docs only.
    expected_style = "'self' 'unsafe-inline'" if path == "/api/docs/" else "'self'"
    assert directives["style-src"] == expected_style
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in directives["script-src"]


def test_templates_have_no_inline_script():
    """No <script> without src and no on* handler in any template (CSP)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "templates"
    for template in root.rglob("*.html"):
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag, (template, tag)
        assert not re.search(r"\son[a-z]+\s*=", text), template
        assert "hx-on" not in text and "javascript:" not in text, template


def test_signed_in_pages_and_api_answers_are_not_cached(referee):
    client = Client()
    client.force_login(referee)
    for path in ("/", "/account/", "/api/v1/campaigns/"):
        cache = client.get(path)["Cache-Control"]
        assert "private" in cache and "no-store" in cache, path
    anonymous_api = Client().get("/api/v1/rulesets/")
    assert "no-store" in anonymous_api["Cache-Control"]
    assert "no-store" not in Client().get("/").get("Cache-Control", "")
