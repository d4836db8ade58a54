"""Every bound in the schema is the server's (issue 15), and every bound the server checks
is the schema's (issue 36): for a few parameters, what the schema refuses the server
refuses with a 400, and what the schema allows at the edge the server takes. Campaign
options, the effects filter, the live clock's ratio, table data, the log's filters and a
calendar's months, week days, names, days and years; and no list or text of a request
body goes without a bound in the schema.

A table's shape depends on the path's ``key``, which a body schema cannot see: the
schema offers any of the registered tables' shapes, so the refusals tested here are
data that fits none of them.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from django.urls import reverse
from drf_spectacular.generators import SchemaGenerator

from campaigns.models import Campaign
from config.openapi import api_paths
from rules.engine.calendar import MAX_MONTH_DAYS, MAX_MONTHS, MAX_NAME, MAX_WEEKDAYS, MAX_YEAR
from rules.engine.registry import get_ruleset

REF = "#/components/schemas/"


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    generated = SchemaGenerator().get_schema(request=None, public=True)
    loaded: dict[str, Any] = json.loads(json.dumps(generated, default=str))
    return loaded


def validator(schema: dict[str, Any], node: dict[str, Any]) -> jsonschema.Validator:
    return jsonschema.Draft202012Validator({**node, "components": schema["components"]})


def body(schema: dict[str, Any], url_name: str, method: str) -> jsonschema.Validator:
    operation = schema["paths"][api_paths()[url_name]][method]
    return validator(schema, operation["requestBody"]["content"]["application/json"]["schema"])


def query(schema: dict[str, Any], url_name: str, name: str) -> jsonschema.Validator:
    operation = schema["paths"][api_paths()[url_name]]["get"]
    parameter = next(p for p in operation["parameters"] if p["name"] == name)
    return validator(schema, parameter["schema"])


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("ruleset", "options", "taken"),
    [
        ("deckahedron", {"heal_minutes": -1}, False),
        ("deckahedron", {"heal_minutes": 43_201}, False),
        ("deckahedron", {"heal_minutes": 0}, True),
        ("deckahedron", {"heal_minutes": 43_200}, True),
        ("deckahedron", {"heal_minutes": 1_000_000}, False),
        ("deckahedron", {"heal_minutes": "10"}, False),
        ("deckahedron", {"rest_minutes": 5, "nap_minutes": 5}, False),
        ("condition_monitor", {"soak_die_size": 1}, False),
        ("condition_monitor", {"soak_die_size": 2}, True),
        ("condition_monitor", {"soak_die_size": 101}, False),
        ("old_school", {"drunk_hours": 0}, False),
        ("warband", {"rout_threshold_percent": 100}, True),
        ("warband", {"rout_threshold_percent": 101}, False),
        ("warband", {"phases": ["upkeep"]}, False),
    ],
)
def test_campaign_options_bounds(schema, client_for, referee, ruleset, options, taken) -> None:
    sent = {"name": "Bounds", "ruleset": ruleset, "options": options}
    assert body(schema, "api-campaigns", "post").is_valid(sent) is taken
    response = client_for(referee).post(reverse("api-campaigns"), sent, format="json")
    assert response.status_code == (201 if taken else 400), response.content
    assert Campaign.objects.filter(name="Bounds").exists() is taken


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("value", "taken"),
    [("0", False), ("-3", False), ("x", False), ("1", True), (str(2**63 - 1), True)],
)
def test_the_effects_character_filter(schema, campaign, client_for, referee, value, taken) -> None:
    as_number: Any = int(value) if value.lstrip("-").isdigit() else value
    assert query(schema, "api-effects", "character").is_valid(as_number) is taken
    url = reverse("api-effects", kwargs={"campaign_id": campaign.pk})
    response = client_for(referee).get(url, {"character": value})
    assert response.status_code == (200 if taken else 400), response.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("ratio", "taken"),
    [
        ("", False),
        ("-5", False),
        ("999999", False),
        ("10080.5", False),
        ("1e3", False),
        (" 5", False),
        ("2.5555", False),
        ("0", True),
        ("2.5", True),
        ("10080", True),
        ("10080.000", True),
        (2.5, True),
        (-1, False),
        (10081, False),
    ],
)
def test_the_live_clock_ratio(schema, campaign, client_for, referee, ratio, taken) -> None:
    assert body(schema, "api-clock-live", "put").is_valid({"ratio": ratio}) is taken
    url = reverse("api-clock-live", kwargs={"campaign_id": campaign.pk})
    response = client_for(referee).put(url, {"ratio": ratio}, format="json")
    assert response.status_code == (200 if taken else 400), response.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("ruleset", "key", "data", "taken"),
    [
        ("old_school", "diseases", {"plague": "a fever"}, False),
        ("old_school", "diseases", "a plague", False),
        ("old_school", "diseases", None, True),  # None: the ruleset's default table
        ("old_school", "critical_injuries", [{"min": 1}], False),
        ("old_school", "critical_injuries", None, True),
        ("warband", "scars", {"dice": "1d20"}, False),
        ("warband", "scars", {"dice": "1d20", "rows": []}, True),
    ],
)
def test_table_data_shapes(
    schema, make_campaign, client_for, referee, ruleset, key, data, taken
) -> None:
    if data is None:
        data = get_ruleset(ruleset).tables[key]
    assert body(schema, f"api-table[{key}]", "put").is_valid({"data": data}) is taken
    campaign = make_campaign(ruleset)
    url = reverse("api-table", kwargs={"campaign_id": campaign.pk, "key": key})
    response = client_for(referee).put(url, {"data": data}, format="json")
    assert response.status_code == (200 if taken else 400), response.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "value", "taken"),
    [
        ("from", -1, False),
        ("from", 0, True),
        ("to", 2**53 + 1, False),
        ("character", 0, False),
        ("who", "robot", False),
        ("who", "clock", True),
        ("q", "x" * 201, False),
        ("q", "x" * 200, True),
    ],
)
def test_the_log_filters(schema, campaign, client_for, referee, name, value, taken) -> None:
    assert query(schema, "api-campaign-log", name).is_valid(value) is taken
    url = reverse("api-campaign-log", kwargs={"campaign_id": campaign.pk})
    response = client_for(referee).get(url, {name: value})
    assert response.status_code == (200 if taken else 400), response.content


# -- every bound the server checks is the schema's (issue 36) -----------------------------
def unbounded(schema: dict[str, Any]) -> list[str]:
    """Every list and free text a request body may send without a bound in the schema
    (``maxItems``, ``maxLength``; a text bounded by its enum, const, format or pattern
    is bounded): the server bounds each (its own check, or the body's 1 MB), so the schema
    must say it."""
    components = schema["components"]["schemas"]
    found: list[str] = []

    def walk(node: Any, where: str, seen: frozenset[str]) -> None:
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            name = node["$ref"].removeprefix(REF)
            if name not in seen:
                walk(components[name], f"{where} ({name})", seen | {name})
            return
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "array" in kinds and "maxItems" not in node:
            found.append(f"{where}: a list without maxItems")
        told = {"maxLength", "enum", "const", "format", "pattern"}
        if "string" in kinds and not told & set(node):
            found.append(f"{where}: a text without maxLength")
        for name, value in node.get("properties", {}).items():
            walk(value, f"{where}.{name}", seen)
        for key in ("items", "additionalProperties"):
            walk(node.get(key), f"{where}[]", seen)
        for key in ("anyOf", "oneOf", "allOf"):
            for branch in node.get(key, []):
                walk(branch, where, seen)

    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                walk(content["application/json"]["schema"], f"{method.upper()} {path}", frozenset())
    return found


# What only the request body's size bounds (SAWBONES_MAX_BODY_BYTES, a setting, not a
# constant a schema could say): an imported entry's rolls and summary, as the export gave.
BODY_BOUNDED = (
    "(ImportedEntryRequest).rolls: a list without maxItems",
    "(ImportedEntryRequest).summary: a text without maxLength",
)


def test_every_list_and_text_of_a_request_is_bounded_in_the_schema(schema) -> None:
    found = [where for where in unbounded(schema) if not where.endswith(BODY_BOUNDED)]
    assert found == []


MONTH = {"name": "Bloom", "days": 30}


def months(count: int) -> list[dict[str, Any]]:
    """``count`` months, each with a name of its own (two of one name are refused)."""
    return [{"name": f"Month {n}", "days": 30} for n in range(1, count + 1)]


def weekdays(count: int) -> list[str]:
    return [f"Day {n}" for n in range(1, count + 1)]


def calendar(**changes: Any) -> dict[str, Any]:
    return {"months": [MONTH], "weekdays": ["Moonday"], "epoch": {"year": 1000}, **changes}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("sent", "taken"),
    [
        (calendar(months=months(MAX_MONTHS)), True),
        (calendar(months=months(MAX_MONTHS + 1)), False),
        (calendar(weekdays=weekdays(MAX_WEEKDAYS)), True),
        (calendar(weekdays=weekdays(MAX_WEEKDAYS + 1)), False),
        (calendar(weekdays=["x" * MAX_NAME]), True),
        (calendar(weekdays=["x" * (MAX_NAME + 1)]), False),
        (calendar(months=[{"name": "x" * (MAX_NAME + 1), "days": 30}]), False),
        (calendar(months=[{"name": "Bloom", "days": MAX_MONTH_DAYS}]), True),
        (calendar(months=[{"name": "Bloom", "days": MAX_MONTH_DAYS + 1}]), False),
        (calendar(months=[{"name": "Bloom", "days": 0}]), False),
        (calendar(epoch={"year": MAX_YEAR}), True),
        (calendar(epoch={"year": -MAX_YEAR - 1}), False),
        (calendar(months=months(MAX_MONTHS), epoch={"month": MAX_MONTHS}), True),
        (calendar(months=months(MAX_MONTHS), epoch={"month": MAX_MONTHS + 1}), False),
        (calendar(months=[{"name": "Long", "days": MAX_MONTH_DAYS}], epoch={"day": 1000}), True),
        (calendar(months=[{"name": "Long", "days": MAX_MONTH_DAYS}], epoch={"day": 1001}), False),
    ],
)
def test_the_calendars_bounds_are_the_servers(schema, campaign, client_for, referee, sent, taken):
    """The engine's bounds of a calendar (rules.engine.calendar), in the schema: at the
    edge both take it, one past both refuse it."""
    assert body(schema, "api-campaign-calendar", "put").is_valid(sent) is taken
    url = reverse("api-campaign-calendar", kwargs={"campaign_id": campaign.pk})
    response = client_for(referee).put(url, sent, format="json")
    assert response.status_code == (200 if taken else 400), response.content
