"""Drill: back up with pg_dump, drop the database, restore (scripts/backup and
scripts/restore, docs/operations.md). The demo (seed_demo) after a fortnight's advance: after
the restore every row is as it was, every character's log replays to its sheet, every
die verifies against its seed, and the app carries on writing (its sequences restored).
"""

from __future__ import annotations

import os
import re
import sys

import pytest

from tests.drills.stack import ROOT

pytestmark = pytest.mark.drill

FORTNIGHT = 14 * 24 * 60


def replayed(output: str) -> tuple[int, int, int]:
    """Campaigns, rolls checked and divergences in replay_check's output."""
    figures = [
        (int(found[1]), int(found[2]))
        for line in output.splitlines()
        if (found := re.search(r"(\d+) rolls checked, (\d+) divergences$", line))
    ]
    return len(figures), sum(r for r, _ in figures), sum(d for _, d in figures)


def test_a_backup_restores_whole_and_replays(drill):
    # the demo in embedded mode's settings (seed_demo refuses production), on PostgreSQL
    app = drill.app(DJANGO_SETTINGS_MODULE="config.settings.local", REDIS_URL="")
    app.env["PATH"] = f"{drill.postgres.bin}{os.pathsep}{app.env['PATH']}"
    app.env["PYTHON"] = sys.executable
    app.manage("seed_demo")
    assert set(app.tool("advance_all", str(FORTNIGHT))["jobs"].values()) == {"done"}
    campaigns, rolls, divergences = replayed(app.manage("replay_check"))
    assert (campaigns >= 5, rolls > 0, divergences) == (True, True, 0)
    before = app.tool("fingerprint")

    # when it is backed up, and the database is lost
    dump = app.base / "sawbones.dump"
    url = drill.postgres.url(app.database)
    app.run(str(ROOT / "scripts" / "backup"), url, str(dump))
    drill.postgres.psql(f"DROP DATABASE {app.database} WITH (FORCE)")
    drill.postgres.psql(f"CREATE DATABASE {app.database}")

    # then the restore brings every row back, and its own check passes
    output = app.run(str(ROOT / "scripts" / "restore"), str(dump), url)
    assert "restored from" in output
    assert replayed(output) == (campaigns, rolls, 0)
    assert app.tool("fingerprint") == before

    # and the app carries on: new resolutions, new ids, still replaying
    assert set(app.tool("advance_all", str(24 * 60))["jobs"].values()) == {"done"}
    after_campaigns, after_rolls, after_divergences = replayed(app.manage("replay_check"))
    assert (after_campaigns, after_divergences) == (campaigns, 0)
    assert after_rolls >= rolls
    print(
        f"backup drill: {before['resolutions'][0]} resolutions, {rolls} rolls restored and "
        f"verified, {campaigns} campaigns replayed, 0 divergences, rows identical"
    )
