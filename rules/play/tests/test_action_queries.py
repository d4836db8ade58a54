"""What one action costs in queries (issue 16, P2; bench/actions.py measures the time):
no row fetched twice under the lock, the campaign's tables only read by an action that
uses them, the locks kept (rules/play/tests/test_concurrency.py holds them)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.clock import services as clock_services
from rules.clock.models import ClockJob
from rules.clock.tests.clock_helpers import assert_whole, wounded
from rules.log.models import Resolution, ScheduledEffect
from rules.play.services import character_create
from webhooks.models import WebhookEvent
from webhooks.services import webhook_create

pytestmark = pytest.mark.django_db


def test_one_action_costs_three_statements_on_postgresql(web, campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    client = web(player)
    url = f"/api/v1/characters/{aldo.pk}/actions/"
    with CaptureQueriesContext(connection) as captured:
        response = client.post(url, {"action": "long_rest"}, content_type="application/json")
    assert response.status_code == 201, response.content
    sql = [q["sql"] for q in captured if "SAVEPOINT" not in q["sql"]]
    # the user (the session from the cache, core/sessions.py; 4 with it from the
    # database); the campaign and the character locked in one statement,
    # with the user's membership (the access check is made on the locked rows) and
    # whether the campaign has webhooks; the sheet, the dice counter, the log row and
    # the clock moved by the night's 8 hours, nothing being due in them (docs/clock.md,
    # no clock job), in one statement on PostgreSQL (four elsewhere: the sheet, the
    # campaign, the log row, the clock read back). It was 13: the character's campaign
    # id looked up again, the campaign locked twice, its webhooks asked for apart; then 10: the
    # character and the campaign read once for the access check and again under the
    # lock, the membership read apart, the two rows locked apart, four writes apart.
    assert len(sql) == (3 if connection.vendor == "postgresql" else 6), "\n".join(sql)
    if connection.vendor == "postgresql":  # SQLite has no row locks: it locks the file
        locks = [q for q in sql if "FOR UPDATE" in q]
        assert len(locks) == 1
        # the lock order of rules/play/services.py: the campaign, then the character
        assert locks[0].endswith('FOR UPDATE OF "campaigns_campaign", "characters_character"')
    assert not any("campaigns_campaigntable" in q for q in sql)  # long_rest reads no table
    assert sum('FROM "characters_character"' in q for q in sql) == 1  # no row read twice
    assert not ClockJob.objects.filter(campaign=campaign).exists()
    assert Campaign.objects.get(pk=campaign.pk).clock == 480


def test_a_campaign_with_a_webhook_still_gets_the_action(web, campaign, referee, player):
    webhook_create(campaign=campaign, url="http://127.0.0.1:9/hook", user=referee)
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    response = web(player).post(
        f"/api/v1/characters/{aldo.pk}/actions/", {"action": "long_rest"}, "application/json"
    )
    assert response.status_code == 201
    assert WebhookEvent.objects.filter(campaign=campaign, type="resolution.created").count() == 2


def test_an_outsider_gets_404_before_anything_else_and_changes_nothing(
    web, campaign, player, outsider
):
    """The access check is made on the locked rows: it still comes first. An archived
    campaign answers a member 409 but an outsider 404, as before (characters.access)."""
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    url = f"/api/v1/characters/{aldo.pk}/actions/"
    body = {"action": "long_rest"}
    assert web(outsider).post(url, body, "application/json").status_code == 404
    assert (
        web(player).post("/api/v1/characters/999999/actions/", body, "application/json").status_code
        == 404
    )
    aldo.refresh_from_db()
    assert aldo.version == 1
    Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    assert web(outsider).post(url, body, "application/json").status_code == 404
    assert web(player).post(url, body, "application/json").status_code == 409
    assert not Resolution.objects.filter(character=aldo, kind="action").exists()


def test_the_writes_in_one_statement_store_what_three_saves_stored(web, campaign, player):
    """rules.log.statements.write_action: the sheet, the dice counter and the log row as the
    models would save them (read back from the database, field by field)."""
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    before = Character.objects.get(pk=aldo.pk)
    response = web(player).post(
        f"/api/v1/characters/{aldo.pk}/actions/", {"action": "long_rest"}, "application/json"
    )
    assert response.status_code == 201
    answer = response.json()
    row = Resolution.objects.get(pk=answer["id"])
    after = Character.objects.get(pk=aldo.pk)
    assert row.character_id == aldo.pk and row.campaign_id == campaign.pk
    assert row.actor_id == player.pk and row.kind == "action" and row.action == "long_rest"
    assert row.sheet_before == before.sheet and row.sheet_after == after.sheet
    assert row.version == after.version == before.version + 1
    assert row.summary == answer["summary"] and row.rolls[0]["total"] == after.sheet["hp"]
    assert row.created_at is not None and after.updated_at > before.updated_at
    assert row.elapsed_minutes == 480 and row.batch is None and row.undoes_id is None
    campaign.refresh_from_db()
    assert row.dice_counter_end > row.dice_counter_start
    assert campaign.dice_counter == row.dice_counter_end
    # the clock moved by the night's 8 hours in the same statement: nothing fell due
    assert campaign.clock == 480 and not ClockJob.objects.filter(campaign=campaign).exists()


def test_an_action_whose_own_effect_falls_due_in_its_time_writes_its_job_with_it(
    web, campaign, player, monkeypatch
):
    """rules.log.statements.write_action: the clock job, when the action schedules an
    effect due in its own time, is written in the log row's statement as the models
    would save it."""
    from rules.engine.interface import ScheduledEffect as Effect
    from rules.engine.rulesets import hit_dice

    ruleset = hit_dice.HitDice
    long_rest = ruleset.action_long_rest

    def long_rest_with_a_reminder(self, *args, **kwargs):
        result = long_rest(self, *args, **kwargs)
        return replace(result, effects=(*result.effects, Effect("reminder", 60, {}, "r")))

    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    monkeypatch.setattr(ruleset, "action_long_rest", long_rest_with_a_reminder)
    # the job as written, left to a worker (a small one would run in the action: issue 39)
    monkeypatch.setattr(clock_services, "INLINE_EFFECTS", 0)
    response = web(player).post(
        f"/api/v1/characters/{aldo.pk}/actions/", {"action": "long_rest"}, "application/json"
    )
    assert response.status_code == 201, response.content
    campaign.refresh_from_db()
    assert campaign.clock == 0  # the job moves it, once it runs
    [job] = ClockJob.objects.filter(campaign=campaign)
    assert (job.kind, job.minutes, job.requested_by_id) == ("action", 480, player.pk)
    assert job.created_at is not None and job.heartbeat_at is not None
    assert job.request_id == "" and job.skipped == []


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements: PostgreSQL")
def test_an_actions_statements_are_planned_once_per_connection(web, campaign, player):
    """The lock of an action, the largest of its statements to plan, is a prepared
    statement of the connection (rules.log.statements.run_prepared): at
    ``CONN_MAX_AGE=60`` the server parses it once, and plans it no more once it settled
    on a generic plan, where it did both on every action (issue 39)."""
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    client = web(player)
    runs = 8
    for _ in range(runs):
        response = client.post(
            f"/api/v1/characters/{aldo.pk}/actions/", {"action": "long_rest"}, "application/json"
        )
        assert response.status_code == 201
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE NOT from_sql"
        )
        prepared = cursor.fetchall()
    lock = [p for p in prepared if "FOR UPDATE" in p[0] and "characters_character" in p[0]]
    assert [generic + custom for _, generic, custom in lock] == [runs]
    assert lock[0][1] > 0  # no longer planned anew: the server settled on a generic plan
    # The rests' write moves the clock if nothing of the campaign is due: a search among
    # its effects and jobs, prepared too (its plans: the test below).
    [write] = [p for p in prepared if "rules_scheduledeffect" in p[0]]
    assert write[1] + write[2] == runs and write[1] > 0


def _crowd(party: Campaign, effects: int, jobs: int) -> None:
    """``effects`` pending effects and ``jobs`` done jobs in ``party``, most of each table,
    and the tables analyzed (a generic plan's estimates come from the statistics)."""
    membership = Membership.objects.filter(campaign=party).first()
    assert membership is not None
    bo = character_create(membership=membership, name="Bo", sheet={"level": 3, "hp": 5})
    ClockJob.objects.bulk_create(
        ClockJob(campaign=party, kind="advance", minutes=1, state="done") for _ in range(jobs)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {ScheduledEffect._meta.db_table} (campaign_id, character_id, kind, "  # noqa: S608
            "key, due_at, payload, hidden, state, created_at) SELECT %s, %s, 'wound_worsens', "
            "'', g, '{}'::jsonb, false, 'pending', now() FROM generate_series(1, %s) g",
            [party.pk, bo.pk, effects],
        )
        for model in (ScheduledEffect, ClockJob):
            cursor.execute(f"ANALYZE {model._meta.db_table}")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements: PostgreSQL")
def test_a_prepared_search_of_a_campaigns_effects_and_jobs_reads_their_indexes(
    web, make_campaign, player
):
    """An action's statements that search its campaign's effects and jobs (the write whose
    clock moves if nothing is due; the first read of the due effects of its job, run in
    the action) are prepared, and their generic plan, which knows no campaign, reads the
    indexes: where another campaign holds most effects and jobs, ``EXISTS`` of a due
    effect and the job states as parameters were planned as scans of both tables, every
    row of every campaign (issue 39, docs/performance.md "Prepared searches")."""
    campaign, party = make_campaign(), make_campaign()
    _crowd(party, effects=6000, jobs=1500)
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    # one effect due in each rest's 8 hours: each rest's job runs in the rest (it is
    # refused, Aldo having no wound 1, which is all the same to the statements)
    ScheduledEffect.objects.bulk_create(
        ScheduledEffect(
            campaign=campaign,
            character=aldo,
            kind="wound_worsens",
            due_at=480 * n - 60,
            payload={"wound": 1},
        )
        for n in range(1, 9)
    )
    client = web(player)
    for _ in range(8):
        response = client.post(
            f"/api/v1/characters/{aldo.pk}/actions/", {"action": "long_rest"}, "application/json"
        )
        assert response.status_code == 201
    assert not ScheduledEffect.objects.filter(campaign=campaign, state="pending").exists()
    searched = (ScheduledEffect._meta.db_table, ClockJob._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, statement, cardinality(parameter_types), generic_plans "
            "FROM pg_prepared_statements WHERE NOT from_sql"
        )
        searches = [p for p in cursor.fetchall() if f'FROM "{searched[0]}"' in p[1]]
        # the write (its clock's value) and the job's first read, each run by the 8 rests
        assert len(searches) == 2, [p[1][:80] for p in searches]
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        scans = {}
        for name, statement, count, _ in searches:
            nulls = ", ".join(["NULL"] * count)  # a generic plan: the values are not used
            cursor.execute(f'EXPLAIN (FORMAT JSON) EXECUTE "{name}"({nulls})')
            (plan,) = cursor.fetchone()
            plan = json.loads(plan) if isinstance(plan, str) else plan
            scans[statement[:60]] = [
                node["Relation Name"]
                for node in _plan_nodes(plan[0]["Plan"])
                if node["Node Type"] == "Seq Scan" and node.get("Relation Name") in searched
            ]
    assert scans == dict.fromkeys(scans, [])


def _plan_nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _plan_nodes(child)


def test_an_actions_job_run_in_the_action_is_written_once_as_it_ends(web, campaign, player):
    """rules.clock.services.clock_job_send: an action's job that runs in the action is
    inserted whole by the statement that ends it (rules.log.statements.write_job_end),
    where it was inserted, then updated: one row version and one statement fewer."""
    # given Aldo, whose wound worsens every 4 hours
    aldo = wounded(campaign, player, "Aldo", every=240)
    # when he rests 8 hours (two worsenings fall due: the job runs in the action)
    with CaptureQueriesContext(connection) as captured:
        response = web(player).post(
            f"/api/v1/characters/{aldo.pk}/actions/", {"action": "long_rest"}, "application/json"
        )
    assert response.status_code == 201, response.content
    # then one statement wrote the job, done, with its report, and none changed it after
    [job] = ClockJob.objects.filter(campaign=campaign)
    assert (job.kind, job.state, job.done, job.started_in_action) == ("action", "done", 2, True)
    assert job.report is not None and job.report.clock_to == 480
    writes = [
        q["sql"]
        for q in captured
        if 'INTO "rules_clockjob"' in q["sql"] or 'UPDATE "rules_clockjob"' in q["sql"]
    ]
    assert len(writes) == 1, writes
    if connection.vendor == "postgresql":  # elsewhere each row is a save of its own
        assert 'INSERT INTO "clock_clockreport"' in writes[0]
        assert 'UPDATE "rules_clockjob"' not in writes[0]
    assert Campaign.objects.get(pk=campaign.pk).clock == 480
    assert_whole(campaign)
