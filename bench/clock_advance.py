"""Benchmark of the campaign clock (issue 5, docs/clock.md).

A campaign of 500 old_school characters, each with Green River Fever (ruling OS-6:
incubation one week, then a save vs poison every four hours for three days: 18 saves,
9,000 in all), is advanced past the whole infection in one advance. The run also
applies the effects every old_school character has anyway (a sleep window each day,
ruling OS-8). Printed side by side: the advance's time, the time to insert copies of
the resolution rows it wrote with Django's ``bulk_create``, and with PostgreSQL's COPY
(psycopg 3 ``cursor.copy``, the database's own fastest way in), and the ratios of the
three (docs/clock.md, "Benchmark"). Each is timed on the wall clock and in CPU seconds
(this process plus its PostgreSQL backend, read from /proc when the server runs on this
machine): on a machine shared with other work both move with the load, so compare the
ratios of one run, over several runs. Two more COPY lines price the log's other possible shapes: the
sheets as the change only (the top-level keys that changed, before and after), and
the full sheets every 10th version with the change only in between. One more writes the
same rows as the COPY line with their JSON encoded by orjson (``core.cleaning.json_text``), as the
advance encodes it: "advance / COPY by orjson" says what the advance costs beyond its
rows when both encode alike.

Run it on PostgreSQL (it creates and drops its own database, ``<name>_clockbench``):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sawbones .venv/bin/python bench/clock_advance.py

Options: ``--characters N`` (default 500), ``--batch-size N`` (the clock's batch, default
500), ``--keep`` (keep the database for inspection), ``--profile N`` (cProfile the
advance and print its top N functions by cumulative time), ``--statements N``
(PostgreSQL's CPU and WAL for the advance's top N statements: bench/statement_cpu.py).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
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
from psycopg.types.json import Jsonb  # noqa: E402
from statement_cpu import StatementMeter  # noqa: E402

from campaigns.models import Membership  # noqa: E402
from campaigns.services import campaign_create  # noqa: E402
from core.cleaning import json_bytes  # noqa: E402
from rules.clock.services import clock_advance_start  # noqa: E402
from rules.engine.registry import get_ruleset  # noqa: E402
from rules.log.models import Resolution, ResolutionKind, ScheduledEffect  # noqa: E402
from rules.play.services import character_create, resolution_create_action  # noqa: E402

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


def backend_cpu_seconds() -> float | None:
    """CPU seconds the connection's PostgreSQL backend has used, if it runs on this machine."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # after "pid (name)": state is field 3
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


@dataclass
class Cost:
    """What one measured step took: wall clock, and CPU seconds of this process and of
    the database backend serving it (None when the server is elsewhere)."""

    wall: float = 0.0
    client: float = 0.0
    server: float | None = None

    @property
    def cpu(self) -> float | None:
        return None if self.server is None else self.client + self.server


@contextmanager
def measured() -> Iterator[Cost]:
    cost = Cost()
    server = backend_cpu_seconds()
    client = time.process_time()
    wall = time.perf_counter()
    yield cost
    cost.wall = time.perf_counter() - wall
    cost.client = time.process_time() - client
    after = backend_cpu_seconds()
    cost.server = None if server is None or after is None else after - server


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


def bulk_create_cost(campaign: Any) -> tuple[int, Cost]:
    """Insert copies of the advance's resolution rows with Django's ``bulk_create``."""
    rows = [Resolution(**values) for values in baseline_rows(campaign, 10**6)]
    with measured() as cost, transaction.atomic():
        Resolution.objects.bulk_create(rows, batch_size=1000)
    return len(rows), cost


def change_only(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """The top-level keys that differ: their values before, and after (absent: left out)."""
    keys = [k for k in {**before, **after} if before.get(k, ...) != after.get(k, ...)]
    return {k: before[k] for k in keys if k in before}, {k: after[k] for k in keys if k in after}


def copy_cost(
    campaign: Any, version_offset: int, full_every: int | None = 1, *, orjson: bool = False
) -> tuple[int, Cost]:
    """Insert copies of the same rows with PostgreSQL's COPY (psycopg 3 ``cursor.copy``).

    Measured like ``bulk_create``, from Python values to committed rows: each value goes
    through its field's ``get_db_prep_save`` (JSON as psycopg's ``Jsonb``), so the
    database gets what Django would send; ``created_at`` is set as ``auto_now_add`` would.
    ``full_every``: the log's shape priced. 1: the full sheets before and after on every
    row (today's log); N: on every Nth version only, the change only on the others;
    None: the change only on every row. Working the change out is not timed. ``orjson``:
    the JSON encoded by ``core.cleaning.json_text`` as the advance encodes it, not by Django's
    ``json.dumps`` (a row of its own, so the advance's cheaper encoding is not taken for
    the rest of its work).
    """
    rows = baseline_rows(campaign, version_offset)
    for row in rows:
        if full_every is None or row["version"] % full_every:
            row["sheet_before"], row["sheet_after"] = change_only(
                row["sheet_before"], row["sheet_after"]
            )
    quote = connection.ops.quote_name
    columns = ", ".join(quote(c) for c in [*(f.column for f in COPIED), "created_at"])
    sql = f"COPY {quote(Resolution._meta.db_table)} ({columns}) FROM STDIN"
    with (
        measured() as cost,
        transaction.atomic(),
        connection.cursor() as cursor,
        cursor.cursor.copy(sql) as copy,
    ):
        now = timezone.now()
        for values in rows:
            prepared = [f.get_db_prep_save(values[f.attname], connection) for f in COPIED]
            if orjson:
                for value in prepared:
                    if isinstance(value, Jsonb):
                        value.dumps = json_bytes
            copy.write_row([*prepared, now])
    return len(rows), cost


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--characters", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="print the advance's top N functions"
    )
    parser.add_argument(
        "--statements",
        type=int,
        default=0,
        metavar="N",
        help="print PostgreSQL's CPU and WAL for the advance's top N statements "
        "(bench/statement_cpu.py; the advance's own figures then include the meter's work)",
    )
    return parser.parse_args()


def advance_clock(
    campaign: Any, profile: cProfile.Profile | None
) -> tuple[Any, EngineTimer, CaptureQueriesContext, Cost]:
    """The campaign's clock advanced by ``ADVANCE`` minutes, timed: the finished job, the
    engine's share, the queries and the whole advance's cost."""
    with (
        EngineTimer(get_ruleset("old_school")) as engine,
        CaptureQueriesContext(connection) as queries,
        measured() as advance,
    ):
        if profile is not None:
            profile.enable()
        job = clock_advance_start(campaign_id=campaign.pk, minutes=ADVANCE)
        if profile is not None:
            profile.disable()
    job.refresh_from_db()
    assert job.state == "done", (job.state, job.reason)
    return job, engine, queries, advance


def print_costs(rows: int, costs: dict[str, Cost]) -> None:
    print(f"{'':<44}{'wall s':>8}{'rows/s':>8}{'CPU s':>7}{'(ours':>7}{'+ db)':>7}")
    for name, cost in costs.items():
        cpu = "" if cost.cpu is None else f"{cost.cpu:>7.2f}{cost.client:>7.2f}{cost.server:>7.2f}"
        print(f"{name:<44}{cost.wall:>8.2f}{rows / cost.wall:>8,.0f}{cpu}")


def print_ratios(ratios: tuple[tuple[str, Cost, Cost], ...]) -> None:
    print(f"{'ratio':<28}{'wall':>7}{'CPU':>7}")
    for name, a, b in ratios:
        cpu = "" if a.cpu is None or b.cpu is None else f"{a.cpu / b.cpu:>7.2f}"
        print(f"{name:<28}{a.wall / b.wall:>7.2f}{cpu}")


def compare(args: argparse.Namespace) -> None:
    """The advance of a campaign of ``--characters``, and the same rows written by
    bulk_create and by COPY, printed side by side."""
    print(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
    start = time.perf_counter()
    campaign = build(args.characters)
    print(
        f"set-up: {args.characters} characters with {DISEASE} in "
        f"{time.perf_counter() - start:.1f} s"
    )
    profile = cProfile.Profile() if args.profile else None
    meter = StatementMeter() if args.statements else None
    with meter.measuring() if meter is not None else nullcontext():
        job, engine, queries, advance = advance_clock(campaign, profile)
    effects = job.done
    saves = Resolution.objects.filter(campaign=campaign, action="disease_save").count()
    left = ScheduledEffect.objects.filter(
        campaign=campaign, state="pending", kind="disease_save"
    ).count()
    rows, bulk = bulk_create_cost(campaign)
    copied, copy = copy_cost(campaign, 2 * 10**6)
    assert rows == copied == effects, (rows, copied, effects)
    _, change = copy_cost(campaign, 3 * 10**6, full_every=None)
    _, every10 = copy_cost(campaign, 4 * 10**6, full_every=10)
    _, by_orjson = copy_cost(campaign, 5 * 10**6, orjson=True)

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
    print_costs(
        rows,
        {
            "advance (writes its rows)": advance,
            f"bulk_create of its {rows} rows": bulk,
            f"COPY of the same {rows} rows": copy,
            "COPY, sheets as the change only": change,
            "COPY, full sheets every 10th version": every10,
            "COPY, JSON by orjson": by_orjson,
        },
    )
    print()
    print_ratios(
        (
            ("advance / bulk_create", advance, bulk),
            ("advance / COPY", advance, copy),
            ("bulk_create / COPY", bulk, copy),
            ("COPY change only / full", change, copy),
            ("COPY full every 10th / full", every10, copy),
            ("advance / COPY by orjson", advance, by_orjson),
        )
    )
    print(f"load average (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if meter is not None:
        print()
        meter.print(args.statements)
    if profile is not None:
        print()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(args.profile)


def main() -> None:
    args = arguments()
    settings.SAWBONES_CLOCK_BATCH_SIZE = args.batch_size
    if connection.vendor != "postgresql":
        sys.exit("the benchmark compares with PostgreSQL's COPY: run it on PostgreSQL")
    connection.settings_dict.setdefault("TEST", {})
    connection.settings_dict["TEST"]["NAME"] = f"{connection.settings_dict['NAME']}_clockbench"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        compare(args)
    finally:
        if args.keep:
            print(f"kept database {connection.settings_dict['NAME']}")
        else:
            connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
