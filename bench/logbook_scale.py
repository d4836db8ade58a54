"""Benchmark of a campaign's export, import and replay at scale (issue 39,
docs/performance.md, "Scale").

One PostgreSQL database of its own (``<name>_logbook``) holds two campaigns alike but for
the length of their log: N/10 entries and N (``--entries``, default 199,990: with the
characters, within the rows an import takes, ``rules.logbook.export.MAX_ROWS``). Each has
a referee, 5 characters made through the services (realistic sheets: the ruleset's
default with a level, hit dice and hit points) and a rename of each through the services
(a real entry, its summary and params); the rest of the log is copies of those renames in
SQL (``INSERT ... SELECT``, bench/pgtools.py's helpers), each character's versions and
clock going on, so the log replays clean. Renames roll no dice and the engine does not resolve
them: replay's figures are the log's reading and checking (sheet before against sheet
after, dice, owners), not the engine's work, which is the same per entry whatever N.

Each phase runs in a fresh process of its own (``--phase``), so that its peak resident
memory (VmHWM, /proc/self/status) is its own; that process reports its wall time, its
CPU and its PostgreSQL backend's, and its peak memory less what it held on starting
(Django loaded, connected):

* export: ``GET campaigns/{id}/export/`` as the referee through Django's test client, the
  answer written to a file as it comes (``streaming_content`` when it streams), never
  kept whole by the bench;
* import: ``campaign_import_file`` of that file (the importer the referee): a new
  campaign, the file read a row at a time (rules.logbook.reading);
* replay: ``replay_campaign`` of the campaign (as ``manage.py replay_check`` runs it),
  which must find no divergence.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sawbones .venv/bin/python \\
        bench/logbook_scale.py [--entries 199990] [--keep]

``--entries 20000`` runs in a minute or two.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from pgtools import _clone, _sql, _table, backend_cpu, backend_pid  # noqa: E402  # bench/pgtools.py

from campaigns.models import Campaign, Membership  # noqa: E402
from campaigns.services import campaign_create  # noqa: E402
from characters.models import Character  # noqa: E402
from rules.log.models import Resolution  # noqa: E402
from rules.logbook.export import MAX_ROWS  # noqa: E402
from rules.logbook.importing import campaign_import_file  # noqa: E402
from rules.logbook.replay import replay_campaign  # noqa: E402
from rules.play.editing import character_rename  # noqa: E402
from rules.play.services import character_create  # noqa: E402

CHARACTERS = 5
PHASES = ("export", "import", "replay")
USER = get_user_model()


def seed(entries: int, label: str) -> Campaign:
    """A campaign of ``entries`` log entries (module docstring), its referee
    ``bench-<label>``."""
    referee = USER.objects.create_user(username=f"bench-{label}", password="-")
    campaign = campaign_create(user=referee, name=f"Logbook {label}", ruleset="hit_dice")
    membership = Membership.objects.get(campaign=campaign, user=referee)
    for i in range(CHARACTERS):
        character = character_create(
            membership=membership,
            name=f"Hero {i + 1}",
            sheet={"level": 3 + i, "hit_dice": 3 + i, "hp": 12 + 5 * i},
        )
        character_rename(
            character_id=character.pk, actor=referee, name=f"Hero {i + 1} of the Marches"
        )
    # the creation and the rename are two of each character's entries; the rest copies
    # of the rename, the versions and the clock going on
    per = max(2, entries // CHARACTERS)
    log, characters = _table(Resolution), _table(Character)
    _clone(
        Resolution,
        f"{log} t, generate_series(1, {per - 2}) g",
        {"version": "t.version + g", "clock": "t.clock + g"},
        f"t.campaign_id = {campaign.pk} AND t.kind = 'edit'",
    )
    _sql(f"UPDATE {characters} SET version = {per} WHERE campaign_id = {campaign.pk}")
    _sql(f"ANALYZE {log}")
    return campaign


def vm_hwm() -> int:
    """This process's peak resident memory, in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def vm_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def phase(name: str, campaign_id: int, path: Path) -> dict[str, Any]:
    """Run one phase in this process (a fresh one): its costs."""
    campaign = Campaign.objects.get(pk=campaign_id)
    referee = campaign.created_by
    client = Client()
    client.force_login(referee)
    pid = backend_pid()
    start_rss = vm_rss()
    server, cpu, wall = backend_cpu(pid), time.process_time(), time.perf_counter()
    done: Any
    if name == "export":
        response = client.get(f"/api/v1/campaigns/{campaign_id}/export/")
        assert response.status_code == 200, response
        chunks = response.streaming_content if response.streaming else [response.content]  # type: ignore[attr-defined]
        size = 0
        with path.open("wb") as out:
            for chunk in chunks:
                size += len(chunk)
                out.write(chunk)
        del response, chunks
        done = f"{size / 2**20:.1f} MiB"
    elif name == "import":
        with path.open("rb") as data:
            imported = campaign_import_file(user=referee, file=data)
        done = f"{Resolution.objects.filter(campaign=imported).count():,} entries"
    else:
        report = replay_campaign(campaign)
        assert not report.divergences, [str(d) for d in report.divergences or []]
        done = f"{report.resolutions:,} entries replayed"
    return {
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "server": backend_cpu(pid) - server,
        "peak": vm_hwm(),
        "start": start_rss,
        "done": done,
    }


def run_phase(name: str, campaign: Campaign, path: Path, database: str) -> dict[str, Any]:
    """``name`` of ``campaign`` in a fresh process, on ``database``."""
    env = {**os.environ, "BENCH_LOGBOOK_DATABASE": database}
    answer = subprocess.run(
        [sys.executable, __file__, "--phase", name, "--campaign", str(campaign.pk), str(path)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(answer.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=MAX_ROWS - 2 * CHARACTERS)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    parser.add_argument("--phase", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--campaign", type=int, help=argparse.SUPPRESS)
    parser.add_argument("file", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:  # a phase's own process (run_phase)
        connection.settings_dict["NAME"] = os.environ["BENCH_LOGBOOK_DATABASE"]
        print(json.dumps(phase(args.phase, args.campaign, Path(args.file))))
        return
    if connection.vendor != "postgresql":
        sys.exit("the benchmark runs on its own PostgreSQL database: run it on PostgreSQL")
    base = connection.settings_dict["NAME"]
    name = f"{base}_logbook"
    connection.settings_dict.setdefault("TEST", {})["NAME"] = name
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        sizes = {"N/10": args.entries // 10, "N": args.entries}
        campaigns = {}
        for label, entries in sizes.items():
            start = time.perf_counter()
            campaigns[label] = seed(entries, label.replace("/", "-"))
            count = Resolution.objects.filter(campaign=campaigns[label]).count()
            print(f"{label}: {count:,} entries, seeded in {time.perf_counter() - start:.1f} s")
        connection.close()  # each phase's process opens its own
        print(
            f"{os.cpu_count()} CPUs; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        print(
            f"{'phase':<8}{'size':<6}{'wall s':>8}{'CPU s':>8}{'PG CPU s':>10}"
            f"{'peak MiB':>10}{'of which phase':>16}   done"
        )
        with tempfile.TemporaryDirectory() as folder:
            for label, campaign in campaigns.items():
                path = Path(folder) / f"export-{label.replace('/', '-')}.json"
                for name_ in PHASES:
                    r = run_phase(name_, campaign, path, name)
                    print(
                        f"{name_:<8}{label:<6}{r['wall']:>8.1f}{r['cpu']:>8.1f}"
                        f"{r['server']:>10.1f}{r['peak'] / 1024:>10.0f}"
                        f"{(r['peak'] - r['start']) / 1024:>16.0f}   {r['done']}"
                    )
    finally:
        connection.close()
        if args.keep:
            print(f"kept database {name}")
        else:
            connection.settings_dict["NAME"] = name
            connection.creation.destroy_test_db(base, verbosity=0)


if __name__ == "__main__":
    main()
