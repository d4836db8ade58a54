"""The log's COPY writer on PostgreSQL (rules.log.sql_writes; docs/clock.md, "How a batch
works"): a clock batch's resolutions and new effects go in with COPY instead of
``bulk_create``, its updates send their values as parameters. The rows must be exactly
those the old path wrote. The single-statement action write is held by
rules/log/tests/test_action_write.py.

COPY is PostgreSQL's (CI sets DATABASE_URL); elsewhere the clock keeps ``bulk_create``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from campaigns.models import Campaign
from characters.models import Character
from rules.clock import batch as clock
from rules.clock.tests.clock_helpers import assert_whole, run_job, twin_campaign, wounded
from rules.log import sql_writes
from rules.log.models import Resolution, ResolutionKind, ScheduledEffect
from rules.log.rows import LogRow

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="COPY is PostgreSQL's (CI sets DATABASE_URL)"
    ),
    pytest.mark.django_db,
]

# Ids differ between two campaigns; everything else about a row must be the same.
IDS = {"id", "created_at", "campaign_id", "character_id", "created_by_id", "resolution_id"}


def rows(campaign: Campaign) -> dict[str, Any]:
    """Every column of the campaign's log, effects and characters, in id order, with
    ids replaced by what they point at (a character's name, a row's place in order)."""
    names = {c.pk: c.name for c in Character.objects.filter(campaign=campaign)}
    resolutions = list(Resolution.objects.filter(campaign=campaign).order_by("id"))
    effects = list(ScheduledEffect.objects.filter(campaign=campaign).order_by("id"))
    resolution_at: dict[int | None, int] = {r.pk: i for i, r in enumerate(resolutions)}
    effect_at = {e.pk: i for i, e in enumerate(effects)}

    def columns(obj: Any) -> dict[str, Any]:
        values = {
            f.attname: getattr(obj, f.attname)
            for f in type(obj)._meta.concrete_fields
            if f.attname not in IDS
        }
        values["character"] = names[obj.character_id]
        return values

    log = []
    for resolution in resolutions:
        values = columns(resolution)
        if "scheduled_effect" in resolution.params:
            effect = resolution.params["scheduled_effect"]
            values["params"] = {**resolution.params, "scheduled_effect": effect_at[effect]}
        log.append(values)
    return {
        "log": log,
        "effects": [
            {
                **columns(effect),
                "created_by": resolution_at.get(effect.created_by_id),
                "resolution": resolution_at.get(effect.resolution_id),
            }
            for effect in effects
        ],
        "characters": sorted(
            (c.name, c.sheet, c.version, c.pending_choice)
            for c in Character.objects.filter(campaign=campaign)
        ),
    }


def test_the_copy_writer_writes_the_rows_bulk_create_wrote(
    campaign, player, other_player, settings, monkeypatch
):
    # given two campaigns with the same seed and the same party: worsening wounds that
    # schedule the next worsening, and a death (Bea) that cancels an effect by key
    twin = twin_campaign(campaign)
    for world in (campaign, twin):
        wounded(world, player, "Aldo", every=50)
        wounded(world, other_player, "Bea", every=70, level=1, marks=1, dc=20, strength=5)
        wounded(world, player, "Cid", every=240, wounds=2, every_others=100)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 4

    # when one advances with COPY (PostgreSQL's default) and the twin with bulk_create
    with CaptureQueriesContext(connection) as copied:
        job = run_job(campaign, 600)
    with monkeypatch.context() as patched:
        patched.setattr(clock, "use_copy", lambda: False)
        patched.setattr(sql_writes, "use_copy", lambda: False)
        with CaptureQueriesContext(connection) as inserted:
            twin_job = run_job(twin, 600)

    # then each path wrote the batch's new rows its own way
    def writes(captured: CaptureQueriesContext) -> set[str]:
        starts = {q["sql"].split(" (")[0] for q in captured.captured_queries}
        return {s for s in starts if "rules_resolution" in s or "rules_scheduledeffect" in s}

    assert {s for s in writes(copied) if s.startswith(("COPY", "INSERT"))} == {
        'COPY "rules_resolution"',
        'COPY "rules_scheduledeffect"',
    }
    assert {s for s in writes(inserted) if s.startswith(("COPY", "INSERT"))} == {
        'INSERT INTO "rules_resolution"',
        'INSERT INTO "rules_scheduledeffect"',
    }

    # the sheets are set from the log's rows just written, not sent a second time (with
    # PostgreSQL in the statement that sets the effects: sql_writes.effects_and_sheets)
    def sheet_updates(captured: CaptureQueriesContext) -> list[str]:
        return [
            q["sql"]
            for q in captured.captured_queries
            if 'UPDATE "characters_character"' in q["sql"]
        ]

    assert sheet_updates(copied)
    assert all('FROM "rules_resolution"' in sql for sql in sheet_updates(copied))
    # in the statement that sets the effects the batch applied: one round trip for both
    assert all('UPDATE "rules_scheduledeffect"' in sql for sql in sheet_updates(copied))
    assert not any('FROM "rules_resolution"' in sql for sql in sheet_updates(inserted))
    # and the rows are the same, column for column, links included
    assert (job.state, job.done) == (twin_job.state, twin_job.done) == ("done", 21)
    assert rows(campaign) == rows(twin)
    assert_whole(campaign)
    # the ids COPY gave follow the log's order, as bulk_create's do
    log = list(Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.EFFECT))
    assert sorted(log, key=lambda r: r.pk) == sorted(log, key=lambda r: (r.clock, r.pk))
    assert all(r.created_at is not None for r in log)


def test_a_second_resolution_of_one_effect_is_refused_with_djangos_integrity_error(
    campaign, player
):
    # given an effect the clock applied
    wounded(campaign, player, "Aldo", every=60)
    run_job(campaign, 60)
    applied = Resolution.objects.get(campaign=campaign, kind=ResolutionKind.EFFECT)

    # when a second resolution of the same effect goes in through COPY
    again = LogRow(
        **{
            f.attname: getattr(applied, f.attname)
            for f in Resolution._meta.concrete_fields
            if f.attname not in ("id", "created_at")
        }
    )
    again.version += 1
    with (
        pytest.raises(IntegrityError, match="one_resolution_per_effect"),
        transaction.atomic(),
        sql_writes.ResolutionWriter(1) as writer,
    ):
        writer.add(again)

    # then the database refused it (unique index one_resolution_per_effect), as it
    # refuses bulk_create's, and the log holds the one
    assert Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.EFFECT).count() == 1
