"""The OpenAPI schema (/api/schema/) describes the API as it is (API.md).

* it is a valid OpenAPI 3.1 document, built by drf-spectacular from the views alone
  (no post-processing but its own enum naming);
* every endpoint of config/api_urls.py is in it with exactly the methods its view
  answers, its path parameters typed;
* the actions body lists every action of every registered ruleset with that action's
  params schema (rules/play/api_schema.py), and means what the server does: bodies the server
  takes validate, bodies it refuses do not;
* the answers the server really gives (rulesets, campaigns, characters, resolutions...)
  validate against the documented response schemas;
* the Swagger UI at /api/docs/ works offline (sidecar assets).
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from django.conf import settings as django_settings
from django.contrib.staticfiles import finders
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from campaigns.models import Membership
from config import api_urls
from config.openapi import API_PREFIX, api_paths, url_key
from core.openapi import pascal
from rules.engine.registry import all_rulesets, get_ruleset, ruleset_keys
from rules.play.services import character_create

METHODS = {"get", "post", "put", "patch", "delete"}
REF = "#/components/schemas/"


def generate() -> dict[str, Any]:
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    # what the view serves: plain JSON types
    return json.loads(json.dumps(schema, default=str))


@pytest.fixture(scope="module")
def schema31() -> dict[str, Any]:
    return generate()


@pytest.fixture(scope="module")
def schema30(schema31: dict[str, Any]) -> dict[str, Any]:
    return schema31  # the one schema (3.1); the name kept for the checks written on it


def component(schema: dict[str, Any], ref_or_node: dict[str, Any]) -> dict[str, Any]:
    ref = ref_or_node.get("$ref")
    if ref is None:
        return ref_or_node
    node: dict[str, Any] = schema["components"]["schemas"][ref.removeprefix(REF)]
    return node


def validator_for(schema: dict[str, Any], node: dict[str, Any]) -> jsonschema.Validator:
    """A JSON Schema validator for a node of a 3.1 document, its refs resolvable."""
    root = {**node, "components": schema["components"]}
    return jsonschema.Draft202012Validator(root)


def body_schema(schema: dict[str, Any], url_name: str, method: str) -> dict[str, Any]:
    operation = schema["paths"][api_paths()[url_name]][method]
    node: dict[str, Any] = operation["requestBody"]["content"]["application/json"]["schema"]
    return node


def response_schema(
    schema: dict[str, Any], url_name: str, method: str, status: int
) -> dict[str, Any]:
    operation = schema["paths"][api_paths()[url_name]][method]
    node: dict[str, Any] = operation["responses"][str(status)]["content"]["application/json"][
        "schema"
    ]
    return node


# -- a valid document ------------------------------------------------------------------
@pytest.mark.once  # the schema, generated: no database
@pytest.mark.slow
def test_the_schema_is_a_valid_openapi_31_document(schema31) -> None:
    assert schema31["openapi"] == "3.1.0"
    validate_schema(schema31)
    # drf-spectacular's own hooks only: nothing rewrites the schema after generation
    hooks = django_settings.SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]
    assert hooks == ["drf_spectacular.hooks.postprocess_schema_enums"]


@pytest.mark.once  # the schema, generated: no database
def test_the_api_takes_json_only(schema31) -> None:
    for path, item in schema31["paths"].items():
        for method, operation in item.items():
            if "requestBody" in operation:
                assert set(operation["requestBody"]["content"]) == {"application/json"}, (
                    path,
                    method,
                )
                assert "415" in operation["responses"], (path, method)


@pytest.mark.slow
@pytest.mark.django_db
def test_the_schema_is_served(client) -> None:
    response = client.get(reverse("api-schema"), {"format": "json"})
    assert response.status_code == 200
    served = json.loads(response.content)
    assert served["openapi"] == "3.1.0"
    validate_schema(served)
    assert set(served["paths"]) == set(generate()["paths"])
    assert client.get(reverse("api-schema")).status_code == 200  # YAML by default


@pytest.mark.django_db
def test_the_docs_page_works_offline(client, settings) -> None:
    response = client.get(reverse("api-docs"))
    assert response.status_code == 200
    html = response.content.decode()
    # Swagger UI's start-up script is served by the view itself (no inline script: CSP),
    # and it loads our schema.
    start = client.get(reverse("api-docs"), {"script": ""})
    assert start.status_code == 200
    assert reverse("api-schema") in start.content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    scripts = [a for a in assets if a.endswith((".js", ".css"))]
    assert scripts, html
    for asset in scripts:
        assert asset.startswith(settings.STATIC_URL) or asset.startswith("/" + settings.STATIC_URL)
        path = asset.split(settings.STATIC_URL, 1)[1]
        assert finders.find(path), f"{asset} is not a local static file"
    assert "cdn." not in html and "unpkg" not in html


# -- every endpoint, with the right methods ----------------------------------------------
def view_methods(key: str) -> set[str]:
    pattern = next(p for p in api_urls.urlpatterns if url_key(str(p.name), p.default_args) == key)
    view = pattern.callback.view_class  # type: ignore[attr-defined]  # set by as_view()
    return {m for m in METHODS if hasattr(view, m)}


@pytest.mark.once  # the schema, generated: no database
def test_every_endpoint_is_documented_with_its_methods(schema30) -> None:
    documented = {
        path: {m for m in item if m in METHODS}
        for path, item in schema30["paths"].items()
        if path.startswith(API_PREFIX)
    }
    expected = {path: view_methods(name) for name, path in api_paths().items()}
    assert documented == expected


@pytest.mark.once  # the schema, generated: no database
def test_path_parameters_are_declared_and_typed(schema30) -> None:
    for pattern in api_urls.urlpatterns:
        path = api_paths()[url_key(str(pattern.name), pattern.default_args)]
        converters = dict(
            (name, kind) for kind, name in re.findall(r"<(?:(\w+):)?(\w+)>", str(pattern.pattern))
        )
        for method, operation in schema30["paths"][path].items():
            declared = {
                p["name"]: p["schema"]["type"]
                for p in operation.get("parameters", [])
                if p["in"] == "path"
            }
            expected = {
                name: "integer" if kind == "int" else "string" for name, kind in converters.items()
            }
            assert declared == expected, (path, method)


@pytest.mark.once  # the schema, generated: no database
def test_operations_document_their_error_answers(schema30) -> None:
    paths = api_paths()
    for name, path in paths.items():
        for method, operation in schema30["paths"][path].items():
            statuses = set(operation["responses"])
            public = name in {"api-register", "api-token"}
            assert ("403" in statuses) is not public, (name, method)
            assert ("401" in statuses) is not public, (name, method)
            assert "429" in statuses, (name, method)
            if "requestBody" in operation:
                assert {"400", "413"} <= statuses, (name, method)
            if "{" in path:
                assert "404" in statuses, (name, method)
            for status in statuses - {"200", "201", "202"}:
                error = operation["responses"][status]
                assert error["description"], (name, method, status)
    actions = schema30["paths"][paths["api-actions"]]["post"]["responses"]
    assert {"201", "400", "403", "404", "409"} <= set(actions)
    assert "409" in schema30["paths"][paths["api-undo"]]["post"]["responses"]
    assert "409" in schema30["paths"][paths["api-campaign"]]["patch"]["responses"]
    assert "409" in schema30["paths"][paths["api-choices"]]["post"]["responses"]


@pytest.mark.once  # the schema, generated: no database
def test_the_log_is_documented_as_paginated(schema30) -> None:
    page = component(schema30, response_schema(schema30, "api-resolutions", "get", 200))
    assert set(page["properties"]) == {"count", "next", "previous", "results"}
    assert page["properties"]["results"]["items"] == {"$ref": REF + "Resolution"}


# -- the actions body --------------------------------------------------------------------
def action_entries(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Action key -> its documented body object."""
    body = component(schema, body_schema(schema, "api-actions", "post"))
    entries = {}
    for option in body["oneOf"]:
        entry = component(schema, option)
        action = entry["properties"]["action"]
        key = action["const"] if "const" in action else action["enum"][0]
        assert key not in entries, f"{key} twice in the oneOf"
        entries[key] = entry
    assert body["discriminator"]["propertyName"] == "action"
    assert set(body["discriminator"]["mapping"]) == set(entries)
    return entries


def documented_params(entry: dict[str, Any]) -> list[dict[str, Any]]:
    params = entry["properties"]["params"]
    return list(params["anyOf"]) if "anyOf" in params else [params]


@pytest.mark.once  # the schema, generated: no database
def test_the_actions_body_lists_every_action_of_every_ruleset(schema31) -> None:
    schema = schema31
    entries = action_entries(schema)
    expected_keys = {spec.key for ruleset in all_rulesets() for spec in ruleset.actions}
    assert set(entries) == expected_keys
    for ruleset in all_rulesets():
        for spec in ruleset.actions:
            entry = entries[spec.key]
            variants = {v["title"]: v for v in documented_params(entry)}
            documented = dict(variants[f"{pascal(ruleset.key)}{pascal(spec.key)}Params"])
            assert documented["description"].startswith(f"{ruleset.name}: {spec.label}.")
            documented.pop("title")
            documented.pop("description")
            assert documented == {
                k: v for k, v in spec.params.items() if k not in {"title", "description"}
            }
            assert f"{ruleset.name} ({ruleset.key}): {spec.label}" in entry["description"]
            assert entry["properties"]["expected_version"]["type"] == "integer"
            assert entry["properties"]["expected_version"]["minimum"] == 1
            assert "action" in entry["required"]


@pytest.mark.once  # the schema, generated: no database
def test_the_actions_body_means_what_the_server_does(schema31) -> None:
    validator = validator_for(schema31, body_schema(schema31, "api-actions", "post"))
    accepted: list[Any] = [
        {"action": "damage", "params": {"amount": 3}},
        {"action": "damage", "params": {"amount": 3, "give_up": True}, "expected_version": 4},
        {"action": "long_rest"},
        {"action": "long_rest", "params": {}},
        {"action": "short_rest", "params": {"reroll": False}},
    ]
    refused: list[Any] = [
        {"action": "fly"},
        {"params": {"amount": 3}},
        {"action": "damage"},
        {"action": "damage", "params": {"amount": "ten"}},
        {"action": "damage", "params": {"amount": -5}},
        {"action": "damage", "params": {"amount": 10**9}},
        {"action": "damage", "params": {"amount": 1, "critical": True}},
        {"action": "damage", "params": [1]},
        {"action": "damage", "params": {"amount": 1}, "expected_version": 0},
        {"action": "damage", "params": {"amount": 1}, "expected_version": "1"},
        ["damage"],
    ]
    for body in accepted:
        assert validator.is_valid(body), body
    for body in refused:
        assert not validator.is_valid(body), body
    # an action without required params may leave them out
    for ruleset in all_rulesets():
        for spec in ruleset.actions:
            if not spec.params.get("required") and not spec.params.get("minProperties"):
                assert validator.is_valid({"action": spec.key}), spec.key


@pytest.mark.once  # the schema, generated: no database
def test_a_key_shared_by_rulesets_offers_each_rulesets_params(schema31) -> None:
    entries = action_entries(schema31)
    shared = {
        key: [r.key for r in all_rulesets() if key in {s.key for s in r.actions}] for key in entries
    }
    for key, owners in shared.items():
        params = documented_params(entries[key])
        assert len(params) == len(owners)
        for owner, variant in zip(owners, params, strict=True):
            assert f"({owner};" in variant["description"]


# -- the rulesets and campaign bodies ------------------------------------------------------
@pytest.mark.once  # the schema, generated: no database
def test_the_rulesets_answer_is_one_of_the_registered_rulesets(schema31) -> None:
    items = component(schema31, response_schema(schema31, "api-rulesets", "get", 200)["items"])
    assert set(items["discriminator"]["mapping"]) == set(ruleset_keys())
    for ruleset in all_rulesets():
        documented = component(schema31, {"$ref": items["discriminator"]["mapping"][ruleset.key]})
        properties = documented["properties"]
        assert properties["key"]["const"] == ruleset.key
        ref = properties["options"]["allOf"][0]
        assert ref["$ref"] == f"{REF}{pascal(ruleset.key)}Options"  # the campaigns' own
        options = component(schema31, ref)
        assert options["properties"] == ruleset.options_schema["properties"]
        assert set(options["required"]) == set(ruleset.options)


@pytest.mark.once  # the schema, generated: no database
def test_the_campaign_body_is_per_ruleset_with_its_options(schema31) -> None:
    validator = validator_for(schema31, body_schema(schema31, "api-campaigns", "post"))
    assert validator.is_valid({"name": "A", "ruleset": "hit_dice"})
    assert validator.is_valid(
        {"name": "A", "ruleset": "hit_dice", "options": {"bypass_hp_per_level": 5}}
    )
    assert not validator.is_valid({"name": "A", "ruleset": "no_such_rules"})
    assert not validator.is_valid({"name": "A", "ruleset": "hit_dice", "options": {"x": 1}})
    assert not validator.is_valid(
        {"name": "A", "ruleset": "hit_dice", "options": {"bypass_hp_per_level": "5"}}
    )
    for ruleset in all_rulesets():
        assert validator.is_valid(
            {"name": "A", "ruleset": ruleset.key, "options": dict(ruleset.options)}
        )


# -- real answers match the documented ones ----------------------------------------------
@pytest.mark.django_db
def test_real_answers_validate_against_the_schema(
    schema31, campaign, referee, player, client_for, scripted_dice
) -> None:
    def check(url_name: str, method: str, status: int, response: Any) -> None:
        assert response.status_code == status, response.content
        node = response_schema(schema31, url_name, method, status)
        errors = list(validator_for(schema31, node).iter_errors(response.json()))
        assert not errors, (url_name, method, [e.message for e in errors])

    anonymous = APIClient()
    check(
        "api-register",
        "post",
        201,
        anonymous.post(
            reverse("api-register"),
            {"username": "newcomer", "password": "a long pass phrase 42"},
            format="json",
        ),
    )
    check(
        "api-token",
        "post",
        200,
        anonymous.post(
            reverse("api-token"), {"username": "player", "password": "pw-player"}, format="json"
        ),
    )
    ref, me = client_for(referee), client_for(player)
    check("api-rulesets", "get", 200, me.get(reverse("api-rulesets")))
    check("api-campaigns", "get", 200, me.get(reverse("api-campaigns")))
    check(
        "api-campaigns",
        "post",
        201,
        me.post(reverse("api-campaigns"), {"name": "B", "ruleset": "old_school"}, format="json"),
    )
    campaign_kw = {"campaign_id": campaign.pk}
    check("api-campaign", "get", 200, me.get(reverse("api-campaign", kwargs=campaign_kw)))
    check(
        "api-campaign",
        "patch",
        200,
        ref.patch(
            reverse("api-campaign", kwargs=campaign_kw),
            {"ruleset": "hit_dice", "name": "C"},
            format="json",
        ),
    )
    invite = ref.post(reverse("api-invites", kwargs=campaign_kw))
    check("api-invites", "post", 201, invite)
    check(
        "api-campaign-join",
        "post",
        200,
        me.post(reverse("api-campaign-join"), {"code": invite.json()["code"]}, format="json"),
    )
    created = me.post(
        reverse("api-campaign-characters", kwargs=campaign_kw),
        {"name": "Aldo", "sheet": {"level": 2, "hit_dice": 2, "hp": 10}},
        format="json",
    )
    check("api-campaign-characters", "post", 201, created)
    character_create(
        membership=Membership.objects.get(campaign=campaign, user=referee), name="Npc", sheet=None
    )
    check(
        "api-campaign-characters",
        "get",
        200,
        me.get(reverse("api-campaign-characters", kwargs=campaign_kw)),
    )
    aldo = {"character_id": created.json()["id"]}
    scripted_dice([1, 20])  # into a choice (rulings HD-4, G-3)
    acted = me.post(
        reverse("api-actions", kwargs=aldo),
        {"action": "damage", "params": {"amount": 12}},
        format="json",
    )
    check("api-actions", "post", 201, acted)
    check("api-character", "get", 200, me.get(reverse("api-character", kwargs=aldo)))
    choice = acted.json()["pending_choice"]
    check(
        "api-choices",
        "post",
        201,
        me.post(
            reverse("api-choices", kwargs=aldo),
            {"choice_id": choice["id"], "option": "major_wound"},
            format="json",
        ),
    )
    check("api-undo", "post", 201, ref.post(reverse("api-undo", kwargs=aldo)))
    check("api-choice-cancel", "post", 201, ref.post(reverse("api-choice-cancel", kwargs=aldo)))
    check("api-resolutions", "get", 200, me.get(reverse("api-resolutions", kwargs=aldo)))
    # error answers have their documented shapes too
    check(
        "api-actions",
        "post",
        400,
        me.post(reverse("api-actions", kwargs=aldo), {"action": "fly"}, format="json"),
    )
    check(
        "api-actions",
        "post",
        409,
        me.post(
            reverse("api-actions", kwargs=aldo),
            {"action": "long_rest", "expected_version": 1},
            format="json",
        ),
    )
    check("api-campaigns", "get", 401, APIClient().get(reverse("api-campaigns")))
    check(
        "api-character",
        "get",
        404,
        me.get(reverse("api-character", kwargs={"character_id": 10**6})),
    )


@pytest.mark.django_db
def test_real_answers_of_tables_reveal_and_clock_validate(
    schema31, make_campaign, referee, player, client_for
) -> None:
    def check(url_name: str, method: str, status: int, response: Any) -> None:
        assert response.status_code == status, response.content
        node = response_schema(schema31, url_name, method, status)
        errors = list(validator_for(schema31, node).iter_errors(response.json()))
        assert not errors, (url_name, method, [e.message for e in errors])

    campaign = make_campaign("old_school")
    ref, me = client_for(referee), client_for(player)
    campaign_kw = {"campaign_id": campaign.pk}
    tables = ref.get(reverse("api-tables", kwargs=campaign_kw))
    check("api-tables", "get", 200, tables)
    key = tables.json()[0]["key"]
    table_kw = {**campaign_kw, "key": key}
    check(f"api-table[{key}]", "get", 200, ref.get(reverse("api-table", kwargs=table_kw)))
    data = tables.json()[0]["data"]
    check(
        f"api-table[{key}]",
        "put",
        200,
        ref.put(reverse("api-table", kwargs=table_kw), {"data": data}, format="json"),
    )
    check(f"api-table[{key}]", "delete", 200, ref.delete(reverse("api-table", kwargs=table_kw)))

    hero = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player), name="Hero", sheet=None
    )
    hero_kw = {"character_id": hero.pk}
    disease = next(iter(get_ruleset("old_school").tables["diseases"]))
    exposed = ref.post(
        reverse("api-actions", kwargs=hero_kw),
        {"action": "expose_disease", "params": {"disease": disease}},
        format="json",
    )
    check("api-actions", "post", 201, exposed)
    check(
        "api-reveal",
        "post",
        200,
        ref.post(reverse("api-reveal", kwargs={**hero_kw, "resolution_id": exposed.json()["id"]})),
    )

    advanced = ref.post(
        reverse("api-clock-advance", kwargs=campaign_kw), {"minutes": 90}, format="json"
    )
    check("api-clock-advance", "post", 202, advanced)
    job_kw = {**campaign_kw, "job_id": advanced.json()["job"]}
    check("api-clock-jobs", "get", 200, ref.get(reverse("api-clock-jobs", kwargs=campaign_kw)))
    check("api-clock-job", "get", 200, ref.get(reverse("api-clock-job", kwargs=job_kw)))
    check("api-clock-live", "get", 200, me.get(reverse("api-clock-live", kwargs=campaign_kw)))
    check(
        "api-clock-live",
        "put",
        200,
        ref.put(reverse("api-clock-live", kwargs=campaign_kw), {"ratio": "2.5"}, format="json"),
    )
    for client in (ref, me):
        check("api-effects", "get", 200, client.get(reverse("api-effects", kwargs=campaign_kw)))
