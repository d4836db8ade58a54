"""Idempotency keys (issue 24, docs/api.md): a write sent again with the same key acts
once and gets the first answer again; another request with the key is a 422; a request
while the first is being answered is a 409. Pages' forms carry a one-time key."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from campaigns.models import Membership
from core.idempotency import fingerprint, idempotency_claim, idempotency_sweep
from core.models import IdempotencyKey
from rules.log.models import Resolution, ResolutionKind
from rules.play.services import character_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in():
    """An API client signed in as a person would be (a session, or a token): the key is
    per person, so the client must be known before the view runs."""

    def make(user, token: bool = False) -> APIClient:
        client = APIClient()
        if token:
            answer = client.post(
                "/api/v1/auth/token/",
                {"username": user.username, "password": "pw-" + user.username},
                format="json",
            )
            client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
        else:
            client.force_login(user)
        return client

    return make


@pytest.fixture
def aldo(campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    return character_create(
        membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )


def act(client, character, body, key):
    return client.post(
        f"/api/v1/characters/{character.pk}/actions/",
        body,
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


def actions_of(character):
    return Resolution.objects.filter(character=character, kind=ResolutionKind.ACTION).count()


@pytest.mark.parametrize("token", [False, True], ids=["session", "token"])
def test_the_same_key_twice_on_an_action_acts_once_and_answers_the_same(
    aldo, referee, signed_in, token
):
    client = signed_in(referee, token=token)
    body = {"action": "damage", "params": {"amount": 3}, "expected_version": aldo.version}
    first = act(client, aldo, body, "key-1")
    second = act(client, aldo, body, "key-1")
    assert first.status_code == second.status_code == 201, first.content
    assert second.content == first.content
    assert second["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert actions_of(aldo) == 1
    # the same request with its keys in another order and spacing is the same body
    reordered = act(client, aldo, dict(reversed(list(body.items()))), "key-1")
    assert reordered.status_code == 201 and reordered.content == first.content
    # a new key acts (and meets the stale version: the first answer was 201)
    assert act(client, aldo, body, "key-2").status_code == 409
    assert actions_of(aldo) == 1


def test_the_same_key_with_another_body_is_a_422_and_changes_nothing(aldo, referee, signed_in):
    client = signed_in(referee)
    assert act(client, aldo, {"action": "damage", "params": {"amount": 3}}, "k").status_code == 201
    other = act(client, aldo, {"action": "damage", "params": {"amount": 4}}, "k")
    assert other.status_code == 422
    assert "another request" in other.json()["detail"]
    assert actions_of(aldo) == 1
    # another path is another request too
    elsewhere = client.post(f"/api/v1/characters/{aldo.pk}/undo/", {}, HTTP_IDEMPOTENCY_KEY="k")
    assert elsewhere.status_code == 422


def test_a_request_while_the_first_is_still_answered_is_a_409(aldo, referee, signed_in):
    body = {"action": "damage", "params": {"amount": 3}}
    path = f"/api/v1/characters/{aldo.pk}/actions/"
    claim = idempotency_claim(
        user_id=referee.pk,
        key="busy",
        fingerprint=fingerprint("POST", path, b'{"action": "damage", "params": {"amount": 3}}'),
    )
    assert claim.outcome.value == "new"
    answer = act(signed_in(referee), aldo, body, "busy")
    assert answer.status_code == 409
    assert "still being answered" in answer.json()["detail"]
    assert answer["Retry-After"] == "1"
    assert actions_of(aldo) == 0


def test_the_same_party_action_twice_makes_one_entry_per_character(
    make_campaign, referee, player, other_player, signed_in
):
    school = make_campaign("old_school")
    party = [
        character_create(
            membership=Membership.objects.get(campaign=school, user=user),
            name=name,
            sheet={"max_wounds": 8},
        )
        for user, name in ((player, "Dorn"), (other_player, "Pell"))
    ]
    client = signed_in(referee)
    answers = [
        client.post(
            f"/api/v1/campaigns/{school.pk}/party-actions/",
            {"action": "damage", "params": {"amount": 1}},
            format="json",
            HTTP_IDEMPOTENCY_KEY="party-1",
        )
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [201, 201]
    assert answers[0].content == answers[1].content
    for character in party:
        assert actions_of(character) == 1


def test_keys_are_per_person_and_refusals_before_acting_are_not_kept(
    aldo, referee, player, signed_in
):
    body = {"action": "damage", "params": {"amount": 1}}
    assert act(signed_in(referee), aldo, body, "shared").status_code == 201
    undo = f"/api/v1/characters/{aldo.pk}/undo/"
    # the player may not undo (403): not kept, nor does it see the referee's answer
    refused = signed_in(player).post(undo, {}, format="json", HTTP_IDEMPOTENCY_KEY="shared")
    assert refused.status_code == 403
    assert not IdempotencyKey.objects.filter(user=player).exists()
    assert actions_of(aldo) == 1


def test_a_key_is_checked_and_anonymous_requests_are_not_keyed(aldo, referee, signed_in):
    body = {"action": "damage", "params": {"amount": 1}}
    too_long = act(signed_in(referee), aldo, body, "x" * 256)
    assert too_long.status_code == 400
    assert act(APIClient(), aldo, body, "anon").status_code == 401
    assert not IdempotencyKey.objects.exists()


def test_keys_live_a_day_and_then_are_swept(aldo, referee, signed_in):
    body = {"action": "damage", "params": {"amount": 1}}
    client = signed_in(referee)
    assert act(client, aldo, body, "daily").status_code == 201
    record = IdempotencyKey.objects.get(user=referee, key="daily")
    assert record.expires_at - record.claimed_at >= timedelta(hours=24)
    assert idempotency_sweep(now=record.expires_at - timedelta(seconds=1)) == 0
    IdempotencyKey.objects.filter(pk=record.pk).update(expires_at=timezone.now())
    # an expired key is swept when its owner writes with a key again: it acts anew
    assert act(client, aldo, body, "daily").status_code == 201
    assert actions_of(aldo) == 2
    assert idempotency_sweep(now=timezone.now() + timedelta(days=2)) == 1


def test_every_write_operation_of_the_schema_takes_the_header(client_for, referee):
    schema = client_for(referee).get("/api/schema/?format=json").json()
    writes = [
        (path, method, operation)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in ("post", "put", "patch", "delete") and operation.get("security")
    ]
    assert len(writes) > 20
    for path, method, operation in writes:
        names = {(p["in"], p["name"]) for p in operation.get("parameters", [])}
        assert ("header", "Idempotency-Key") in names, (method, path)
        assert {"409", "422"} <= operation["responses"].keys(), (method, path)
