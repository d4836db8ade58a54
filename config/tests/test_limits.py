"""Limits (issue 15): body size before parsing, capped error answers, throttles with
429 and Retry-After, logins locked after repeated failures, registration rate-limited."""

from __future__ import annotations

import json

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from config.exceptions import MAX_LISTED_ERRORS, MAX_MESSAGE_LENGTH, cap_errors

pytestmark = pytest.mark.django_db

GENEROUS = {
    "user": "1000/min",
    "anon": "1000/min",
    "ip": "1000/min",
    "register": "1000/hour",
    "login": "1000/min",
}


def rates(**low: str) -> dict[str, str]:
    return {**GENEROUS, **low}


# -- request bodies -------------------------------------------------------------------
@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2000)
def test_a_body_over_the_cap_is_413_before_parsing(make_user):
    make_user("ada")
    body = json.dumps({"username": "ada", "password": "pw-ada", "pad": "x" * 3000})
    response = APIClient().post(reverse("api-token"), body, content_type="application/json")
    assert response.status_code == 413
    assert response.json() == {"detail": "The request body is larger than 2000 bytes."}
    assert not ApiToken.objects.exists()


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2000)
def test_a_body_under_the_cap_is_parsed(make_user):
    make_user("ada")
    body = json.dumps({"username": "ada", "password": "pw-ada"})
    response = APIClient().post(reverse("api-token"), body, content_type="application/json")
    assert response.status_code == 200


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2000)
def test_a_page_refuses_a_large_body_too():
    response = Client().post(
        reverse("signup"), "x" * 3000, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 413
    assert response.content == b"The request body is larger than 2000 bytes."


def test_a_content_length_that_is_no_number_is_400():
    response = APIClient().generic(
        "POST", reverse("api-token"), "{}", content_type="application/json", CONTENT_LENGTH="x"
    )
    assert response.status_code == 400
    assert response.json() == {"detail": "The Content-Length header is not a number."}


def test_the_default_cap_is_one_megabyte(client_for, referee):
    from django.conf import settings

    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 1024 * 1024
    body = json.dumps({"name": "x" * (1024 * 1024), "ruleset": "hit_dice"})
    response = client_for(referee).post(
        reverse("api-campaigns"), body, content_type="application/json"
    )
    assert response.status_code == 413


# -- capped error answers -------------------------------------------------------------
def test_thousands_of_unknown_sheet_fields_get_a_short_answer(client_for, referee, campaign):
    sheet = {f"field{number:05d}": 0 for number in range(20_000)}
    sheet.update(level=1, hit_dice=1, hp=4)
    body = json.dumps({"name": "Cid", "sheet": sheet})
    assert len(body) > 300_000
    url = reverse("api-campaign-characters", kwargs={"campaign_id": campaign.pk})
    response = client_for(referee).post(url, body, content_type="application/json")
    assert response.status_code == 400
    assert len(response.content) < 2 * MAX_MESSAGE_LENGTH
    assert "more characters" in response.content.decode()


def test_cap_errors_lists_a_few_fields_and_counts_the_rest():
    detail = {f"key{number}": ["unknown field"] for number in range(700_000)}
    capped = cap_errors(detail)
    assert len(capped) == MAX_LISTED_ERRORS + 1
    assert capped["non_field_errors"] == [
        f"...and {700_000 - MAX_LISTED_ERRORS} more fields with errors"
    ]
    assert capped["key0"] == ["unknown field"]


def test_cap_errors_caps_lists_messages_and_depth():
    assert cap_errors(["bad"] * 50) == ["bad"] * MAX_LISTED_ERRORS + ["...and 30 more errors"]
    long = cap_errors("y" * 2000)
    assert long == "y" * MAX_MESSAGE_LENGTH + f"... ({2000 - MAX_MESSAGE_LENGTH} more characters)"
    nested = cap_errors({"a": {"b": {"c": {"d": {"e": ["deep"]}}}}})
    assert nested == {"a": {"b": {"c": {"d": ["...(nested errors left out)"]}}}}


# -- throttles ------------------------------------------------------------------------
def test_each_person_is_throttled_with_retry_after(client_for, referee, player):
    with override_settings(SAWBONES_THROTTLE_RATES=rates(user="3/min")):
        client = client_for(referee)
        answers = [client.get(reverse("api-campaigns")).status_code for _ in range(4)]
        assert answers == [200, 200, 200, 429]
        refused = client.get(reverse("api-campaigns"))
        assert refused.status_code == 429
        assert 0 < int(refused["Retry-After"]) <= 60
        assert "throttled" in refused.json()["detail"].lower()
        # another person has their own allowance
        assert client_for(player).get(reverse("api-campaigns")).status_code == 200


def test_each_address_is_throttled_whoever_sends(client_for, referee, player):
    with override_settings(SAWBONES_THROTTLE_RATES=rates(ip="3/min")):
        for user in (referee, player, referee):
            assert client_for(user).get(reverse("api-rulesets")).status_code == 200
        assert client_for(player).get(reverse("api-rulesets")).status_code == 429
        elsewhere = client_for(player)
        elsewhere.defaults["REMOTE_ADDR"] = "203.0.113.9"
        assert elsewhere.get(reverse("api-rulesets")).status_code == 200


def test_anonymous_requests_are_throttled_per_address():
    with override_settings(SAWBONES_THROTTLE_RATES=rates(anon="2/min")):
        client = APIClient()
        body = {"username": "nobody", "password": "wrong"}
        answers = [client.post(reverse("api-token"), body, format="json").status_code]
        answers.append(client.post(reverse("api-token"), body, format="json").status_code)
        answers.append(client.post(reverse("api-token"), body, format="json").status_code)
        assert answers == [400, 400, 429]


def test_requests_refused_a_401_are_throttled_as_without_a_person(settings):
    """DRF checks authentication and permissions before its throttles: a wrong token or
    none at all is still counted, at the rate of requests without a person (issue 27)."""
    assert settings.SAWBONES_THROTTLE_RATES["anon"] == "120/min"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    answers = [client.get(reverse("api-campaigns")).status_code for _ in range(300)]
    assert answers[:120] == [401] * 120
    assert set(answers[120:]) == {429}, answers[120:]
    refused = client.get(reverse("api-campaigns"))
    assert 0 < int(refused["Retry-After"]) <= 60
    # no credentials at all: the same address, the same count
    assert APIClient().get(reverse("api-rulesets")).status_code == 429
    elsewhere = APIClient(REMOTE_ADDR="198.51.100.30")
    assert elsewhere.get(reverse("api-rulesets")).status_code == 401


def test_password_checks_have_a_budget_of_their_own(make_user, settings):
    """Each log-in costs a password hash: logins spread over usernames (no lockout) from
    one address meet a 429 long before the request rate, on the API and the page."""
    rate = settings.SAWBONES_THROTTLE_RATES["login"]
    assert rate == "20/min"
    client = APIClient()
    answers = [
        client.post(
            reverse("api-token"), {"username": f"u{n}", "password": "wrong"}, format="json"
        ).status_code
        for n in range(21)
    ]
    assert answers == [400] * 20 + [429]
    page = Client().post(reverse("login"), {"username": "ada", "password": "pw-ada"})
    assert page.status_code == 429
    assert "Too many sign-in attempts" in page.content.decode()
    make_user("ada")
    elsewhere = APIClient(REMOTE_ADDR="198.51.100.31")
    ok = elsewhere.post(
        reverse("api-token"), {"username": "ada", "password": "pw-ada"}, format="json"
    )
    assert ok.status_code == 200


def test_forwarded_for_is_not_trusted_without_proxies(client_for, referee):
    """With NUM_PROXIES 0 a client cannot dodge the limit by inventing addresses."""
    with override_settings(SAWBONES_THROTTLE_RATES=rates(ip="2/min")):
        for number in range(2):
            client = client_for(referee)
            client.credentials(HTTP_X_FORWARDED_FOR=f"198.51.100.{number}")
            assert client.get(reverse("api-rulesets")).status_code == 200
        client.credentials(HTTP_X_FORWARDED_FOR="198.51.100.77")
        assert client.get(reverse("api-rulesets")).status_code == 429


# -- registration ---------------------------------------------------------------------
STRONG = "correct horse battery staple 7"


def test_registration_is_rate_limited_per_address():
    with override_settings(SAWBONES_THROTTLE_RATES=rates(register="2/hour")):
        client = APIClient()
        made = [
            client.post(
                reverse("api-register"), {"username": f"u{n}", "password": STRONG}, format="json"
            ).status_code
            for n in range(3)
        ]
        assert made == [201, 201, 429]
        page = Client().post(reverse("signup"), {"username": "u9", "password": STRONG, "email": ""})
        assert page.status_code == 429
        assert "Too many accounts were made from your address" in page.content.decode()
        from django.contrib.auth import get_user_model

        assert set(get_user_model().objects.values_list("username", flat=True)) == {"u0", "u1"}


# -- logins locked after repeated failures (django-axes) ------------------------------
def test_the_token_endpoint_locks_after_repeated_failures(make_user, settings):
    make_user("ada")
    client = APIClient()
    wrong = {"username": "ada", "password": "wrong"}
    answers = [
        client.post(reverse("api-token"), wrong, format="json").status_code
        for _ in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert answers == [400] * (settings.AXES_FAILURE_LIMIT - 1) + [429]
    right = client.post(
        reverse("api-token"), {"username": "ada", "password": "pw-ada"}, format="json"
    )
    assert right.status_code == 429
    assert "paused for 15 minutes" in right.json()["detail"]
    assert right["Retry-After"] == "900"
    assert not ApiToken.objects.exists()

    # From another address the person can still sign in.
    other = APIClient(REMOTE_ADDR="198.51.100.20")
    ok = other.post(reverse("api-token"), {"username": "ada", "password": "pw-ada"}, format="json")
    assert ok.status_code == 200


def test_the_login_page_locks_after_repeated_failures(make_user, settings):
    make_user("ada")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = client.post(reverse("login"), {"username": "ada", "password": "wrong"})
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.content.decode()
    for password in ("wrong", "pw-ada"):
        response = client.post(reverse("login"), {"username": "ada", "password": password})
        assert response.status_code == 429
        assert "Too many wrong passwords" in response.content.decode()
        assert "paused for 15 minutes" in response.content.decode()
