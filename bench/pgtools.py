"""PostgreSQL helpers of the scale benchmarks (bench/scale.py, bench/logbook_scale.py):
rows copied in SQL, and the CPU of what runs, this process's and its backend's. Django
is set up by the benchmark that imports this."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection
from django.db.models import Model


def _table(model: type[Model]) -> str:
    return str(connection.ops.quote_name(model._meta.db_table))


def _columns(model: type[Model]) -> list[str]:
    return [f.column for f in model._meta.concrete_fields if f.column != "id"]


def _sql(statement: str, params: list[Any] | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)  # None: no placeholders, "%" is modulo


def _clone(model: type[Model], source: str, overrides: dict[str, str], where: str) -> None:
    """Insert copies of ``model``'s rows: every column from ``t`` (the rows copied), but
    ``overrides`` (column: SQL expression); ``source`` the FROM clause."""
    columns = _columns(model)
    values = ", ".join(overrides.get(c, f"t.{c}") for c in columns)
    _sql(
        f"INSERT INTO {_table(model)} ({', '.join(columns)}) "
        f"SELECT {values} FROM {source} WHERE {where}"
    )


def backend_pid() -> int:
    """The PostgreSQL backend serving this process's connection (opened if need be)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def backend_cpu(pid: int) -> float:
    """CPU seconds the backend has run, to the nanosecond (/proc/PID/schedstat; the
    stat file counts in 10 ms ticks, too coarse for one request); 0 when the server runs
    on another machine."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except OSError:
        return 0.0


@dataclass
class Cost:
    wall: float = 0.0
    client: float = 0.0
    server: float = 0.0

    @property
    def cpu(self) -> float:
        return self.client + self.server


@contextmanager
def measured() -> Iterator[Cost]:
    """Wall clock and CPU of what runs inside: this process's and its backend's."""
    cost = Cost()
    pid = backend_pid()
    server = backend_cpu(pid)
    client = time.process_time()
    wall = time.perf_counter()
    yield cost
    cost.wall = time.perf_counter() - wall
    cost.client = time.process_time() - client
    cost.server = backend_cpu(pid) - server
