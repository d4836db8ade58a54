"""A whole number written ``1.0`` is the whole number everywhere (issue 36, docs/api.md):
JSON Schema counts it an integer, so the server takes it where it takes an integer and
stores it as one. Before, a scars table with ``"min": 1.0`` was a 500 (``range(1.0, ...)``)
and so was the same request sent again with its Idempotency-Key; an owner's id ``2.0``, a
month of ``30.0`` days and an epoch's ``1000.0`` were refused; the old school critical
injuries table was stored with ``1.0``. And ``recap/?format=xml`` was a 404."""

from __future__ import annotations

import importlib
import json

import pytest
from django.apps import apps
from django.db import connection
from django.urls import reverse

from accounts.services import token_create
from campaigns.access import TokenScope
from campaigns.models import Campaign, Membership
from rules.log.models import CampaignTable
from rules.play.services import character_create


def stored(campaign: Campaign, key: str) -> str:
    """The table's data as the database holds it (JSON text: ``1`` or ``1.0``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT data FROM {CampaignTable._meta.db_table} WHERE campaign_id = %s AND key = %s",  # noqa: S608
            [campaign.pk, key],
        )
        (value,) = cursor.fetchone()
    return value if isinstance(value, str) else json.dumps(value)


@pytest.mark.django_db
def test_a_scars_table_with_whole_numbers_written_1_0(make_campaign, client_for, referee) -> None:
    campaign = make_campaign("warband")
    url = reverse("api-table", kwargs={"campaign_id": campaign.pk, "key": "scars"})
    body = {"data": {"dice": "1d20", "rows": [{"min": 1.0, "max": 20, "scar": "Scar"}]}}
    _, secret = token_create(user=referee, name="bot", scope=TokenScope.REFEREE)
    client = client_for(None)  # a token: the idempotency keys are a signed-in person's
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}", HTTP_IDEMPOTENCY_KEY="scars-1")
    first = client.put(url, body, format="json")
    assert first.status_code == 200, first.content
    again = client.put(url, body, format="json")
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"
    data = CampaignTable.objects.get(campaign=campaign, key="scars").data
    assert type(data["rows"][0]["min"]) is int
    assert '"min": 1,' in stored(campaign, "scars") or '"min":1,' in stored(campaign, "scars")


@pytest.mark.django_db
def test_the_critical_injuries_table_is_stored_with_whole_numbers(
    make_campaign, client_for, referee
) -> None:
    from rules.engine.registry import get_ruleset

    campaign = make_campaign("old_school")
    table = [
        {**row, "min": float(row["min"]), **({"max": float(row["max"])} if row["max"] else {})}
        for row in get_ruleset("old_school").tables["critical_injuries"]
    ]
    url = reverse("api-table", kwargs={"campaign_id": campaign.pk, "key": "critical_injuries"})
    response = client_for(referee).put(url, {"data": table}, format="json")
    assert response.status_code == 200, response.content
    assert "1.0" not in stored(campaign, "critical_injuries")
    assert all(type(row["min"]) is int for row in response.json()["data"])


@pytest.mark.django_db
def test_tables_stored_before_are_made_whole_by_the_migration(make_campaign) -> None:
    campaign = make_campaign("warband")
    CampaignTable.objects.create(
        campaign=campaign,
        key="scars",
        data={"dice": "1d20", "rows": [{"min": 1.0, "max": 20.0, "scar": "Scar"}]},
    )
    migration = importlib.import_module("rules.log.migrations.0008_resolution_imported_actor")
    migration.tables_in_whole_numbers(apps, None)
    row = CampaignTable.objects.get(campaign=campaign).data["rows"][0]
    assert (type(row["min"]), type(row["max"])) == (int, int)


@pytest.mark.django_db
def test_an_owner_id_written_2_0(campaign, client_for, referee, player, other_player) -> None:
    aldo = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player), name="Aldo"
    )
    url = reverse("api-character-owner", kwargs={"character_id": aldo.pk})
    response = client_for(referee).post(url, {"owner": float(other_player.pk)}, format="json")
    assert response.status_code == 200, response.content
    aldo.refresh_from_db()
    assert aldo.owner_id == other_player.pk


@pytest.mark.django_db
def test_a_calendar_written_with_1_0(campaign, client_for, referee) -> None:
    url = reverse("api-campaign-calendar", kwargs={"campaign_id": campaign.pk})
    body = {
        "months": [{"name": "Bloom", "days": 30.0}, {"name": "Ash", "days": 31}],
        "weekdays": ["Moonday", "Sunday"],
        "epoch": {"year": 1000.0, "month": 2.0, "day": 3.0},
    }
    response = client_for(referee).put(url, body, format="json")
    assert response.status_code == 200, response.content
    campaign.refresh_from_db()
    assert campaign.calendar["months"][0] == {"name": "Bloom", "days": 30}
    assert type(campaign.calendar["months"][0]["days"]) is int
    epoch = campaign.calendar["epoch"]
    assert [type(epoch[key]) for key in ("year", "month", "day")] == [int, int, int]


@pytest.mark.django_db
@pytest.mark.parametrize("number", ["1e400", "1.5", "-0.0", "12345678901234567890.0"])
def test_other_numbers_are_not_made_whole_or_are_exactly(
    number, campaign, client_for, referee
) -> None:
    """Only a whole number becomes an int, exactly (never through a float), and none too
    large to be one of ours: those are refused as the schema refuses them, never a 500."""
    url = reverse("api-clock-live", kwargs={"campaign_id": campaign.pk})
    response = client_for(referee).generic(
        "PUT", url, f'{{"ratio": {number}}}', content_type="application/json"
    )
    assert response.status_code in (200, 400), response.content
    assert (response.status_code == 200) is (number in ("1.5", "-0.0"))


@pytest.mark.django_db
def test_an_unknown_format_of_the_recap_is_a_400_naming_it(campaign, client_for, referee) -> None:
    url = reverse("api-campaign-recap", kwargs={"campaign_id": campaign.pk})
    response = client_for(referee).get(url, {"format": "xml"})
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    assert "format" in response.json() and "md" in response.json()["format"][0]
    assert client_for(referee).get(url, {"format": "md"}).status_code == 200
    assert client_for(referee).get(url, {"format": "json"}).status_code == 200
