"""The accounts API (API.md): register, obtain a token, use it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from knox.crypto import hash_token
from rest_framework.test import APIClient

from accounts.api import PASSWORD_TOKEN_NAME
from accounts.models import ApiToken

pytestmark = pytest.mark.django_db

STRONG = "correct horse battery staple 7"


def register(client: APIClient, **body: object):
    return client.post(reverse("api-register"), body, format="json")


def test_register_answers_201_with_id_and_username() -> None:
    response = register(APIClient(), username="ada", password=STRONG, email="ada@example.org")
    assert response.status_code == 201
    user = get_user_model().objects.get(username="ada")
    assert response.json() == {"id": user.pk, "username": "ada"}
    assert user.email == "ada@example.org"
    assert user.check_password(STRONG)


def test_register_without_email() -> None:
    response = register(APIClient(), username="bob", password=STRONG)
    assert response.status_code == 201
    assert get_user_model().objects.get(username="bob").email == ""


@pytest.mark.parametrize(
    "password",
    ["short1", "password", "12345678901", "ada-lovelace"],
    ids=["too-short", "too-common", "all-digits", "like-the-username"],
)
def test_weak_password_is_400_and_creates_nobody(password: str) -> None:
    response = register(APIClient(), username="ada-lovelace", password=password)
    assert response.status_code == 400
    assert "password" in response.json()
    assert not get_user_model().objects.filter(username="ada-lovelace").exists()


def test_taken_username_is_400(make_user) -> None:
    make_user("ada")
    response = register(APIClient(), username="ada", password=STRONG)
    assert response.status_code == 400
    assert "username" in response.json()
    assert get_user_model().objects.filter(username="ada").count() == 1


@pytest.mark.parametrize(
    "body",
    [
        {"password": STRONG},
        {"username": "ada"},
        {"username": "", "password": STRONG},
        {"username": "bad name!", "password": STRONG},
        {"username": "ada", "password": STRONG, "email": "not-an-email"},
        {"username": "a" * 151, "password": STRONG},
        {"username": "nul\x00", "password": STRONG},
    ],
    ids=["no-username", "no-password", "blank", "bad-chars", "bad-email", "too-long", "nul"],
)
def test_bad_registration_input_is_400(body: dict[str, object]) -> None:
    response = APIClient().post(reverse("api-register"), body, format="json")
    assert response.status_code == 400
    assert get_user_model().objects.count() == 0


def test_token_for_the_right_password(make_user) -> None:
    user = make_user("ada")
    response = APIClient().post(
        reverse("api-token"), {"username": "ada", "password": "pw-ada"}, format="json"
    )
    assert response.status_code == 200
    secret = response.json()["token"]
    assert list(response.json()) == ["token"]
    stored = ApiToken.objects.get(user=user)
    assert stored.digest == hash_token(secret)  # only the digest is kept
    assert secret not in (stored.digest, stored.name)
    assert (stored.name, stored.scope, stored.expiry) == (PASSWORD_TOKEN_NAME, "referee", None)


def test_each_password_sign_in_is_a_token_of_its_own(make_user) -> None:
    """The secret cannot be shown again, so a second sign-in mints a second token;
    both work and both are listed (and revocable) on the account page."""
    make_user("ada")
    body = {"username": "ada", "password": "pw-ada"}
    first = APIClient().post(reverse("api-token"), body, format="json").json()["token"]
    second = APIClient().post(reverse("api-token"), body, format="json").json()["token"]
    assert first != second
    for secret in (first, second):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        assert client.get(reverse("api-campaigns")).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"username": "ada", "password": "wrong"},
        {"username": "nobody", "password": "pw-ada"},
        {"username": "ada"},
        {},
    ],
    ids=["wrong-password", "unknown-user", "no-password", "empty"],
)
def test_token_refused_is_400(make_user, body: dict[str, str]) -> None:
    make_user("ada")
    response = APIClient().post(reverse("api-token"), body, format="json")
    assert response.status_code == 400
    assert not ApiToken.objects.exists()


def test_token_authentication_works_end_to_end() -> None:
    client = APIClient()
    assert register(client, username="ada", password=STRONG).status_code == 201
    token = client.post(
        reverse("api-token"), {"username": "ada", "password": STRONG}, format="json"
    ).json()["token"]

    anonymous = client.get(reverse("api-campaigns"))
    assert anonymous.status_code == 401
    assert anonymous["WWW-Authenticate"] == "Token"

    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    created = client.post(
        reverse("api-campaigns"), {"name": "Tokens", "ruleset": "hit_dice"}, format="json"
    )
    assert created.status_code == 201
    assert created.json()["my_role"] == "referee"
    listed = client.get(reverse("api-campaigns"))
    assert listed.status_code == 200
    assert [c["name"] for c in listed.json()] == ["Tokens"]


def test_a_wrong_token_is_refused(make_user) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")
    response = client.get(reverse("api-campaigns"))
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid token."}


def test_session_authentication_works(make_user) -> None:
    make_user("ada")
    client = APIClient()
    client.force_login(get_user_model().objects.get(username="ada"))
    assert client.get(reverse("api-campaigns")).status_code == 200


def test_session_writes_need_the_csrf_token(make_user) -> None:
    """A browser session cannot be ridden by another site: POST without CSRF is 403."""
    make_user("ada")
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username="ada"))
    response = client.post(
        reverse("api-campaigns"), {"name": "x", "ruleset": "hit_dice"}, format="json"
    )
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
