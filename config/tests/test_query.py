"""An operation with query parameters takes only those (config/query.py, issue 27): a
random schemathesis run sent GET effects/ garbage keys and the server answered 200, as
every operation with filters did, ignoring what it did not know."""

from __future__ import annotations

import pytest

from config.query import declared_query_parameters


def test_the_declared_query_parameters_are_read_from_the_schema() -> None:
    declared = declared_query_parameters()
    assert declared["api-effects", "GET"] == {"state", "character"}
    assert declared["api-resolutions", "GET"] == {"page", "page_size"}
    assert declared["api-campaign", "DELETE"] == {"confirm"}
    assert {"character", "action", "who", "q", "page"} <= declared["api-campaign-log", "GET"]
    assert ("api-campaigns", "GET") not in declared  # it reads no query string


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


def test_gunicorn_workers_read_the_declared_parameters_as_they_start():
    """The schema is read once per process (about a second): a gunicorn worker does it as
    it starts (config/gunicorn.py), not in its first request with a query string."""
    from config import gunicorn
    from config.query import declared_query_parameters

    declared_query_parameters.cache_clear()
    gunicorn.post_worker_init(worker=None)
    assert declared_query_parameters.cache_info().currsize == 1
    assert declared_query_parameters()  # operations with query parameters, read
