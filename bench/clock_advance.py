"""Benchmark of the campaign clock (issue 5, docs/clock.md).

A campaign of 500 old_school characters, each with Green River Fever (ruling OS-6:
incubation one week, then a save vs poison every four hours for three days: 18 saves,
9,000 in all), is advanced past the whole infection in one advance. The run also
applies the effects every old_school character has anyway (a sleep window each day,
ruling OS-8). Printed side by side: the advance's time, the time to insert copies of
the resolution rows it wrote with Django's ``bulk_create``, and with PostgreSQL's COPY
(psycopg 3 ``cursor.copy``, the database's own fastest way in), and the ratios of the
three (docs/clock.md, "Benchmark").

Run it on PostgreSQL (it creates and drops its own database, ``<name>_clockbench``):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sawbones .venv/bin/python bench/clock_advance.py

Options: ``--characters N`` (default 500), ``--batch-size N`` (the clock's batch, default
500), ``--keep`` (keep the database for inspection), ``--profile N`` (cProfile the
advance and print its top N functions by cumulative time).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
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
from django.utils import timezone  # noqa: E402

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


# Every column but the id, the time stamp (set on insert) and ``undoes`` (null here).
SKIPPED = ("id", "created_at", "undoes_id")
COPIED = [f for f in Resolution._meta.concrete_fields if f.attname not in SKIPPED]


def baseline_rows(campaign: Any, version_offset: int) -> list[dict[str, Any]]:
    """Copies of the resolution rows the advance wrote: kind ``action`` and versions moved
    by ``version_offset`` (so the log's unique constraints let them in beside the
    originals), every other column as written."""
    source = Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.EFFECT)
    return [
        {**values, "kind": ResolutionKind.ACTION, "version": values["version"] + version_offset}
        for values in source.order_by("id").values(*(f.attname for f in COPIED))
    ]


def bulk_create_seconds(campaign: Any) -> tuple[int, float]:
    """Insert copies of the advance's resolution rows with Django's ``bulk_create``."""
    rows = [Resolution(**values) for values in baseline_rows(campaign, 10**6)]
    start = time.perf_counter()
    with transaction.atomic():
        Resolution.objects.bulk_create(rows, batch_size=1000)
    return len(rows), time.perf_counter() - start


def copy_seconds(campaign: Any) -> tuple[int, float]:
    """Insert copies of the same rows with PostgreSQL's COPY (psycopg 3 ``cursor.copy``).

    Timed like ``bulk_create``, from Python values to committed rows: each value goes
    through its field's ``get_db_prep_save`` (JSON as psycopg's ``Jsonb``), so the
    database gets what Django would send; ``created_at`` is set as ``auto_now_add`` would.
    """
    rows = baseline_rows(campaign, 2 * 10**6)
    quote = connection.ops.quote_name
    columns = ", ".join(quote(c) for c in [*(f.column for f in COPIED), "created_at"])
    sql = f"COPY {quote(Resolution._meta.db_table)} ({columns}) FROM STDIN"
    start = time.perf_counter()
    now = timezone.now()
    with transaction.atomic(), connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for values in rows:
            copy.write_row(
                [*(f.get_db_prep_save(values[f.attname], connection) for f in COPIED), now]
            )
    return len(rows), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--characters", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="print the advance's top N functions"
    )
    args = parser.parse_args()
    settings.SAWBONES_CLOCK_BATCH_SIZE = args.batch_size
    if connection.vendor != "postgresql":
        sys.exit("the benchmark compares with PostgreSQL's COPY: run it on PostgreSQL")
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

        profile = cProfile.Profile() if args.profile else None
        with (
            EngineTimer(get_ruleset("old_school")) as engine,
            CaptureQueriesContext(connection) as queries,
        ):
            start = time.perf_counter()
            if profile is not None:
                profile.enable()
            job = clock_advance_start(campaign_id=campaign.pk, minutes=ADVANCE)
            if profile is not None:
                profile.disable()
            advance = time.perf_counter() - start
        job.refresh_from_db()
        assert job.state == "done", (job.state, job.reason)
        effects = job.done
        saves = Resolution.objects.filter(campaign=campaign, action="disease_save").count()
        left = ScheduledEffect.objects.filter(
            campaign=campaign, state="pending", kind="disease_save"
        ).count()
        rows, bulk = bulk_create_seconds(campaign)
        copied, copy_time = copy_seconds(campaign)
        assert rows == copied == effects, (rows, copied, effects)

        print(
            f"advance: {ADVANCE} in-game minutes, {effects} effects applied "
            f"({saves} disease saves, {effects - saves} sleep windows), "
            f"{left} disease saves left"
        )
        print(
            f"{len(queries)} queries ({len(queries) / effects:.3f} per effect), "
            f"batch size {args.batch_size}; the rules engine (apply_effect) took "
            f"{engine.seconds:.2f} s of the advance"
        )
        print()
        print(f"{'':<36}{'seconds':>9}{'rows/s':>10}")
        for name, seconds in (
            ("advance (writes its rows)", advance),
            (f"bulk_create of its {rows} rows", bulk),
            (f"COPY of the same {rows} rows", copy_time),
        ):
            print(f"{name:<36}{seconds:>9.2f}{rows / seconds:>10,.0f}")
        print()
        print(f"ratio advance / bulk_create: {advance / bulk:.2f}")
        print(f"ratio advance / COPY:        {advance / copy_time:.2f}")
        print(f"ratio bulk_create / COPY:    {bulk / copy_time:.2f}")
        print(f"load average (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if profile is not None:
            print()
            pstats.Stats(profile).sort_stats("cumulative").print_stats(args.profile)
    finally:
        if args.keep:
            print(f"kept database {connection.settings_dict['NAME']}")
        else:
            connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
