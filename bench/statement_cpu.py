"""PostgreSQL's CPU and WAL per statement of a Django connection (issue 39; used by
bench/clock_advance.py ``--statements``, docs/clock.md "Goal 3 on a slower machine").

The backend's CPU time is read from ``/proc/<pid>/schedstat`` (nanoseconds; the server
must run on this machine) before and after each statement, and the WAL it wrote from
``pg_current_wal_insert_lsn()`` on a second connection (the machine otherwise idle:
the position is the server's, not the backend's). Statements are grouped by their
text with the numbers taken out. Django's own statements are met through an execute
wrapper; those the clock runs outside Django's cursors (``rules.log.sql_writes``: the
bound updates and the effects' and sheets' update, the effects' ``COPY``, the end of
the resolutions' ``COPY``) and the commits by wrapping them while the meter runs. What
the resolutions' streamed ``COPY`` costs while Python works is what is left of the total.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from django.db import connection

import rules.clock.batch as clock_batch
import rules.log.sql_writes as sql_writes


class StatementMeter:
    def __init__(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.pid = cursor.fetchone()[0]
        settings = connection.settings_dict
        self.side = psycopg.connect(
            host=settings["HOST"] or None,
            port=settings["PORT"] or None,
            user=settings["USER"] or None,
            password=settings["PASSWORD"] or None,
            dbname=settings["NAME"],
            autocommit=True,
        )
        self.cpu: dict[str, float] = defaultdict(float)
        self.wal: dict[str, int] = defaultdict(int)
        self.count: dict[str, int] = defaultdict(int)
        self.total_cpu = self.total_wal = 0.0

    def server_cpu(self) -> float:
        with open(f"/proc/{self.pid}/schedstat") as stat:
            return int(stat.read().split()[0]) / 1e9

    def wal_position(self) -> int:
        row = self.side.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()
        assert row is not None
        return int(row[0])

    def timed(self, name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            cpu, wal = self.server_cpu(), self.wal_position()
            try:
                return call(*args, **kwargs)
            finally:
                self.cpu[name] += self.server_cpu() - cpu
                self.wal[name] += self.wal_position() - wal
                self.count[name] += 1

        return run

    def wrapper(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        return self.timed(_shape(sql), execute)(sql, params, many, context)

    @contextmanager
    def measuring(self) -> Iterator[StatementMeter]:
        # run_bound: the bound updates (_execute_bound) and the effects' and sheets' update
        bound = sql_writes.run_bound  # type: ignore[attr-defined]
        copies = sql_writes.copy_rows
        commit = connection._commit  # type: ignore[attr-defined]
        writer_exit = sql_writes.ResolutionWriter.__exit__
        meter = self

        def bound_timed(db: Any, sql: str, params: Any) -> Any:
            return meter.timed("(bound) " + _shape(sql), bound)(db, sql, params)

        def exit_timed(writer: Any, *exc: Any) -> Any:
            return meter.timed("resolutions' COPY, its end", writer_exit)(writer, *exc)

        sql_writes.run_bound = bound_timed  # type: ignore[attr-defined]
        clock_batch.copy_rows = self.timed("new effects' COPY", copies)  # type: ignore[attr-defined]
        connection._commit = self.timed("COMMIT", commit)  # type: ignore[attr-defined]
        sql_writes.ResolutionWriter.__exit__ = exit_timed  # type: ignore[method-assign]
        cpu, wal = self.server_cpu(), self.wal_position()
        try:
            with connection.execute_wrapper(self.wrapper):
                yield self
        finally:
            self.total_cpu, self.total_wal = self.server_cpu() - cpu, self.wal_position() - wal
            sql_writes.run_bound = bound  # type: ignore[attr-defined]
            clock_batch.copy_rows = copies  # type: ignore[attr-defined]
            del connection._commit  # type: ignore[attr-defined]
            sql_writes.ResolutionWriter.__exit__ = writer_exit  # type: ignore[method-assign]

    def print(self, top: int) -> None:
        counted = sum(self.cpu.values())
        print(
            f"PostgreSQL: {self.total_cpu:.2f} s of CPU, {self.total_wal / 1e6:.1f} MB of WAL; "
            f"{counted:.2f} s in the statements met, {self.total_cpu - counted:.2f} s "
            "left (the resolutions' COPY while it streams)"
        )
        print(f"{'CPU s':>7}{'count':>7}{'WAL MB':>8}  statement")
        for name in sorted(self.cpu, key=self.cpu.__getitem__, reverse=True)[:top]:
            print(
                f"{self.cpu[name]:>7.3f}{self.count[name]:>7}{self.wal[name] / 1e6:>8.2f}  {name}"
            )


def _shape(sql: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "N", sql.strip()))[:90]
