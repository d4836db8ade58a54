"""A job's batches pass on the sheets they leave (rules.clock.batch.KnownSheets, issue
39): each sheet is read once per run, unless something else wrote the character between
two batches, which the version tells."""

from __future__ import annotations

import json

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from characters.models import Character
from rules.clock import batch
from rules.clock.batch import KnownSheets
from rules.clock.services import _advance_batch, clock_advance_start
from rules.clock.tests.clock_helpers import assert_whole, run_job, wounded
from rules.log.models import Resolution, ResolutionKind
from rules.play.services import resolution_create_action


def _sheet_reads(queries: CaptureQueriesContext) -> list[str]:
    column = f'"{Character._meta.db_table}"."sheet"'
    return [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith("SELECT") and column in q["sql"]
    ]


def test_a_long_advance_reads_each_sheet_once(campaign, player, settings):
    # given an advance of eight batches over Aldo's worsening wound
    settings.SAWBONES_CLOCK_BATCH_SIZE = 1
    aldo = wounded(campaign, player, "Aldo", every=15)

    # when it runs
    with CaptureQueriesContext(connection) as queries:
        job = run_job(campaign, 120)

    # then his sheet was read by the first batch only, each later one locking his row
    # and taking the sheet the one before left, and the log and sheet agree
    assert (job.state, job.done) == ("done", 8)
    assert len(_sheet_reads(queries)) == 1, _sheet_reads(queries)
    if connection.vendor == "postgresql":
        # and each batch took its log's ids in the statement that locked the characters,
        # none in one of its own (issue 39: a round trip fewer)
        taking = [q["sql"] for q in queries.captured_queries if "nextval" in q["sql"]]
        assert len(taking) == 8 and all(sql.endswith("FOR UPDATE") for sql in taking), taking
    aldo.refresh_from_db()
    last = Resolution.objects.filter(character=aldo).latest("version")
    assert (aldo.version, aldo.sheet) == (last.version, last.sheet_after)
    assert_whole(campaign)


def test_a_sheet_changed_between_two_batches_is_read_again(campaign, referee, player, settings):
    # given an advance whose first batch has applied Aldo's first worsening
    settings.SAWBONES_CLOCK_BATCH_SIZE = 1
    aldo = wounded(campaign, player, "Aldo", every=60)
    job = clock_advance_start(campaign_id=campaign.pk, minutes=180)
    known: KnownSheets = {}
    assert _advance_batch(job.pk, known)
    first = Resolution.objects.filter(character=aldo, kind=ResolutionKind.EFFECT).get()
    assert (known[aldo.pk].version, known[aldo.pk].sheet) == (first.version, first.sheet_after)

    # when the referee deals him damage before the next batch (a version the job did
    # not write), then the next batch runs
    resolution_create_action(
        character_id=aldo.pk, actor=referee, by_referee=True, action="damage", params={"amount": 3}
    )
    damage = Resolution.objects.filter(character=aldo).latest("version")
    _advance_batch(job.pk, known)

    # then it applied the second worsening to the damaged sheet, not the one it knew
    second = Resolution.objects.filter(character=aldo, kind=ResolutionKind.EFFECT).latest("id")
    assert second.version == damage.version + 1
    assert second.sheet_before == damage.sheet_after != first.sheet_after
    assert (known[aldo.pk].version, known[aldo.pk].sheet) == (second.version, second.sheet_after)
    assert_whole(campaign)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the compiled lock is PostgreSQL's")
def test_the_compiled_lock_reads_what_its_queryset_reads(campaign, player):
    # given three characters, one of them with a choice pending
    aldo = wounded(campaign, player, "Aldo")
    bea = wounded(campaign, player, "Bea")
    cid = wounded(campaign, player, "Cid")
    Character.objects.filter(pk=bea.pk).update(pending_choice={"prompt": "live or die"})
    ids = {cid.pk, aldo.pk, bea.pk}
    for with_sheets in (True, False):
        # when two of them are locked, or all three, twice (compiled once, run again)
        for chosen in ({aldo.pk, cid.pk}, ids, ids):
            with transaction.atomic(), CaptureQueriesContext(connection) as queries:
                rows = batch._lock_rows(chosen, with_sheets=with_sheets, log_ids=4)
            # then the rows are the queryset's, in id order, locked, each sheet as text
            expected = [
                (c.pk, c.campaign_id, c.name, c.version, c.pending_choice)
                for c in Character.objects.filter(pk__in=chosen).order_by("pk")
            ]
            assert [row[:5] for row in rows] == expected
            if with_sheets:
                sheets = [json.loads(row[5]) for row in rows]
                assert sheets == [Character.objects.get(pk=row[0]).sheet for row in rows]
            assert all(len(row) == (7 if with_sheets else 6) for row in rows)
            # and the first row carries four new ids of the log's sequence, in order,
            # taken once by the one statement (rules.log.sql_writes.ids_column); the
            # others none (a catch-up's 500 rows carried 500 ids each)
            new_ids = rows[0][-1]
            assert all(row[-1] is None for row in rows[1:])
            assert len(new_ids) == 4 and new_ids == sorted(new_ids)
            assert new_ids[0] > Resolution.objects.order_by("-pk").values_list("pk", flat=True)[0]
            lock = queries.captured_queries[-1]["sql"]
            assert lock.endswith("FOR UPDATE")
            assert [q["sql"] for q in queries.captured_queries if "nextval" in q["sql"]] == [lock]
