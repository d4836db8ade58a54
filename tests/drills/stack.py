"""Throwaway servers and real processes for the resilience drills (docs/operations.md).

Each drill starts its own PostgreSQL cluster (``initdb`` and ``pg_ctl`` in a temporary
directory, on a free port) and its own ``redis-server`` (no persistence, like a broker
that loses its queue when it restarts), so restarting them never touches the machine's
shared servers. The app's processes (gunicorn, ``celery worker``, ``celery beat``) run
with the production settings, configured by the environment as in docker-compose.yml.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
PYTHON = sys.executable
BIN = Path(sys.executable).parent


def pg_bin() -> Path | None:
    """The newest PostgreSQL server binaries on this machine (Debian keeps them apart)."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name)
    )
    if found:
        return found[-1].parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


def have_servers() -> bool:
    return pg_bin() is not None and shutil.which("redis-server") is not None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ReservedPort:
    """A port that refuses connections until it is released, and that nothing else takes
    meanwhile: a socket bound to it that does not listen. A port from :func:`free_port`
    left free for minutes was taken by another process's outgoing connection (the ports
    the kernel hands out for those are the same range) before a drill could listen on
    it: "Address already in use"."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.port = int(self._socket.getsockname()[1])

    def release(self) -> int:
        """Free the port for a listener to bind at once; the port."""
        self._socket.close()
        return self.port


def wait_for(
    check: Callable[[], Any], timeout: float, what: str, logs: Callable[[], str] = lambda: ""
) -> Any:
    """Poll ``check`` until it returns something true; fail with the logs after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(Exception):
            value = check()
            if value:
                return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{logs()}")
        time.sleep(0.2)


# How long a drill waits on work that has stopped moving before it calls it stuck. Work
# that drains (a clock's backlog, a webhook's deliveries) is waited for as long as it
# keeps moving, however busy the machine: a drill's limit is its progress, never a wall
# time (issue 33). Two minutes without any change is far beyond a batch, a retry's
# backoff or a watchdog's period, and well short of forever.
STALL_SECONDS = 120.0


def wait_while_moving(
    read: Callable[[], Any],
    finished: Callable[[Any], bool],
    what: str,
    logs: Callable[[], str] = lambda: "",
    stall: float = STALL_SECONDS,
) -> Any:
    """Poll ``read`` until ``finished`` holds of what it read, and return that. Fail only
    when what it reads stays the same for ``stall`` seconds (the work stopped), with the
    logs; an error while reading (a server restarting) counts as no change."""
    last: Any = None
    moved = time.monotonic()
    while True:
        try:
            value = read()
        except Exception:  # noqa: BLE001 - a server still coming back: no change
            value = last
        else:
            if finished(value):
                return value
        if value != last:
            last, moved = value, time.monotonic()
        elif time.monotonic() - moved > stall:
            raise AssertionError(
                f"{what}: nothing moved for {stall:.0f} s; last seen {last!r}\n{logs()}"
            )
        time.sleep(0.25)


def _as_postgres() -> list[str]:
    """PostgreSQL refuses to run as root: run its server tools as the postgres user."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"]
    return []


class Postgres:
    """A PostgreSQL cluster of its own: start, stop (crash or clean), restart, dump."""

    def __init__(self, base: Path) -> None:
        found = pg_bin()
        assert found is not None
        self.bin: Path = found
        self.dir = base / "pg"
        self.dir.mkdir()
        if os.geteuid() == 0:
            shutil.chown(base, "postgres")
            shutil.chown(self.dir, "postgres")
        # held until the first start: initdb and a loaded machine leave seconds in between
        self._reserved: ReservedPort | None = ReservedPort()
        self.port = self._reserved.port
        self.log = base / "pg.log"
        self.log.touch()
        if os.geteuid() == 0:
            shutil.chown(self.log, "postgres")
        subprocess.run(
            [
                *_as_postgres(),
                str(self.bin / "initdb"),
                "-D",
                str(self.dir / "data"),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
        )

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def _pg_ctl(self, *args: str, check: bool) -> None:
        data = str(self.dir / "data")
        command = [*_as_postgres(), str(self.bin / "pg_ctl"), "-D", data, "-w", "-t", "120"]
        subprocess.run([*command, *args], check=check, capture_output=True)

    def start(self) -> None:
        if self._reserved is not None:
            self._reserved.release()
            self._reserved = None
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c full_page_writes=off -c max_connections=60"
        )
        self._pg_ctl("-o", options, "-l", str(self.log), "start", check=True)

    def stop(self, mode: str = "immediate") -> None:
        """``immediate`` is a crash: no clean shut-down, open transactions die."""
        self._pg_ctl("-m", mode, "stop", check=False)

    def psql(self, sql: str, db: str = "postgres") -> str:
        result = subprocess.run(
            [
                str(self.bin / "psql"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-d",
                db,
                "-v",
                "ON_ERROR_STOP=1",
                "-At",
                "-c",
                sql,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        return result.stdout.strip()

    def psql_ok(self) -> bool:
        result = subprocess.run(
            [str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
            check=False,
            capture_output=True,
        )
        return result.returncode == 0

    def tool(self, name: str) -> str:
        return str(self.bin / name)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


class Redis:
    """A redis-server of its own, without persistence: a restart loses every message."""

    def __init__(self, base: Path) -> None:
        # held until the first start, PostgreSQL's start in between: a port left free was
        # taken by an outgoing connection and redis-server never answered (a CI run)
        self._reserved: ReservedPort | None = ReservedPort()
        self.port = self._reserved.port
        self.log = base / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        if self._reserved is not None:
            self._reserved.release()
            self._reserved = None
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--logfile",
                str(self.log),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        wait_for(self.ping, 60, "redis-server to start", self.output)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""

    def ping(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")

    def kill(self) -> None:
        """SIGKILL: Redis dies with every message it held."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            self.process.wait(timeout=30)
            self.process = None


class App:
    """The app's processes (web, worker, beat) on one database and one Redis."""

    def __init__(self, base: Path, database_url: str, redis_url: str, **env: str) -> None:
        self.base = base
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DJANGO_SECRET_KEY": "drill-" + "x" * 60,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SECURE_SSL_REDIRECT": "false",
            "DATABASE_URL": database_url,
            "DATABASE_CONN_MAX_AGE": "60",
            "REDIS_URL": redis_url,
            "PYTHONPATH": str(ROOT),
            "LOG_LEVEL": "INFO",
            **env,
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.web_port = 0  # the web process named "web": where requests go by default
        self.web_ports: dict[str, int] = {}  # every web process started, by name
        self.database = ""
        self._tool: subprocess.Popen[str] | None = None  # tool.py serve, started on first use
        self._tool_lock = threading.Lock()

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.base / f"{name}.log", "ab")  # noqa: SIM115 - closed by the OS at exit
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a kill takes its children
        )
        self.processes[name] = process
        return process

    def run(self, *argv: str, timeout: float = 300) -> str:
        """Run a command in the app's environment; its output (fail on an error)."""
        result = subprocess.run(
            argv, cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=timeout
        )
        if result.returncode != 0:
            raise AssertionError(f"{' '.join(argv)} failed:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def manage(self, *args: str, timeout: float = 300) -> str:
        return self.run(PYTHON, "manage.py", *args, timeout=timeout)

    def tool(self, *args: str, timeout: float = 300) -> Any:
        """Ask ``tests/drills/tool.py`` in the app's environment; its JSON answer.

        One tool process per app serves every question (``tool.py serve``, a JSON line
        each way), so a drill that polls the database does not start Python and Django
        for each look (a second of CPU each, on a machine the drill shares)."""
        with self._tool_lock:
            if self._tool is None or self._tool.poll() is not None:
                self._tool = subprocess.Popen(  # noqa: S603 - our own tool
                    [PYTHON, "-m", "tests.drills.tool", "serve"],
                    cwd=ROOT,
                    env=self.env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=open(self.base / "tool.log", "ab"),  # noqa: SIM115 - the OS closes it
                    text=True,
                )
            process = self._tool
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(list(args)) + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], timeout)
            line = process.stdout.readline() if ready else ""
            if not line:
                process.kill()
                self._tool = None
                raise AssertionError(
                    f"tool {' '.join(args)}: no answer within {timeout} s\n"
                    + (self.base / "tool.log").read_text(errors="replace")[-3000:]
                )
        answer = json.loads(line)
        if "error" in answer:
            raise AssertionError(f"tool {' '.join(args)} failed:\n{answer['error']}")
        return answer["answer"]

    def start_worker(self, name: str = "worker", queues: str = "", concurrency: int = 1) -> None:
        """A worker; ``queues`` (``-Q``, comma-separated) as a compose service runs it,
        or every queue."""
        self._start(
            name,
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "worker",
                "-n",
                f"{name}@%h",
                *(["-Q", queues] if queues else []),
                f"--concurrency={concurrency}",
                "--without-gossip",
                "--without-mingle",
                "--loglevel=INFO",
            ],
        )

    def start_queue_workers(self) -> tuple[str, ...]:
        """docker-compose.yml's workers: one per queue (the clock's and the webhooks' with
        2 processes each; housekeeping with e-mail and the default queue); their names."""
        self.start_worker("worker-clock", queues="clock", concurrency=2)
        self.start_worker("worker-webhooks", queues="webhooks", concurrency=2)
        self.start_worker("worker-housekeeping", queues="housekeeping,email,celery")
        return ("worker-clock", "worker-webhooks", "worker-housekeeping")

    def worker_ready(self, name: str = "worker") -> bool:
        """The worker ``name`` has connected to the broker and takes tasks."""
        log = self.base / f"{name}.log"
        if not log.exists():
            return False
        found = re.search(rf"{re.escape(name)}@\S+ ready\.", log.read_text(errors="replace"))
        return found is not None

    def start_beat(self, name: str = "beat") -> None:
        self._start(
            name,
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "beat",
                "--loglevel=INFO",
                "-s",
                str(self.base / f"{name}-schedule"),
            ],
        )

    def start_web(self, name: str = "web", threads: int = 8) -> int:
        """A gunicorn master (its own worker process) on a free port; the port.

        Several may run, each with its own name: the one named ``web`` is where
        :meth:`request` sends by default, the others are reached with ``port``. With
        ``threads`` 1 the worker is gunicorn's sync worker, else its threaded one
        (gthread), as the event streams' service runs (docker-compose.yml).
        """
        port = free_port()
        self.web_ports[name] = port
        if name == "web":
            self.web_port = port
        self._start(
            name,
            [
                str(BIN / "gunicorn"),
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--threads",
                str(threads),
                "--timeout",
                "120",
            ],
        )
        wait_for(
            lambda: self.get("/health/", port=port)[0] == 200, 120, f"{name} to answer", self.logs
        )
        return port

    def kill(self, name: str) -> None:
        """SIGKILL the process and its children: no clean-up, no acknowledgement."""
        process = self.processes.pop(name, None)
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)

    def stop_all(self) -> None:
        for name in list(self.processes):
            self.kill(name)
        if self._tool is not None:
            self._tool.kill()
            self._tool.wait()
            self._tool = None

    def request(
        self, method: str, path: str, body: Any = None, token: str = "", port: int = 0
    ) -> tuple[int, Any]:
        """A JSON request to the web process on ``port`` (default: the one named ``web``)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{port or self.web_port}{path}",
            data=data,
            method=method,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json",
                **({"Authorization": f"Token {token}"} if token else {}),
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as response:  # noqa: S310 - our server
                raw = response.read()
                status = response.status
        except urllib.error.HTTPError as error:
            raw = error.read()
            status = error.code
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode(errors="replace")

    def post_form(self, path: str, fields: dict[str, str]) -> tuple[int, str]:
        """A person sending a page's form: its CSRF cookie and token first, then the post."""
        with urllib.request.urlopen(  # noqa: S310 - our server
            f"http://127.0.0.1:{self.web_port}{path}", timeout=60
        ) as page:
            html = page.read().decode()
            cookies = page.headers.get_all("Set-Cookie") or []
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        assert found, html
        cookie = "; ".join(c.split(";", 1)[0] for c in cookies)
        body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": found[1]}).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.web_port}{path}",
            data=body,
            method="POST",
            headers={"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"},
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as response:  # noqa: S310
                return response.status, response.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def get(self, path: str, token: str = "", port: int = 0) -> tuple[int, Any]:
        return self.request("GET", path, token=token, port=port)

    def everything_logged(self) -> str:
        return "\n".join(log.read_text(errors="replace") for log in self.base.glob("*.log"))

    def logs(self) -> str:
        parts = []
        for log in sorted(self.base.glob("*.log")):
            parts.append(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}")
        return "\n".join(parts)


class Receiver:
    """A webhook receiver on ``port``: records every POST (path, body, arrival, the status
    it answered) and answers ``status`` (200 unless a drill makes it fail)."""

    def __init__(self, port: int) -> None:
        self.received: list[tuple[str, dict[str, Any], float, int]] = []
        self.status = 200
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                answer = receiver.status
                receiver.received.append((self.path, body, time.monotonic(), answer))
                self.send_response(answer)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def delivered(self, path: str = "") -> list[str]:
        """The event ids answered 2xx, in arrival order (those to ``path`` if given)."""
        return [
            body["id"]
            for at, body, _, status in self.received
            if 200 <= status < 300 and (not path or at == path)
        ]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def servers() -> Iterator[tuple[Path, Postgres, Redis]]:
    """A temporary directory with a running PostgreSQL cluster and Redis of its own."""
    base = Path(tempfile.mkdtemp(prefix="sawbones-drill-"))
    postgres = Postgres(base)
    redis = Redis(base)
    try:
        postgres.start()
        redis.start()
        yield base, postgres, redis
    finally:
        redis.kill()
        postgres.stop()
        shutil.rmtree(base, ignore_errors=True)
