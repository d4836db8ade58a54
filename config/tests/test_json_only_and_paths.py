"""The API takes JSON only, answers its paths with or without the trailing slash, and
answers every error of an /api/ path in JSON (issue 15; docs/api.md "Basics").

A form-encoded or multipart body used to be half understood: nested ``options`` and
``params`` were dropped without a word. Now it is a 415 and nothing changes.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from characters.models import Character
from rules.clock.models import ClockJob
from rules.play.services import character_create


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_a_form_encoded_campaign_is_415_and_creates_nothing(referee) -> None:
    client = signed_in(referee)
    before = Campaign.objects.count()
    response = client.post(
        reverse("api-campaigns"),
        "name=Formed&ruleset=deckahedron&options=%7B%22heal_minutes%22%3A+5%7D",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 415, response.content
    assert response.headers["Content-Type"] == "application/json"
    assert "application/x-www-form-urlencoded" in response.json()["detail"]
    assert Campaign.objects.count() == before
    # the same body as JSON is taken, options and all
    created = client.post(
        reverse("api-campaigns"),
        {"name": "Formed", "ruleset": "deckahedron", "options": {"heal_minutes": 5}},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["options"]["heal_minutes"] == 5


@pytest.mark.django_db
def test_multipart_bodies_are_415_and_change_nothing(campaign, referee, player) -> None:
    client = signed_in(referee)
    hero = character_create(
        membership=campaign.memberships.get(user=player), name="Hero", sheet=None
    )
    url = reverse("api-actions", kwargs={"character_id": hero.pk})
    response = client.post(url, {"action": "damage", "params": '{"amount": 1}'})  # multipart
    assert response.status_code == 415, response.content
    assert "multipart/form-data" in response.json()["detail"]
    assert Character.objects.get(pk=hero.pk).version == hero.version
    advance = client.post(
        reverse("api-clock-advance", kwargs={"campaign_id": campaign.pk}),
        {"minutes": "5", "request_id": ""},
    )
    assert advance.status_code == 415
    assert not ClockJob.objects.filter(campaign=campaign).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_a_post_without_the_trailing_slash_is_served(referee, settings, debug) -> None:
    settings.DEBUG = debug  # embedded mode runs either way; APPEND_SLASH stays on
    assert settings.APPEND_SLASH
    client = signed_in(referee)
    response = client.post(
        "/api/v1/campaigns",
        json.dumps({"name": "No slash", "ruleset": "hit_dice"}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    assert Campaign.objects.filter(name="No slash").count() == 1
    campaign_id = response.json()["id"]
    got = client.get(f"/api/v1/campaigns/{campaign_id}")
    assert got.status_code == 200
    assert got.json()["name"] == "No slash"
    patched = client.patch(
        f"/api/v1/campaigns/{campaign_id}",
        json.dumps({"ruleset": "hit_dice", "name": "Renamed"}),
        content_type="application/json",
    )
    assert patched.status_code == 200
    assert Campaign.objects.get(pk=campaign_id).name == "Renamed"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    ["/api/v1/nothing-here/", "/api/v1/nothing-here", "/api/v1/campaigns/1/nope/", "/api/v2/"],
)
def test_unknown_api_paths_are_json_404(referee, path) -> None:
    for client in (Client(), signed_in(referee)):
        for method in ("get", "post", "delete"):
            response = getattr(client, method)(path)
            assert response.status_code == 404, (path, method)
            assert response.headers["Content-Type"] == "application/json"
            assert "/api/schema/" in response.json()["detail"]


@pytest.mark.django_db
def test_a_wrong_method_is_json_405_with_allow(referee) -> None:
    response = signed_in(referee).delete("/api/v1/campaigns")
    assert response.status_code == 405
    assert response.headers["Content-Type"] == "application/json"
    assert "DELETE" in response.json()["detail"]
    assert "POST" in response.headers["Allow"]


@pytest.mark.django_db
def test_pages_keep_their_own_404(referee) -> None:
    response = signed_in(referee).get("/no-such-page/")
    assert response.status_code == 404
    assert response.headers["Content-Type"].startswith("text/html")
