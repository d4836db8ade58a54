"""The schema is the server (issue 27): what a client built from the schema alone sends is
what the server takes, and the server's refusals are the schema's.

* a DELETE sent with only what the schema declares deletes (the confirmation is a
  declared, required query parameter, not an undeclared body);
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from campaigns.models import Campaign, Membership
from characters.models import Character
from config.openapi import api_paths
from rules.play.services import character_create


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    generated = SchemaGenerator().get_schema(request=None, public=True)
    loaded: dict[str, Any] = json.loads(json.dumps(generated, default=str))
    return loaded


def operation(schema: dict[str, Any], url_name: str, method: str) -> dict[str, Any]:
    found: dict[str, Any] = schema["paths"][api_paths()[url_name]][method]
    return found


def declared_request(
    schema: dict[str, Any], url_name: str, method: str, values: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The URL and query a client built from the schema sends: each declared path
    parameter and each required query parameter, from ``values``; nothing else."""
    path = api_paths()[url_name]
    query = {}
    for parameter in operation(schema, url_name, method).get("parameters", []):
        if parameter["in"] == "path":
            path = path.replace("{" + parameter["name"] + "}", str(values[parameter["name"]]))
        elif parameter["in"] == "query" and parameter.get("required"):
            query[parameter["name"]] = values[parameter["name"]]
    return path, query


@pytest.mark.django_db
def test_a_delete_with_only_what_the_schema_declares_deletes(
    schema, campaign, referee, player, client_for
) -> None:
    aldo = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player), name="Aldo"
    )
    for url_name in ("api-character", "api-campaign"):
        delete = operation(schema, url_name, "delete")
        assert "requestBody" not in delete, url_name
        confirm = next(p for p in delete["parameters"] if p["name"] == "confirm")
        assert confirm["in"] == "query" and confirm["required"] is True, confirm
        assert "400" in delete["responses"], url_name
    ref: APIClient = client_for(referee)

    url, query = declared_request(
        schema, "api-character", "delete", {"character_id": aldo.pk, "confirm": "Ald"}
    )
    refused = ref.delete(url + "?confirm=Ald")
    assert refused.status_code == 400 and "confirm" in refused.json(), refused.content
    assert ref.delete(url).status_code == 400  # no confirmation at all
    url, query = declared_request(
        schema, "api-character", "delete", {"character_id": aldo.pk, "confirm": "Aldo"}
    )
    assert ref.delete(url, QUERY_STRING=urlencode(query)).status_code == 204
    assert not Character.objects.filter(pk=aldo.pk).exists()

    url, query = declared_request(
        schema, "api-campaign", "delete", {"campaign_id": campaign.pk, "confirm": campaign.name}
    )
    assert ref.delete(url, QUERY_STRING=urlencode(query)).status_code == 204
    assert not Campaign.objects.filter(pk=campaign.pk).exists()


@pytest.mark.django_db
def test_a_delete_confirmed_in_a_json_body_still_deletes(campaign, referee, client_for) -> None:
    """The body the API took before keeps working (docs/api.md promises it)."""
    url = f"/api/v1/campaigns/{campaign.pk}/"
    response = client_for(referee).delete(url, {"confirm": campaign.name}, format="json")
    assert response.status_code == 204
