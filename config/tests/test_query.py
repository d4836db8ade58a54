"""An operation with query parameters takes only those (config/query.py, issue 27): a
random schemathesis run sent GET effects/ garbage keys and the server answered 200, as
every operation with filters did, ignoring what it did not know. Each view declares its
query (core.query), and the schema draws it from that declaration (issue 35)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from config import api_urls
from config.openapi import api_paths, url_key
from core.query import declared_query, query_keys

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def declared_query_parameters() -> dict[tuple[str, str], frozenset[str]]:
    """(endpoint key, method) -> the query keys its view declares, for each operation
    that declares some."""
    declared = {}
    for pattern in api_urls.urlpatterns:
        view = pattern.callback.view_class  # type: ignore[attr-defined]  # set by as_view()
        for method in METHODS:
            query = declared_query(view, method)
            if query is not None:
                key = url_key(str(pattern.name), pattern.default_args)
                declared[key, method] = query_keys(query)
    return declared


def test_the_declared_query_parameters_are_read_from_the_views() -> None:
    declared = declared_query_parameters()
    assert declared["api-effects", "GET"] == {"state", "character"}
    assert declared["api-resolutions", "GET"] == {"page", "page_size"}
    assert declared["api-campaign", "DELETE"] == {"confirm"}
    assert {"character", "action", "who", "q", "page"} <= declared["api-campaign-log", "GET"]
    assert ("api-campaigns", "GET") not in declared  # it reads no query string


def test_the_schema_says_each_operation_takes_the_query_its_view_declares() -> None:
    """The served schema's query parameters, operation by operation, are the keys the
    server accepts: neither can drift from the other."""
    schema: dict[str, Any] = json.loads(
        json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str)
    )
    declared = declared_query_parameters()
    keys = {path: key for key, path in api_paths().items()}
    compared = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            in_schema = {
                parameter["name"]
                for parameter in operation.get("parameters", [])
                if parameter["in"] == "query"
            }
            accepted = declared.get((keys[path], method.upper()), frozenset())
            assert in_schema == accepted, (path, method)
            compared += 1
    assert compared > len(declared) > 5


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    ["effects/", "resolutions/", "clock/log/", "characters/"],
)
def test_an_unknown_query_key_is_400_where_queries_are_read(
    client_for, campaign, referee, path
) -> None:
    url = f"/api/v1/campaigns/{campaign.pk}/{path}"
    answer = client_for(referee).get(url, {"charcter": "3"})
    if path == "characters/":  # the party takes no query parameter: the string is not read
        assert answer.status_code == 200
        return
    assert answer.status_code == 400, answer.content
    assert list(answer.json()) == ["charcter"]
    assert "not a query parameter" in answer.json()["charcter"][0]
    assert client_for(referee).get(url).status_code == 200


@pytest.mark.django_db
def test_the_caller_is_known_before_the_query_is_judged(client_for, campaign, outsider) -> None:
    url = f"/api/v1/campaigns/{campaign.pk}/effects/"
    assert client_for(None).get(url, {"x": "1"}).status_code == 401


def test_nothing_generates_the_schema_to_judge_a_query(
    client_for, campaign, referee, monkeypatch
) -> None:
    """The keys are the views' declarations: no process builds the schema (about a second)
    to learn them, neither at a gunicorn worker's start nor at its first request."""
    from config import gunicorn

    def refused(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the schema was generated")

    monkeypatch.setattr(SchemaGenerator, "get_schema", refused)
    url = f"/api/v1/campaigns/{campaign.pk}/effects/"
    assert client_for(referee).get(url, {"charcter": "3"}).status_code == 400
    assert client_for(referee).get(url, {"character": "3"}).status_code == 200
    assert not hasattr(gunicorn, "post_worker_init")
