"""Named, scoped, hashed API tokens (API.md: auth/tokens/)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import timezone
from knox.crypto import hash_token
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import MAX_TOKENS_PER_USER, token_create

pytestmark = pytest.mark.django_db


def with_token(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    return client


def make_token(client: APIClient, **body: object):
    return client.post(reverse("api-tokens"), body, format="json")


def test_a_token_is_shown_once_and_listed_without_its_secret(client_for, referee, campaign):
    client = client_for(referee)
    expires = (timezone.now() + timedelta(days=30)).replace(microsecond=0)
    created = make_token(
        client, name="Discord bot", scope="player", campaign=campaign.pk, expires_at=expires
    )
    assert created.status_code == 201
    body = created.json()
    secret = body.pop("token")
    token = ApiToken.objects.get()
    assert body == {
        "id": token.pk,
        "name": "Discord bot",
        "scope": "player",
        "campaign": campaign.pk,
        "created": body["created"],
        "expires_at": expires.isoformat().replace("+00:00", "Z"),
        "last_used_at": None,
    }
    assert token.digest == hash_token(secret)
    assert secret not in token.token_key or len(token.token_key) < len(secret)

    listed = client.get(reverse("api-tokens")).json()
    assert [row["id"] for row in listed] == [token.pk]
    assert "token" not in listed[0]
    assert secret not in str(listed)


def test_last_use_is_recorded(client_for, referee):
    _, secret = token_create(user=referee, name="bot", scope="read")
    assert with_token(secret).get(reverse("api-campaigns")).status_code == 200
    used = ApiToken.objects.get().last_used_at
    assert used is not None
    assert timezone.now() - used < timedelta(seconds=10)
    listed = client_for(referee).get(reverse("api-tokens")).json()
    assert listed[0]["last_used_at"] is not None


def test_a_revoked_token_is_refused_at_once(client_for, referee):
    _, secret = token_create(user=referee, name="bot", scope="referee")
    bot = with_token(secret)
    assert bot.get(reverse("api-campaigns")).status_code == 200
    token_id = ApiToken.objects.get().pk
    revoked = client_for(referee).delete(reverse("api-token-detail", kwargs={"token_id": token_id}))
    assert revoked.status_code == 204
    refused = bot.get(reverse("api-campaigns"))
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"] == "Token"
    assert not ApiToken.objects.exists()


def test_a_token_revokes_itself(referee):
    """An unlimited referee token may manage tokens, itself included."""
    token, secret = token_create(user=referee, name="bot", scope="referee")
    bot = with_token(secret)
    assert bot.delete(reverse("api-token-detail", kwargs={"token_id": token.pk})).status_code == 204
    assert bot.get(reverse("api-tokens")).status_code == 401


def test_an_expired_token_is_refused(referee):
    token, secret = token_create(
        user=referee, name="bot", scope="read", expires_at=timezone.now() + timedelta(hours=1)
    )
    assert with_token(secret).get(reverse("api-campaigns")).status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    assert with_token(secret).get(reverse("api-campaigns")).status_code == 401


def test_a_player_token_of_the_referee_acts_as_a_player(referee, campaign):
    _, secret = token_create(user=referee, name="as a player", scope="player")
    bot = with_token(secret)
    answer = bot.get(reverse("api-campaign", kwargs={"campaign_id": campaign.pk}))
    assert answer.status_code == 200
    assert answer.json()["my_role"] == "player"
    listed = bot.get(reverse("api-campaigns")).json()
    assert [row["my_role"] for row in listed] == ["player"]
    invite = bot.post(reverse("api-invites", kwargs={"campaign_id": campaign.pk}))
    assert invite.status_code == 403


def test_a_token_limited_to_a_campaign_sees_only_that_one(referee, make_campaign):
    first = make_campaign("hit_dice")
    second = make_campaign("old_school")
    _, secret = token_create(user=referee, name="one table", scope="referee", campaign_id=first.pk)
    bot = with_token(secret)
    assert [row["id"] for row in bot.get(reverse("api-campaigns")).json()] == [first.pk]
    assert bot.get(reverse("api-campaign", kwargs={"campaign_id": second.pk})).status_code == 404
    made = bot.post(reverse("api-campaigns"), {"name": "x", "ruleset": "hit_dice"}, format="json")
    assert made.status_code == 403
    assert made.json() == {"detail": "this token is limited to one campaign"}


def test_a_read_token_only_reads(referee, campaign):
    _, secret = token_create(user=referee, name="reader", scope="read")
    bot = with_token(secret)
    assert bot.get(reverse("api-campaign", kwargs={"campaign_id": campaign.pk})).status_code == 200
    refused = bot.post(reverse("api-invites", kwargs={"campaign_id": campaign.pk}))
    assert refused.status_code == 403
    assert refused.json() == {"detail": "this token may only read"}


@pytest.mark.parametrize(
    "body",
    [
        {"scope": "read"},
        {"name": "bot"},
        {"name": "bot", "scope": "god"},
        {"name": "", "scope": "read"},
        {"name": "x" * 101, "scope": "read"},
        {"name": "bot", "scope": "read", "campaign": 0},
        {"name": "bot", "scope": "read", "campaign": "abc"},
        {"name": "bot", "scope": "read", "expires_at": "tomorrow"},
        {"name": "bot", "scope": "read", "expires_at": "2001-01-01T00:00:00Z"},
    ],
    ids=[
        "no-name",
        "no-scope",
        "unknown-scope",
        "blank-name",
        "long-name",
        "campaign-zero",
        "campaign-text",
        "bad-date",
        "past",
    ],
)
def test_bad_token_requests_are_400_and_make_nothing(client_for, referee, body):
    response = make_token(client_for(referee), **body)
    assert response.status_code == 400
    assert not ApiToken.objects.exists()


def test_a_campaign_of_someone_else_is_400(client_for, outsider, campaign):
    response = make_token(client_for(outsider), name="bot", scope="read", campaign=campaign.pk)
    assert response.status_code == 400
    assert response.json() == {"campaign": ["no such campaign"]}
    assert not ApiToken.objects.exists()


def test_tokens_per_person_are_capped(client_for, referee):
    for number in range(MAX_TOKENS_PER_USER):
        token_create(user=referee, name=f"bot {number}", scope="read")
    response = make_token(client_for(referee), name="one more", scope="read")
    assert response.status_code == 400
    assert ApiToken.objects.count() == MAX_TOKENS_PER_USER


def test_one_cannot_revoke_another_persons_token(client_for, referee, player):
    token, secret = token_create(user=player, name="bot", scope="read")
    url = reverse("api-token-detail", kwargs={"token_id": token.pk})
    assert client_for(referee).delete(url).status_code == 404
    assert with_token(secret).get(reverse("api-campaigns")).status_code == 200


@pytest.mark.parametrize(
    "header",
    [b"Token \xff\xfe", b"Token ", b"Token a b", b"Token " + b"z" * 5000],
    ids=["not-utf8", "empty", "spaces", "huge"],
)
def test_malformed_token_headers_are_401(header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header.decode("latin-1"))
    response = client.get(reverse("api-campaigns"))
    assert response.status_code == 401
    assert "detail" in response.json()


def test_tokens_from_before_named_tokens_keep_working(make_user):
    """Migration accounts.0002 hashes rest_framework.authtoken's plain-text tokens: a
    client that stored its key goes on using it."""
    user = make_user("ada")
    old = Token.objects.create(user=user)
    migration = __import__("accounts.migrations.0002_hash_old_tokens", fromlist=["x"])
    migration.hash_old_tokens(apps, None)
    assert not Token.objects.exists()
    stored = ApiToken.objects.get(user=user)
    assert (stored.scope, stored.digest) == ("referee", hash_token(old.key))
    assert with_token(old.key).get(reverse("api-campaigns")).status_code == 200
