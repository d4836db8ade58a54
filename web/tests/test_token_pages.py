"""The account page's API tokens: list, make (the secret shown once), revoke."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from knox.crypto import hash_token
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import token_create

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def secret_on(page: str) -> str:
    match = re.search(r'id="new-token" readonly value="([0-9a-f]+)"', page)
    assert match, "the new token is not on the page"
    return match.group(1)


def test_the_account_page_needs_a_login():
    response = Client().get(reverse("account"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_make_a_token_see_it_once_and_use_it(referee, campaign):
    client = signed_in(referee)
    made = client.post(
        reverse("account-token-create"),
        {"name": "Table bot", "scope": "player", "campaign": campaign.pk, "expires_on": ""},
    )
    assert made.status_code == 302
    page = client.get(made["Location"]).content.decode()
    secret = secret_on(page)
    assert "shown this once" in page
    token = ApiToken.objects.get()
    assert (token.name, token.scope, token.campaign_id) == ("Table bot", "player", campaign.pk)
    assert token.digest == hash_token(secret)

    again = client.get(reverse("account")).content.decode()
    assert secret not in again  # never shown twice
    assert "Table bot" in again and campaign.name in again and "play" in again

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    assert (
        api.get(reverse("api-campaign", kwargs={"campaign_id": campaign.pk})).json()["my_role"]
        == "player"
    )


def test_an_expiry_date_is_kept(referee):
    client = signed_in(referee)
    client.post(
        reverse("account-token-create"),
        {"name": "Short", "scope": "read", "expires_on": "2999-01-31"},
    )
    token = ApiToken.objects.get()
    assert token.expiry is not None
    assert (token.expiry.year, token.expiry.month, token.expiry.day) == (2999, 1, 31)
    assert "31 Jan 2999" in client.get(reverse("account")).content.decode()


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"name": "", "scope": "read"}, "This field is required."),
        ({"name": "x", "scope": "god"}, "Select a valid choice."),
        ({"name": "x", "scope": "read", "expires_on": "2001-01-01"}, "Pick an expiry date"),
        ({"name": "x", "scope": "read", "campaign": "999999"}, "Select a valid choice."),
    ],
    ids=["no-name", "bad-scope", "past", "not-my-campaign"],
)
def test_a_bad_token_form_says_why_and_makes_nothing(referee, form, message):
    response = signed_in(referee).post(reverse("account-token-create"), form)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not ApiToken.objects.exists()


def test_revoke_from_the_page(referee):
    token, secret = token_create(user=referee, name="Old bot", scope="read")
    client = signed_in(referee)
    assert "Old bot" in client.get(reverse("account")).content.decode()
    revoked = client.post(reverse("account-token-revoke", kwargs={"token_id": token.pk}))
    assert revoked.status_code == 302
    assert "Old bot" not in client.get(revoked["Location"]).content.decode()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    assert api.get(reverse("api-campaigns")).status_code == 401


def test_someone_elses_token_cannot_be_revoked(referee, player):
    token, _ = token_create(user=player, name="Theirs", scope="read")
    response = signed_in(referee).post(
        reverse("account-token-revoke", kwargs={"token_id": token.pk})
    )
    assert response.status_code == 404
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_the_new_tokens_name_is_escaped_in_its_box(referee):
    # the box (templates/_shown_once.html) takes its heading as a variable: the name in it
    # is still text, never markup
    client = signed_in(referee)
    made = client.post(reverse("account-token-create"), {"name": "<b>bot</b>", "scope": "read"})
    page = client.get(made["Location"]).content.decode()
    assert "Your new token “&lt;b&gt;bot&lt;/b&gt;”." in page
    assert "<b>bot</b>" not in page
