"""PostgreSQL's CPU per statement of an action on a new connection and on a kept one
(issue 39, goal 1 at ``CONN_MAX_AGE=0``; docs/performance.md "A new connection's first
action").

A hit_dice ``long_rest`` by a player (the rest that crosses nothing of
bench/actions.py), ``--actions`` times after five to warm up, each on a connection of
its own ("cold": a backend that reads its catalogs and plans its key checks anew) and
then all on one ("warm"). The backend's CPU per statement is read from
``/proc/<pid>/schedstat`` (bench/statement_cpu.py; the server must run on this
machine), after the connection's start, which the GET pays too. Production settings on
PostgreSQL, in a database of its own (``<name>_cold``, made anew and dropped):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sawbones \\
        .venv/bin/python bench/cold_action.py [--actions 60]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "x" * 60)  # a bench's own, not a secret
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "127.0.0.1")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from statement_cpu import StatementMeter  # noqa: E402

from campaigns.models import Membership, Role  # noqa: E402
from campaigns.services import campaign_create  # noqa: E402
from rules.play.services import character_create, resolution_create_action  # noqa: E402

WARM_UP = 5


def measure(character_id: int, player: object, actions: int, *, cold: bool) -> None:
    per_statement: dict[str, float] = defaultdict(float)
    total = 0.0
    for n in range(WARM_UP + actions):
        if cold:
            connection.close()  # the next statement opens a new one
        meter = StatementMeter()  # its first statement reads the new backend's pid
        with meter.measuring():
            resolution_create_action(
                character_id=character_id,
                actor=player,
                by_referee=False,
                action="long_rest",
                params={},
            )
        meter.side.close()
        if n >= WARM_UP:
            total += meter.total_cpu
            for name, cpu in meter.cpu.items():
                per_statement[name] += cpu
    label = "new connection each" if cold else "one connection"
    print(f"{label}: {total / actions * 1000:.2f} ms of PostgreSQL's CPU per action")
    for name in sorted(per_statement, key=per_statement.__getitem__, reverse=True)[:6]:
        print(f"  {per_statement[name] / actions * 1000:6.2f} ms  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=60)
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("run it on PostgreSQL (DATABASE_URL)")
    connection.settings_dict.setdefault("TEST", {})
    connection.settings_dict["TEST"]["NAME"] = f"{connection.settings_dict['NAME']}_cold"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        users = get_user_model().objects
        referee = users.create_user(username="bench-referee", password="-")
        campaign = campaign_create(user=referee, name="Cold", ruleset="hit_dice")
        player = users.create_user(username="bench-player", password="-")
        membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
        hero = character_create(membership=membership, name="Hero", sheet={"level": 3, "hp": 5})
        measure(hero.pk, player, args.actions, cold=False)
        measure(hero.pk, player, args.actions, cold=True)
    finally:
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
