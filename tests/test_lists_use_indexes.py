"""Every list a page or the API reads from the log, the scheduled effects or the webhook
deliveries is index-backed (issue 39): with enough rows for the planner to prefer an
index, no query a list request runs scans one of those tables whole (``EXPLAIN``), so
its cost follows the campaign's rows, not the whole database's (bench/scale.py measures
it). PostgreSQL only: SQLite's planner says nothing of the deployment's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create
from characters.models import Character
from rules.clock.due import due_effects
from rules.log.models import Resolution, ScheduledEffect
from rules.play.services import character_create
from webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the plans are PostgreSQL's (CI sets DATABASE_URL); SQLite's say nothing of "
        "the deployment's",
    ),
    pytest.mark.django_db,
]

WATCHED = {
    Resolution._meta.db_table,
    ScheduledEffect._meta.db_table,
    WebhookDelivery._meta.db_table,
}
OTHER_CAMPAIGNS = 40  # the rows of the campaign asked about are a 1/40th of each table
ENTRIES = 300  # per character: the log, the effects, the deliveries of each campaign


def _seed_rows(campaign: Campaign, endpoint: WebhookEndpoint) -> None:
    """Many log entries, effects (pending and cancelled) and deliveries (done and pending)
    for each character of the campaign, copied from its first entry in one statement each."""
    log, effects = Resolution._meta.db_table, ScheduledEffect._meta.db_table
    events, deliveries = WebhookEvent._meta.db_table, WebhookDelivery._meta.db_table
    columns = [
        f.column
        for f in Resolution._meta.concrete_fields
        if f.column not in ("id", "version", "clock", "undoes_id")
    ]
    kept = ", ".join(f"r.{c}" for c in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {log} ({', '.join(columns)}, version, clock) "  # noqa: S608
            f"SELECT {kept}, r.version + g, g * 10 FROM {log} r, generate_series(1, %s) g "
            f"WHERE r.campaign_id = %s AND r.kind = 'create'",
            [ENTRIES, campaign.pk],
        )
        cursor.execute(
            f"UPDATE {Character._meta.db_table} c SET version = "  # noqa: S608
            f"(SELECT MAX(version) FROM {log} r WHERE r.character_id = c.id) "
            f"WHERE c.campaign_id = %s",
            [campaign.pk],
        )
        cursor.execute(
            f"INSERT INTO {effects} (campaign_id, character_id, kind, key, due_at, payload, "  # noqa: S608
            f"hidden, state, created_at) SELECT c.campaign_id, c.id, 'rest', '', g * 60, "
            f"'{{}}'::jsonb, g %% 7 = 0, CASE WHEN g %% 3 = 0 THEN 'cancelled' ELSE 'pending' "
            f"END, now() FROM {Character._meta.db_table} c, generate_series(1, %s) g "
            f"WHERE c.campaign_id = %s",
            [ENTRIES, campaign.pk],
        )
        cursor.execute(
            f"INSERT INTO {events} (campaign_id, uuid, type, body, created_at) "  # noqa: S608
            f"SELECT %s, gen_random_uuid(), 'resolution.created', '{{}}', now() "
            f"FROM generate_series(1, %s)",
            [campaign.pk, ENTRIES],
        )
        cursor.execute(
            f"INSERT INTO {deliveries} (endpoint_id, event_id, state, attempts, "  # noqa: S608
            f"next_attempt_at, last_error, delivered_at, created_at) SELECT %s, e.id, "
            f"CASE WHEN e.id %% 10 = 0 THEN 'pending' ELSE 'delivered' END, 1, now(), '', "
            f"now(), now() FROM {events} e WHERE e.campaign_id = %s",
            [endpoint.pk, campaign.pk],
        )


@pytest.fixture
def big(make_campaign: Any, referee: Any, player: Any) -> dict[str, Any]:
    """The campaign asked about (two characters, a webhook, a live clock), among
    :data:`OTHER_CAMPAIGNS` others as full as it; the tables analyzed."""
    campaigns = [make_campaign("hit_dice")]
    campaigns += [
        campaign_create(user=referee, name=f"Other {i}", ruleset="hit_dice")
        for i in range(OTHER_CAMPAIGNS)
    ]
    ours = campaigns[0]
    for index, campaign in enumerate(campaigns):
        owner = player if index == 0 else referee
        membership = Membership.objects.get(campaign=campaign, user=owner)
        character_create(membership=membership, name="Aldo", sheet={"level": 2, "hp": 30})
        if index == 0:
            ref = Membership.objects.get(campaign=campaign, user=referee)
            character_create(membership=ref, name="Bo", sheet={"level": 2, "hp": 30})
        endpoint = WebhookEndpoint.objects.create(campaign=campaign, url="https://example.org/h")
        _seed_rows(campaign, endpoint)
    with connection.cursor() as cursor:
        for table in (*WATCHED, Character._meta.db_table, WebhookEvent._meta.db_table):
            cursor.execute(f"ANALYZE {table}")
    aldo = Character.objects.get(campaign=ours, name="Aldo")
    return {
        "campaign": ours,
        "aldo": aldo,
        "webhook": WebhookEndpoint.objects.get(campaign=ours),
    }


def _plan_nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _plan_nodes(child)


def _sequential_scans(sql: str) -> list[str]:
    """The watched tables the statement reads whole, by its plan."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}")
        (plan,) = cursor.fetchone()
    if isinstance(plan, str):
        plan = json.loads(plan)
    return [
        node["Relation Name"]
        for node in _plan_nodes(plan[0]["Plan"])
        if node["Node Type"] == "Seq Scan" and node.get("Relation Name") in WATCHED
    ]


def _requests(big: dict[str, Any]) -> list[tuple[str, str]]:
    """(who, URL) of every list of the log, the effects and the deliveries, API and page."""
    c, aldo, hook = big["campaign"].pk, big["aldo"].pk, big["webhook"].pk
    api = "/api/v1"
    lists = [
        f"{api}/characters/{aldo}/resolutions/",
        f"{api}/characters/{aldo}/resolutions/?page=2",
        f"{api}/characters/{aldo}/",
        f"{api}/campaigns/{c}/",
        f"{api}/campaigns/{c}/resolutions/",
        f"{api}/campaigns/{c}/resolutions/?page=3",
        f"{api}/campaigns/{c}/resolutions/?character={aldo}",
        f"{api}/campaigns/{c}/resolutions/?action=create",
        f"{api}/campaigns/{c}/resolutions/?from=100&to=900",
        f"{api}/campaigns/{c}/resolutions/?who=clock",
        f"{api}/campaigns/{c}/characters/",
        f"{api}/campaigns/{c}/effects/",
        f"{api}/campaigns/{c}/effects/?state=pending",
        f"{api}/campaigns/{c}/effects/?character={aldo}",
        f"{api}/campaigns/{c}/clock/log/",
        f"{api}/campaigns/{c}/recap/",
        f"{api}/campaigns/{c}/dice/export/",
        reverse("campaign", args=[c]),
        reverse("campaign-log", args=[c]),
        reverse("campaign-log", args=[c]) + "?page=2",
        reverse("campaign-log", args=[c]) + f"?character={aldo}",
        reverse("character", args=[aldo]),
        reverse("campaign-recap", args=[c]),
        reverse("campaign-dice", args=[c]),
    ]
    referee_only = [
        reverse("party", args=[c]),
        f"{api}/campaigns/{c}/clock/jobs/",
        reverse("campaign-manage", args=[c]),
        f"{api}/campaigns/{c}/webhooks/{hook}/deliveries/",
        f"{api}/campaigns/{c}/webhooks/{hook}/deliveries/?page=2",
    ]
    return [
        *((who, url) for url in lists for who in ("referee", "player")),
        *(("referee", url) for url in referee_only),
    ]


def test_every_list_of_the_log_effects_and_deliveries_is_index_backed(
    big, referee, player, client_for, web
):
    users = {"referee": referee, "player": player}
    scans: list[str] = []
    checked = 0
    for who, url in _requests(big):
        client = client_for(users[who]) if url.startswith("/api/") else web(users[who])
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        assert response.status_code == 200, (who, url, response.status_code)
        for query in captured:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            if not any(f'"{table}"' in sql for table in WATCHED):
                continue
            checked += 1
            scans += [f"{who} {url}: {t}\n    {sql}" for t in _sequential_scans(sql)]
    assert checked > 20  # the lists did read the watched tables
    # and the check sees a scan where there is one (a filter no index serves)
    log = Resolution._meta.db_table
    assert _sequential_scans(f"SELECT id FROM \"{log}\" WHERE summary = 'x'") == [log]  # noqa: S608
    assert not scans, "sequential scans:\n" + "\n".join(scans)


def test_a_clock_batch_reads_its_due_effects_in_the_index_order(big):
    """A clock job loads its next batch as the effects due by its target in the order
    they apply (due_at, then id), at most a batch's worth: the index gives that order, so
    the query stops at its limit. Without the id in the index it read and sorted every
    effect due by the target, once per batch of a catch-up."""
    due = due_effects(big["campaign"].pk, 10**9).values_list("id")[:50]
    sql, params = due.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        (plan,) = cursor.fetchone()
    if isinstance(plan, str):
        plan = json.loads(plan)
    nodes = list(_plan_nodes(plan[0]["Plan"]))
    assert [n["Node Type"] for n in nodes if "Sort" in n["Node Type"]] == []
    assert [n.get("Index Name") for n in nodes if n.get("Index Name")] == ["effect_due_order"]
