"""Benchmark of the campaign clock (issue 5, docs/clock.md).

A campaign of 500 old_school characters, each with Green River Fever (ruling OS-6:
incubation one week, then a save vs poison every four hours for three days: 18 saves,
9,000 in all), is advanced past the whole infection in one advance. The run also
applies the effects every old_school character has anyway (a sleep window each day,
ruling OS-8). Printed: effects per second, the time to bulk-insert as many resolution
rows (the same rows, copied), and the ratio of the two.

Run it on PostgreSQL (it creates and drops its own database, ``<name>_clockbench``):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sawbones .venv/bin/python bench/clock_advance.py

Options: ``--characters N`` (default 500), ``--batch-size N`` (the clock's batch, default
500), ``--keep`` (keep the database for inspection).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from campaigns.models import Membership  # noqa: E402
from campaigns.services import campaign_create  # noqa: E402
from rules.clock import clock_advance_start  # noqa: E402
from rules.engine.registry import get_ruleset  # noqa: E402
from rules.models import Resolution, ResolutionKind, ScheduledEffect  # noqa: E402
from rules.services import (  # noqa: E402
    character_create,
    resolution_create_action,
)

DISEASE = "Green River Fever"
DAY = 24 * 60
ADVANCE = 7 * DAY + 3 * DAY + 60  # incubation, infection, and an hour past the last save


def build(characters: int) -> Any:
    referee = get_user_model().objects.create_user(username="bench-referee", password="-")
    # The patients rest in bed: no sleep deprivation (OS-8) on top of the fever.
    campaign = campaign_create(
        user=referee, name="Fever ward", ruleset="old_school", options={"track_sleep": False}
    )
    membership = Membership.objects.get(campaign=campaign, user=referee)
    for i in range(characters):
        character = character_create(
            membership=membership,
            name=f"Patient {i + 1:03d}",
            sheet={"intelligence": 18, "resting": True},
        )
        resolution_create_action(
            character_id=character.pk,
            actor=referee,
            by_referee=True,
            action="contract_disease",
            params={"disease": DISEASE, "hidden": False},
        )
    return campaign


class EngineTimer:
    """Time spent inside the ruleset's apply_effect (the pure engine, sheet checks included)."""

    def __init__(self, ruleset: Any) -> None:
        self.ruleset = ruleset
        self.original = ruleset.apply_effect
        self.seconds = 0.0

    def __enter__(self) -> EngineTimer:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return self.original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        self.ruleset.apply_effect = timed
        return self

    def __exit__(self, *exc: object) -> None:
        del self.ruleset.apply_effect


def bulk_insert_seconds(campaign: Any) -> tuple[int, float]:
    """Insert as many resolution rows as the advance wrote (copies of them), in bulk."""
    fields = [
        f.attname
        for f in Resolution._meta.concrete_fields
        if f.attname not in ("id", "created_at", "undoes_id")
    ]
    source = Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.EFFECT)
    rows = [
        Resolution(
            **{**values, "kind": ResolutionKind.ACTION, "version": values["version"] + 10**6}
        )
        for values in source.values(*fields)
    ]
    start = time.perf_counter()
    with transaction.atomic():
        Resolution.objects.bulk_create(rows, batch_size=1000)
    seconds = time.perf_counter() - start
    return len(rows), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--characters", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    args = parser.parse_args()
    settings.SAWBONES_CLOCK_BATCH_SIZE = args.batch_size
    if connection.vendor != "postgresql":
        print("warning: not PostgreSQL; the issue's figures are for PostgreSQL", file=sys.stderr)
    connection.settings_dict.setdefault("TEST", {})
    connection.settings_dict["TEST"]["NAME"] = f"{connection.settings_dict['NAME']}_clockbench"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        print(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
        start = time.perf_counter()
        campaign = build(args.characters)
        print(
            f"set-up: {args.characters} characters with {DISEASE} in "
            f"{time.perf_counter() - start:.1f} s"
        )

        with (
            EngineTimer(get_ruleset("old_school")) as engine,
            CaptureQueriesContext(connection) as queries,
        ):
            start = time.perf_counter()
            job = clock_advance_start(campaign_id=campaign.pk, minutes=ADVANCE)
            advance = time.perf_counter() - start
        job.refresh_from_db()
        assert job.state == "done", (job.state, job.reason)
        effects = job.done
        saves = Resolution.objects.filter(campaign=campaign, action="disease_save").count()
        left = ScheduledEffect.objects.filter(
            campaign=campaign, state="pending", kind="disease_save"
        ).count()
        rows, insert = bulk_insert_seconds(campaign)

        print(
            f"advance: {ADVANCE} in-game minutes, {effects} effects applied "
            f"({saves} disease saves, {effects - saves} sleep windows), "
            f"{left} disease saves left"
        )
        print(
            f"advance time: {advance:.2f} s = {effects / advance:,.0f} effects/s; "
            f"{len(queries)} queries ({len(queries) / effects:.3f} per effect), "
            f"batch size {args.batch_size}"
        )
        print(
            f"  of which the rules engine (apply_effect): {engine.seconds:.2f} s "
            f"({100 * engine.seconds / advance:.0f}%)"
        )
        print(
            f"bulk insert of {rows} resolution rows: {insert:.2f} s = {rows / insert:,.0f} rows/s"
        )
        print(f"ratio advance / bulk insert: {advance / insert:.2f}")
        print(f"ratio without the engine's own time: {(advance - engine.seconds) / insert:.2f}")
    finally:
        if args.keep:
            print(f"kept database {connection.settings_dict['NAME']}")
        else:
            connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
