"""``make run``'s embedded mode in a real process: local settings, SQLite, in-process
tasks, the demo, and ``runserver`` on a private port (its own ticker thread, DEBUG as
``make run`` has it). For what only that mode does: the live clock's ticker, its error
pages."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parent.parent.parent
LOGIN_LINE = re.compile(r"log in as (\S+)\s+password (\S+)")


@dataclass
class EmbeddedServer:
    url: str
    logins: dict[str, str]
    process: subprocess.Popen[bytes]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_embedded(tmp: Path, ticker_seconds: str = "1") -> EmbeddedServer:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.local",
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "REDIS_URL": "",
        "SAWBONES_TICKER_SECONDS": ticker_seconds,
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("DJANGO_DEBUG", None)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput"], env=env, check=True, capture_output=True)
    seeded = subprocess.run(
        [*manage, "seed_demo"], env=env, check=True, capture_output=True, text=True
    )
    logins = dict(LOGIN_LINE.findall(seeded.stdout))
    port = _free_port()
    log = (tmp / "runserver.log").open("wb")
    process = subprocess.Popen(
        [*manage, "runserver", "--noreload", f"127.0.0.1:{port}"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urlopen(url + "/login/", timeout=2):  # noqa: S310 - our own local server
                break
        except URLError:
            time.sleep(0.2)
    else:
        process.terminate()
        raise RuntimeError("the embedded server did not start: see " + str(log.name))
    return EmbeddedServer(url=url, logins=logins, process=process)


def stop_embedded(server: EmbeddedServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
