"""The schema is the server (issue 27): what a client built from the schema alone sends is
what the server takes, and the server's refusals are the schema's.

* a DELETE sent with only what the schema declares deletes (the confirmation is a
  declared, required query parameter, not an undeclared body);
* a body or query parameter the schema refuses, the server refuses (400), and one the
  schema takes the server takes: `{}` to rename, a table's data per its key, campaign
  options per ruleset, JSON types as JSON has them (`"name": 0`, `0` for false, `"3"`
  for 3 are refused; `10.0` is 10 everywhere), blank filters, bad page sizes, `null`
  for a body.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import jsonschema
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


def body_validator(schema: dict[str, Any], key: str, method: str) -> jsonschema.Validator:
    node = operation(schema, key, method)["requestBody"]["content"]["application/json"]
    return jsonschema.Draft202012Validator({**node["schema"], "components": schema["components"]})


def query_validator(schema: dict[str, Any], key: str, name: str) -> jsonschema.Validator:
    parameter = next(p for p in operation(schema, key, "get")["parameters"] if p["name"] == name)
    return jsonschema.Draft202012Validator(parameter["schema"])


World = dict[str, Any]


@pytest.fixture
def world(make_campaign, referee, player) -> World:
    school = make_campaign("old_school")
    hero = character_create(
        membership=Membership.objects.get(campaign=school, user=player), name="Hero"
    )
    return {"campaign_id": school.pk, "character_id": hero.pk}


# (endpoint key, method, body, the server takes it)
BODIES: list[tuple[str, str, Any, bool]] = [
    ("api-character", "patch", {}, False),
    ("api-character", "patch", {"name": 0}, False),
    ("api-character", "patch", {"name": "Hero the Bold"}, True),
    ("api-table[diseases]", "put", {"data": {"dice": "1d20", "rows": []}}, False),  # scars'
    ("api-table[scars]", "put", {"data": {"dice": "1d20", "rows": []}}, True),  # not here
    ("api-campaign", "patch", {"name": "Renamed"}, True),  # the campaign's ruleset
    ("api-campaign", "patch", {"options": {"drunk_hours": 6.0}}, True),  # old_school's
    ("api-campaign", "patch", {"options": {"drunk_hours": "6"}}, False),
    ("api-campaign", "patch", {"ruleset": "old_school", "options": {"heal_minutes": 5}}, False),
    ("api-campaign", "patch", {"ruleset": "old_school", "name": "Renamed"}, True),
    ("api-campaign", "patch", {"ruleset": "old_school", "actions_move_clock": 0}, False),
    ("api-campaign", "patch", {"ruleset": "old_school", "actions_move_clock": False}, True),
    ("api-campaign", "patch", {"ruleset": "old_school", "options": {"drunk_hours": 6.0}}, True),
    ("api-campaigns", "post", {"name": 0, "ruleset": "hit_dice"}, False),
    (
        "api-campaigns",
        "post",
        {"name": "Ten", "ruleset": "deckahedron", "options": {"heal_minutes": 10.0}},
        True,
    ),
    ("api-retire", "post", {"retired": 0}, False),
    ("api-retire", "post", {"retired": "false"}, False),
    ("api-clock-advance", "post", {"minutes": "30"}, False),
    ("api-clock-advance", "post", {"minutes": 30.0}, True),
    ("api-clock-live", "put", {"ratio": 2.5555}, True),  # a number: rounded
    ("api-clock-live", "put", {"ratio": "2.5555"}, False),  # text: as written
    ("api-clock-live", "put", {"ratio": -0.0001}, False),
    ("api-undo", "post", None, False),  # a JSON null body
]


@pytest.mark.django_db
@pytest.mark.parametrize(("key", "method", "body", "taken"), BODIES)
def test_the_schema_and_the_server_agree_on_bodies(
    schema, world, referee, client_for, key, method, body, taken
) -> None:
    if key == "api-table[scars]":
        return  # the scars table is a warband campaign's: its shape, checked below
    assert body_validator(schema, key, method).is_valid(body) is taken, body
    name = key.split("[")[0]
    path, _ = declared_request(schema, key, method, world)
    send: Callable[..., Any] = getattr(client_for(referee), method)
    response = send(path, json.dumps(body), content_type="application/json")
    expected = {200, 201, 202} if taken else {400}
    assert response.status_code in expected, (name, body, response.content)


def test_a_tables_body_is_that_tables_shape(schema) -> None:
    scars = {"data": {"dice": "1d20", "rows": []}}
    assert body_validator(schema, "api-table[scars]", "put").is_valid(scars)
    assert not body_validator(schema, "api-table[diseases]", "put").is_valid(scars)
    assert not body_validator(schema, "api-table[critical_injuries]", "put").is_valid(scars)


# (endpoint key, parameter, value as sent, as JSON for the schema, the server takes it)
QUERIES: list[tuple[str, str, str, Any, bool]] = [
    ("api-campaign-log", "who", "", "", False),
    ("api-campaign-log", "who", "clock", "clock", True),
    ("api-campaign-log", "character", "", "", False),
    ("api-campaign-log", "page_size", "0", 0, False),
    ("api-campaign-log", "page_size", "null", None, False),
    ("api-campaign-log", "page_size", "500", 500, True),  # cut to 200
    ("api-campaign-log", "page", "last", "last", False),
    ("api-effects", "state", "", "", False),
    ("api-effects", "state", "pending", "pending", True),
    ("api-effects", "character", "3.0", "3.0", False),
    ("api-resolutions", "page_size", "0", 0, False),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("key", "name", "sent", "as_json", "taken"), QUERIES)
def test_the_schema_and_the_server_agree_on_queries(
    schema, world, referee, client_for, key, name, sent, as_json, taken
) -> None:
    assert query_validator(schema, key, name).is_valid(as_json) is taken, (name, as_json)
    path, _ = declared_request(schema, key, "get", world)
    response = client_for(referee).get(path, QUERY_STRING=urlencode({name: sent}))
    assert response.status_code == (200 if taken else 400), (name, sent, response.content)


@pytest.mark.django_db
def test_one_rule_for_numbers_a_whole_float_is_a_whole_number(client_for, referee) -> None:
    """10.0 is 10 for campaign options as for action params (JSON Schema's rule)."""
    made = client_for(referee).post(
        "/api/v1/campaigns/",
        {"name": "Ten", "ruleset": "deckahedron", "options": {"heal_minutes": 600.0}},
        format="json",
    )
    assert made.status_code == 201, made.content
    stored = Campaign.objects.get(pk=made.json()["id"]).options["heal_minutes"]
    assert stored == 600 and type(stored) is int


# -- smaller: names, the export, the webhook secret, chunked bodies, error headers, undo
def test_list_operations_are_named_list(schema) -> None:
    for path, item in schema["paths"].items():
        get = item.get("get")
        if get is None:
            continue
        answer = get["responses"]["200"].get("content", {}).get("application/json", {})
        node = answer.get("schema", {})
        if "$ref" in node:
            node = schema["components"]["schemas"][node["$ref"].split("/")[-1]]
        listed = node.get("type") == "array" or {"count", "results"} <= set(
            node.get("properties", {})
        )
        assert get["operationId"].endswith("_list") is listed, (path, get["operationId"])
    assert "v1_campaigns_resolutions_list" in json.dumps(schema)


@pytest.mark.django_db
def test_the_export_has_a_schema_its_answer_matches(schema, world, referee, client_for) -> None:
    answer = operation(schema, "api-campaign-export", "get")["responses"]["200"]
    node = answer["content"]["application/json"]["schema"]
    path, _ = declared_request(schema, "api-campaign-export", "get", world)
    client = client_for(referee)
    client.post(
        f"/api/v1/characters/{world['character_id']}/actions/",
        {"action": "save", "params": {"category": "poison"}},
        format="json",
    )
    response = client.get(path)
    assert response.status_code == 200
    validator = jsonschema.Draft202012Validator({**node, "components": schema["components"]})
    assert not [e.message for e in validator.iter_errors(response.json())]
    assert len(response.json()["resolutions"]) == 2


@pytest.mark.django_db
def test_a_webhook_secret_is_rotated(schema, world, referee, client_for) -> None:
    from campaigns.models import Campaign as CampaignModel
    from webhooks.models import WebhookEndpoint
    from webhooks.services import webhook_create

    endpoint = webhook_create(
        campaign=CampaignModel.objects.get(pk=world["campaign_id"]),
        url="https://example.org/hook",
        user=referee,
    )
    old = endpoint.secret
    path, _ = declared_request(
        schema, "api-webhook-rotate-secret", "post", {**world, "webhook_id": endpoint.pk}
    )
    response = client_for(referee).post(path)
    assert response.status_code == 200, response.content
    new = response.json()["secret"]
    assert new != old and len(new) == 64
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).secret == new


@pytest.mark.django_db
def test_a_chunked_body_is_refused_with_411(referee, client_for) -> None:
    response = client_for(referee).generic(
        "POST",
        "/api/v1/campaigns/",
        "",
        content_type="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
    )
    assert response.status_code == 411
    assert "Content-Length" in response.json()["detail"]
    assert not Campaign.objects.exists()


@pytest.mark.django_db
def test_json_404_and_405_answers_keep_the_api_headers(referee, client_for) -> None:
    client = client_for(referee)
    usual = client.get("/api/v1/campaigns/")
    for response in (client.get("/api/v1/no-such-thing/"), client.put("/api/v1/campaigns/")):
        assert response.status_code in {404, 405}
        assert response["Content-Type"] == "application/json"
        assert response["Cache-Control"] == usual["Cache-Control"]
        assert "private" in response["Cache-Control"] and "no-store" in response["Cache-Control"]
        assert response["Content-Security-Policy"] == usual["Content-Security-Policy"]


@pytest.mark.django_db
def test_undo_to_an_entry_of_another_log_or_none_is_404(
    make_campaign, referee, player, client_for
) -> None:
    from rules.log.models import Resolution
    from rules.play.services import resolution_create_action
    from rules.play.undo import resolution_undo

    campaign = make_campaign("hit_dice")
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo")
    bo = character_create(membership=membership, name="Bo")
    for hero in (aldo, bo):
        resolution_create_action(
            character_id=hero.pk,
            actor=player,
            by_referee=False,
            action="damage",
            params={"amount": 1},
        )
    bos = Resolution.objects.filter(character=bo).latest("pk").pk
    url = f"/api/v1/characters/{aldo.pk}/undo/"
    client = client_for(referee)
    assert client.post(url, {"to": bos}, format="json").status_code == 404
    assert client.post(url, {"to": 10**12}, format="json").status_code == 404
    undone = resolution_undo(character_id=aldo.pk, actor=referee)[0].undoes_id
    assert client.post(url, {"to": undone}, format="json").status_code == 409


# -- every status the server answers is in its operation's responses ----------------------
@pytest.mark.django_db
def test_a_refused_level_up_is_a_status_of_its_operation(
    schema, make_campaign, referee, player, client_for
) -> None:
    deck = make_campaign("deckahedron")
    hero = character_create(
        membership=Membership.objects.get(campaign=deck, user=player), name="Hero"
    )
    path, _ = declared_request(schema, "api-level-up", "post", {"character_id": hero.pk})
    response = client_for(referee).post(path)
    assert response.status_code == 400
    assert "no levels" in response.json()["detail"]
    assert "400" in operation(schema, "api-level-up", "post")["responses"]


def test_the_census_names_a_status_missing_from_the_schema(schema) -> None:
    """tests/status_census.py, which the root conftest runs over the whole session."""
    from tests.status_census import missing_statuses, operation_of

    assert operation_of("/api/v1/characters/3/level-up", "POST") == ("api-level-up", "post")
    assert operation_of("/api/v1/campaigns/3/tables/scars/", "PUT") == (
        "api-table[scars]",
        "put",
    )
    assert operation_of("/api/v1/nothing/", "GET") is None
    observed = {
        ("api-level-up", "post"): {400: "a test", 418: "another test"},
        ("api-campaigns", "put"): {405: "no such operation"},
    }
    missing = missing_statuses(observed, schema)
    assert len(missing) == 1 and "418 is not in its responses (seen in another test)" in missing[0]
    assert all(
        status in operation(schema, "api-actions", "post")["responses"]
        for status in ("400", "401", "403", "404", "409", "411", "413", "415", "429", "503")
    )


# -- typed payloads ---------------------------------------------------------------------
@pytest.mark.django_db
def test_a_character_is_typed_by_its_ruleset_down_to_its_sheet(
    schema, make_campaign, player, client_for
) -> None:
    from core.openapi import pascal
    from rules.engine.registry import all_rulesets

    answer = operation(schema, "api-character", "get")["responses"]["200"]
    node = answer["content"]["application/json"]["schema"]
    character = schema["components"]["schemas"][node["$ref"].split("/")[-1]]
    assert character["discriminator"]["propertyName"] == "ruleset"
    for ruleset in all_rulesets():
        name = pascal(ruleset.key)
        mapped = character["discriminator"]["mapping"][ruleset.key]
        assert mapped.endswith(f"/{name}Character")
        typed = schema["components"]["schemas"][f"{name}Character"]
        assert typed["properties"]["sheet"] == {"$ref": f"#/components/schemas/{name}Sheet"}
        sheet = schema["components"]["schemas"][f"{name}Sheet"]
        assert set(sheet["properties"]) == set(ruleset.public_sheet_schema["properties"])
        assert "title" not in sheet  # a generated client names the class HitDiceSheet

    validator = jsonschema.Draft202012Validator({**node, "components": schema["components"]})
    sheets = {"hit_dice": {"level": 2, "hit_dice": 2, "hp": 10}, "warband": {"warband": "Red"}}
    for ruleset in all_rulesets():
        campaign = make_campaign(ruleset.key)
        made = client_for(player).post(
            f"/api/v1/campaigns/{campaign.pk}/characters/",
            {"name": "Typed", "sheet": sheets.get(ruleset.key, {})},
            format="json",
        )
        assert made.status_code == 201, made.content
        got = client_for(player).get(f"/api/v1/characters/{made.json()['id']}/")
        assert not [e.message for e in validator.iter_errors(got.json())], ruleset.key
        assert not [e.message for e in validator.iter_errors(made.json())], ruleset.key


def answer_validator(schema: dict[str, Any], key: str, method: str) -> jsonschema.Validator:
    answer = operation(schema, key, method)["responses"]
    status = "201" if "201" in answer else "200"
    node = answer[status]["content"]["application/json"]["schema"]
    return jsonschema.Draft202012Validator({**node, "components": schema["components"]})


@pytest.mark.django_db
def test_a_campaign_and_its_party_are_typed_by_its_ruleset(
    schema, make_campaign, referee, player, client_for
) -> None:
    """Campaign answers carry ``HitDiceOptions``..., party members ``HitDiceSheet``...,
    each told apart by ``ruleset``; real answers of every ruleset fit them."""
    from core.openapi import pascal
    from rules.engine.registry import all_rulesets

    components = schema["components"]["schemas"]
    for family, field, part in (
        ("CampaignOutput", "options", "Options"),
        ("PartyMember", "sheet", "Sheet"),
    ):
        assert components[family]["discriminator"]["propertyName"] == "ruleset"
        for ruleset in all_rulesets():
            name = pascal(ruleset.key)
            mapped = components[family]["discriminator"]["mapping"][ruleset.key]
            assert mapped == f"#/components/schemas/{name}{family}"
            typed = components[f"{name}{family}"]["properties"][field]
            assert f"#/components/schemas/{name}{part}" in json.dumps(typed)
    for ruleset in all_rulesets():
        options = components[f"{pascal(ruleset.key)}Options"]
        assert options["properties"] == ruleset.options_schema["properties"]
        assert set(options["required"]) == set(ruleset.options)

    sheets = {"warband": {"warband": "Red"}}
    for ruleset in all_rulesets():
        campaign = make_campaign(ruleset.key)
        client_for(player).post(
            f"/api/v1/campaigns/{campaign.pk}/characters/",
            {"name": "Typed", "sheet": sheets.get(ruleset.key, {})},
            format="json",
        )
        base = f"/api/v1/campaigns/{campaign.pk}/"
        answers = [
            ("api-campaigns", "get", client_for(referee).get("/api/v1/campaigns/")),
            ("api-campaign", "get", client_for(player).get(base)),
            (
                "api-campaign",
                "patch",
                client_for(referee).patch(base, {"name": "x"}, format="json"),
            ),
            ("api-campaign-characters", "get", client_for(referee).get(base + "characters/")),
            ("api-campaign-characters", "get", client_for(player).get(base + "characters/")),
        ]
        for key, method, response in answers:
            assert response.status_code == 200, (key, response.content)
            errors = answer_validator(schema, key, method).iter_errors(response.json())
            assert not [e.message for e in errors], (ruleset.key, key, method)


@pytest.mark.django_db
def test_a_resolution_is_typed_by_its_ruleset_down_to_its_outcome(
    schema, make_campaign, referee, player, client_for
) -> None:
    """``HitDiceResolution`` with a ``HitDiceOutcome`` (the engine's outcome schema) and a
    ``HitDiceSheet``..., told apart by ``ruleset``; the log of every ruleset fits."""
    from core.openapi import pascal
    from rules.engine.registry import all_rulesets

    components = schema["components"]["schemas"]
    assert components["Resolution"]["discriminator"]["propertyName"] == "ruleset"
    for ruleset in all_rulesets():
        name = pascal(ruleset.key)
        typed = components[f"{name}Resolution"]["properties"]
        assert f"/{name}Outcome" in json.dumps(typed["outcome"])
        assert f"/{name}Sheet" in json.dumps(typed["sheet"])
        outcome = components[f"{name}Outcome"]
        assert set(outcome["properties"]) == set(ruleset.outcome_schema["properties"])

    actions = {"warband": "injury_roll", "deckahedron": "take_harm"}
    for ruleset in all_rulesets():
        campaign = make_campaign(ruleset.key)
        made = client_for(player).post(
            f"/api/v1/campaigns/{campaign.pk}/characters/",
            {"name": "Typed", "sheet": {"warband": "Red"} if ruleset.key == "warband" else {}},
            format="json",
        )
        hero = made.json()["id"]
        action = actions.get(ruleset.key, "damage")
        params: dict[str, Any] = {"amount": 3} if action == "damage" else {}
        if ruleset.key == "condition_monitor":
            params = {"amount": 3, "kind": "normal"}
        acted = client_for(referee).post(
            f"/api/v1/characters/{hero}/actions/",
            {"action": action, "params": params},
            format="json",
        )
        log = client_for(referee).get(f"/api/v1/characters/{hero}/resolutions/")
        checks = [("api-actions", "post", acted), ("api-resolutions", "get", log)]
        for key, method, response in checks:
            assert response.status_code in (200, 201), (ruleset.key, key, response.content)
            errors = answer_validator(schema, key, method).iter_errors(response.json())
            assert not [e.message for e in errors], (ruleset.key, key)
        assert log.json()["results"][0]["ruleset"] == ruleset.key
