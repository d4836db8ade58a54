"""Where the web process's CPU goes per request at persistent connections (issue 39,
goals 1 and 2; docs/performance.md "Persistent connections").

Production settings on PostgreSQL (``$DATABASE_URL`` + ``_profile``, made anew) with
``DATABASE_CONN_MAX_AGE`` (60 unless told), in this process through Django's test
``Client`` (the whole middleware stack; the client skips the CSRF check). One player,
a campaign per action as in bench/actions.py ("a campaign each"): the trivial GET, the
rest that takes no time, the rest that crosses nothing and the rest that crosses 2 due
effects (its clock job inline); with ``--party``, one player of a party of 8 in one
campaign ("one party": that rest crosses 16, 2 for each character). Each request
``--requests`` times after a warm-up: the
statements per request (an execute wrapper), the CPU ms per request in this process and in
its PostgreSQL backend (/proc/PID/schedstat: the server on this machine); with
``--functions``, the own CPU of the functions named, each call timed (cProfile's timer
costs more than many short functions do: bench/function_cpu.py); then the top ``--top``
functions of cProfile by their own time and by cumulative time.

    DATABASE_URL=postgres://... REDIS_URL=redis://.../N \\
        .venv/bin/python bench/profile_actions.py [--requests 300] [--top 25] [--only KIND] \\
        [--party] [--statements N] [--functions MODULE:QUALNAME,...] [--dump PREFIX]

For example ``--functions rules.clock.batch:_record,rules.clock.batch:build_log_row``.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ is on the path of a bench script
import actions as bench  # noqa: E402
import servers as srv  # noqa: E402

KINDS = ("get", "no time", "crosses nothing", "crosses effects")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--conn-max-age", default="60")
    parser.add_argument("--only", choices=KINDS, action="append")
    parser.add_argument("--party", action="store_true", help='"one party" of bench/actions.py')
    parser.add_argument(
        "--statements",
        type=int,
        metavar="N",
        help="PostgreSQL's CPU and WAL for each kind's top N statements (bench/statement_cpu.py)",
    )
    parser.add_argument(
        "--functions",
        metavar="MODULE:QUALNAME,...",
        action="append",
        help="each named function's own CPU per request, wrapped (bench/function_cpu.py)",
    )
    parser.add_argument(
        "--dump", metavar="PREFIX", help="also write each kind's pstats to PREFIX-<kind>.pstats"
    )
    return parser.parse_args()


def main() -> None:
    args = arguments()
    env = srv.bench_env(
        os.environ["DATABASE_URL"], suffix="_profile", conn_max_age=args.conn_max_age
    )
    env["DATABASE_CONN_MAX_AGE"] = args.conn_max_age
    srv.make_database(env)
    os.environ.update(env)
    import django

    django.setup()
    from django.db import connection
    from django.test import Client

    plan = (
        bench.make_players(8)["one party"]
        if args.party
        else bench.make_players(1)["a campaign each"]
    )
    bench.top_up(plan["crosses effects"], 60)  # its measured requests and more
    who = plan["no time"][0]
    web = Client(HTTP_HOST="127.0.0.1")
    web.cookies["sessionid"] = who["session"]

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend_pid = cursor.fetchone()[0]

    request = requester(plan, web)

    for kind in args.only or KINDS:
        for _ in range(20):  # warm up: caches, the connection, compiled templates
            request(kind)
        # a wrapper, not CaptureQueriesContext: request_started resets queries_log
        queries: list[str] = []
        with connection.execute_wrapper(
            lambda run, sql, *rest, seen=queries: seen.append(sql) or run(sql, *rest)
        ):
            request(kind)
        backend = backend_cpu(backend_pid)  # the connection is kept: one backend serves all
        cpu = time.process_time()
        for _ in range(args.requests):
            request(kind)
        cpu_ms = (time.process_time() - cpu) * 1000 / args.requests
        backend_ms = (backend_cpu(backend_pid) - backend) * 1000 / args.requests
        print(
            f"\n=== {kind}: {len(queries)} statements through Django, {cpu_ms:.2f} ms CPU per "
            f"request in this process, {backend_ms:.2f} in its PostgreSQL backend"
        )
        for sql in queries:
            print(f"    {sql[:150]}")
        if args.statements:
            measure_statements(request, kind, args.requests, args.statements)
        if args.functions:
            names = [name for names in args.functions for name in names.split(",") if name]
            measure_functions(request, kind, args.requests, names)
        profile = cProfile.Profile(time.process_time)  # CPU, not the waits on PostgreSQL
        profile.enable()
        for _ in range(args.requests):
            request(kind)
        profile.disable()
        stats: Any = pstats.Stats(profile)
        if args.dump:
            stats.dump_stats(f"{args.dump}-{kind.replace(' ', '-')}.pstats")
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)


def requester(plan: dict[str, Any], web: Any) -> Any:
    """The request of each kind, made by ``web`` (a test ``Client``) for ``plan``'s first
    player of that kind."""

    def request(kind: str) -> None:
        target = plan["no time" if kind == "get" else kind][0]
        if kind == "get":
            response = web.get(f"/api/v1/campaigns/{target['campaign']}/")
            expected = 200
        else:
            response = web.post(
                f"/api/v1/characters/{target['character']}/actions/",
                {"action": "long_rest", "params": {}},
                content_type="application/json",
            )
            expected = 201
        if response.status_code != expected:
            raise SystemExit(f"{kind}: {response.status_code} {response.content[:300]!r}")

    return request


def backend_cpu(pid: int) -> float:
    """CPU seconds PostgreSQL's backend ``pid`` has run (the server on this machine)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


def measure_statements(request: Any, kind: str, requests: int, top: int) -> None:
    """PostgreSQL's CPU and WAL per statement of ``requests`` requests of ``kind``: those
    through Django and the clock's bound ones (StatementMeter), and an action's prepared
    statements (rules.log.statements.run_bound)."""
    from statement_cpu import StatementMeter, _shape

    import rules.log.statements as statements

    meter = StatementMeter()
    run_bound = statements.run_bound

    def prepared_timed(db: Any, sql: str, *rest: Any, **options: Any) -> Any:
        return meter.timed("(prepared) " + _shape(sql), run_bound)(db, sql, *rest, **options)

    statements.run_bound = prepared_timed
    try:
        with meter.measuring():
            for _ in range(requests):
                request(kind)
    finally:
        statements.run_bound = run_bound
    print(f"--- {kind}: PostgreSQL per statement, {requests} requests")
    meter.print(top)


def measure_functions(request: Any, kind: str, requests: int, names: list[str]) -> None:
    """The own CPU of each function of ``names`` over ``requests`` requests of ``kind``."""
    from function_cpu import FunctionMeter

    meter = FunctionMeter(names)
    with meter.measuring():
        for _ in range(requests):
            request(kind)
    print(f"--- {kind}: functions' own CPU, {requests} requests")
    meter.print(requests)


if __name__ == "__main__":
    main()
