"""What every server benchmark shares: a gunicorn of the project started on a database
of its own (production settings, no throttles, a free port) and stopped, and the CPU its
processes and PostgreSQL's spend, read from /proc. bench/live_pages.py, bench/actions.py
and bench/sessions.py measure with them; and what benches put on sheets (bench/odds.py).
"""

from __future__ import annotations

import http.client
import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")


# -- the sheets --------------------------------------------------------------------------


def still_wound(description: str) -> dict[str, Any]:
    """A hit_dice major wound that no longer worsens: its ``wound_worsens`` changes
    nothing."""
    return {
        "id": 1,
        "kind": "major",
        "description": description,
        "treated": False,
        "ability_losses": {},
        "worsens_every": None,
        "worsen_dc": 20,
        "until_long_rest": False,
        "expired": False,
        "cause": "bench",
        "received_at": 0,
    }


# -- the server --------------------------------------------------------------------------


def bench_env(
    database_url: str, suffix: str = "_livebench", conn_max_age: str = "60"
) -> dict[str, str]:
    """A bench server's environment: production settings on ``<database><suffix>``,
    no throttles; ``DATABASE_CONN_MAX_AGE`` from the environment, else ``conn_max_age``."""
    parts = urlsplit(database_url)
    name = parts.path.lstrip("/") + suffix
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": urlunsplit(parts._replace(path="/" + name)),
        "DATABASE_CONN_MAX_AGE": os.environ.get("DATABASE_CONN_MAX_AGE", conn_max_age),
        "SAWBONES_THROTTLE_USER": "1000000/min",
        "SAWBONES_THROTTLE_IP": "1000000/min",
        "LOG_LEVEL": "WARNING",
        "PYTHONWARNINGS": "ignore:No directory at",  # whitenoise: no collectstatic here
    }


def make_database(env: dict[str, str], app: Path = ROOT) -> None:
    """The bench's database made anew and migrated by ``app`` (a checkout)."""
    import psycopg

    target = urlsplit(env["DATABASE_URL"])
    name = target.path.lstrip("/")
    with psycopg.connect(urlunsplit(target._replace(path="/postgres")), autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        db.execute(f'CREATE DATABASE "{name}"')
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=app, env=env, check=True
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(
    env: dict[str, str], port: int, options: list[str], app: Path = ROOT
) -> subprocess.Popen[bytes]:
    """gunicorn serving ``app`` (a checkout of the project) once it answers /health/."""
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            *options,
            f"--bind=127.0.0.1:{port}",
            "--log-level=warning",
        ],
        cwd=app,
        env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/health/")
            if connection.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not answer /health/ within 60 s")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:  # a stream still open past the graceful timeout
        server.kill()
        server.wait(timeout=30)


# -- CPU from /proc ----------------------------------------------------------------------


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()


def process_cpu(pid: int, *, reaped: bool = False) -> float:
    """Seconds of CPU of a process (with ``reaped``, of its waited-for children too)."""
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    if reaped:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / TICK


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def gunicorn_cpu(master: int) -> float:
    return process_cpu(master) + sum(process_cpu(worker) for worker in children(master))


def postgres_cpu() -> float:
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if name in ("postgres", "postmaster"):
            total += process_cpu(int(entry.name), reaped=True)  # the backends it reaped
    return total


def machine_busy() -> tuple[float, float]:
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)
