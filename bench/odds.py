"""Benchmark of the exact odds (rules/engine/odds.py, issue "know the odds").

Two measurements, each beside a baseline taken in the same run (the machine is shared,
so only the ratios travel):

* engine: for every action of every registered ruleset, with sample params and with its
  heaviest params (the most dice the schema allows), the time to compute its odds (p50
  and p95 over repeated calls, after one warm-up call), beside the time to resolve the
  same action once with the campaign's HMAC dice.
* server: the same odds asked through the API, ``POST /api/v1/characters/{id}/odds/``
  with a logged-in referee on a real database (its own, ``<name>_oddsbench``), the
  requests interleaved with the baseline ``GET /api/v1/characters/{id}/`` of the same
  character (the cheapest authenticated read).

The goal is p95 <= 50 ms for any action on the server.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sawbones .venv/bin/python bench/odds.py \
        [--repeat 50] [--engine-only]

Actions whose odds are not computed yet are listed as such.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from servers import still_wound  # bench/ is on the path of a bench script

from rules.engine.dice import Dice, HmacGenerator
from rules.engine.interface import (
    ActionBlocked,
    Context,
    OddsUnavailable,
    RuleError,
    Ruleset,
)
from rules.engine.registry import all_rulesets

# Sample params per (ruleset, action); an action not listed is tried with {}.
SAMPLES: dict[str, dict[str, dict[str, Any]]] = {
    "deckahedron": {
        "flip": {"attribute": "strength", "count": 3},
        "take_breather": {"attribute": "dexterity"},
        "lose_stamina": {"amount": 2},
    },
    "condition_monitor": {
        "damage": {"amount": 6, "kind": "lethal"},
        "heal": {"line": "/", "boxes": 1},
    },
    "warband": {
        "injury_check": {"attack_roll": 16, "attack": "ranged"},
        "injury_roll": {"modifiers": 1},
        "fall": {"height_inches": 4.5},
    },
    "hit_dice": {
        "damage": {"amount": 9},
        "bypass": {"damage": 3, "attacker_level": 2},
        "short_rest": {"reroll": True},
    },
    "old_school": {
        "damage": {"amount": 9},
        "heal": {"amount": 2},
        "ability_loss": {"ability": "constitution", "amount": 2},
        "save": {"category": "poison"},
        "expose_disease": {"disease": "Green River Fever"},
        "contract_disease": {"disease": "Green River Fever"},
        "fall": {"feet": 200},
        "search": {"squares": 2},
        "sleep": {"hours": 8},
        "set_supplies": {"food": False},
        "set_resting": {"resting": True},
        "magical_aging": {"years": 10},
    },
}
# The heaviest params: as many dice as the schema allows (labelled "max" in the table).
HEAVY: dict[str, dict[str, dict[str, Any]]] = {
    "deckahedron": {
        "flip": {"attribute": "strength", "count": 20},
        "lose_stamina": {"amount": 10, "reshuffle_first": True},
    },
    "condition_monitor": {"damage": {"amount": 30, "kind": "lethal", "soak_dice": 50}},
    "warband": {"fall": {"height_inches": 1000}},
    "hit_dice": {"damage": {"amount": 10000}},
    "old_school": {
        "damage": {"amount": 1000},
        "fall": {"feet": 10000},
        "poison": {"save": False, "effect": {"type": "damage", "dice": "20d6"}},
        "magical_aging": {"years": 1000},
    },
}
_WOUND = still_wound("A deep gash")
# Actions that need the sheet in another state: fields set on it for that action only.
STATES: dict[str, dict[str, dict[str, Any]]] = {
    "hit_dice": {
        action: {"state": "collapsed", "wounds": [_WOUND], "major_wound_marks": 1}
        for action in ("treat_wound", "describe_wound", "die_of_wounds", "stand_up")
    },
    "deckahedron": {"clear_incapacitation": {"incapacitated": True}},
    "warband": {"ledge_check": {"injury": "dazed"}},
}
# Or reached by taking these actions first (with the dice of the bench's seed).
STEPS: dict[str, dict[str, list[tuple[str, dict[str, Any]]]]] = {
    "condition_monitor": {
        "heal": [("damage", {"amount": 1, "kind": "normal", "soak_dice": 0})],
        "medical_care": [("damage", {"amount": 4, "kind": "normal", "soak_dice": 0})],
        "stabilize": [("damage", {"amount": 4, "kind": "lethal", "soak_dice": 0})],
    },
    "old_school": {"cure_disease": [("contract_disease", {"disease": "Green River Fever"})]},
    "warband": {"roll_scars": []},
}
SCARS = {"dice": "2d6", "rows": [{"min": 2, "max": 12, "scar": "A scar"}]}
STATES["warband"]["roll_scars"] = {"injury": "incapacitated", "wounds": 0}
SAMPLES["hit_dice"] |= {
    "treat_wound": {"wound": 1},
    "describe_wound": {"wound": 1, "description": "A deep gash"},
}
SAMPLES["warband"]["ledge_check"] = {"drop_inches": 6}
SAMPLES["old_school"]["cure_disease"] = {"disease": "Green River Fever"}
# Initial sheets (the rest from the ruleset's defaults).
INITIAL: dict[str, dict[str, Any]] = {
    "hit_dice": {"level": 20, "hit_dice": 20, "hp": 6},
    "warband": {"warband": "Reds", "wounds": 3, "max_wounds": 3},
    "old_school": {"age": 60},
}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def prepared(ruleset: Ruleset, fresh: dict[str, Any], action: str) -> dict[str, Any]:
    """The sheet an action is measured on: ``fresh``, in the state it needs."""
    sheet = {**fresh, **STATES.get(ruleset.key, {}).get(action, {})}
    for step, params in STEPS.get(ruleset.key, {}).get(action, []):
        dice = Dice(HmacGenerator(b"bench-steps"))
        sheet = ruleset.resolve(sheet, step, params, dice, Context(by_referee=True)).sheet
    return sheet


def cases(ruleset: Ruleset) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(label, action, params) for each action: its sample, then its heaviest params."""
    for spec in ruleset.actions:
        yield spec.key, spec.key, SAMPLES.get(ruleset.key, {}).get(spec.key, {})
        heavy = HEAVY.get(ruleset.key, {}).get(spec.key)
        if heavy is not None:
            yield f"{spec.key} (max)", spec.key, heavy


def timed(call: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times


def engine(repeat: int) -> float:
    context = Context(by_referee=True, tables={"scars": SCARS})
    print("engine: the pure odds beside one resolution of the same action (ms)")
    print(f"{'ruleset':<18}{'action':<24}{'odds p50':>10}{'odds p95':>10}{'action':>10}  outcomes")
    worst = 0.0
    for ruleset in all_rulesets():
        fresh = ruleset.new_sheet(INITIAL.get(ruleset.key, {}), Dice(HmacGenerator(b"bench")))
        for label, action, params in cases(ruleset):
            sheet = prepared(ruleset, fresh, action)
            try:
                odds = ruleset.odds(sheet, action, params, context)
            except OddsUnavailable:
                print(f"{ruleset.key:<18}{label:<24}{'not computed yet':>30}")
                continue
            except (RuleError, ActionBlocked) as error:
                print(f"{ruleset.key:<18}{label:<24}  refused: {str(error)[:60]}")
                continue
            times = timed(lambda: ruleset.odds(sheet, action, params, context), repeat)  # noqa: B023
            generator = HmacGenerator(b"bench")
            actions = timed(
                lambda: ruleset.resolve(sheet, action, params, Dice(generator), context),  # noqa: B023
                repeat,
            )
            p95 = percentile(times, 0.95)
            worst = max(worst, p95)
            print(
                f"{ruleset.key:<18}{label:<24}{statistics.median(times):>10.2f}"
                f"{p95:>10.2f}{statistics.median(actions):>10.2f}  {len(odds.outcomes)}"
            )
    print(f"engine worst p95: {worst:.2f} ms\n")
    return worst


def bench_character(ruleset: Ruleset, referee: Any) -> Any:
    """A character of ``ruleset`` in a campaign of its own refereed by ``referee``."""
    from campaigns.models import Membership
    from campaigns.services import campaign_create
    from rules.play.services import campaign_table_set, character_create

    campaign = campaign_create(user=referee, name=f"Bench {ruleset.key}", ruleset=ruleset.key)
    membership = Membership.objects.get(campaign=campaign, user=referee)
    if ruleset.key == "warband":
        campaign_table_set(campaign=campaign, key="scars", data=SCARS)
    initial = {**ruleset.example_initial, **INITIAL.get(ruleset.key, {})}
    character = character_create(membership=membership, name="Bench", sheet=initial)
    character.refresh_from_db()
    return character


def time_case(
    client: Any, url: str, body: dict[str, Any], repeat: int
) -> tuple[list[float], list[float]] | str:
    """``repeat`` odds requests, each followed by a GET of the character, in ms; or why
    the odds were refused (nothing to time)."""
    from django.core.cache import cache

    def ask() -> tuple[Any, float]:
        cache.clear()  # the request limits count in the cache: not what we time
        start = time.perf_counter()
        response = client.post(f"{url}odds/", body, content_type="application/json")
        return response, (time.perf_counter() - start) * 1000

    def read() -> float:
        cache.clear()
        start = time.perf_counter()
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        return (time.perf_counter() - start) * 1000

    response, _ = ask()  # warm-up, and is there anything to time?
    if response.status_code != 200:
        return f"{response.status_code}: {str(response.json())[:60]}"
    read()
    odds_times, read_times = [], []
    for _ in range(repeat):  # interleaved: both see the same load
        odds_times.append(ask()[1])
        read_times.append(read())
    return odds_times, read_times


def server(repeat: int) -> float:
    """The odds through the API on a real database, beside a plain GET of the character."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from characters.models import Character

    connection.settings_dict.setdefault("TEST", {})
    connection.settings_dict["TEST"]["NAME"] = f"{connection.settings_dict['NAME']}_oddsbench"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    worst = 0.0
    extras: list[float] = []
    try:
        referee = get_user_model().objects.create_user(username="bench-referee", password="-")
        client = Client()
        client.force_login(referee)
        print(f"server ({connection.vendor}): POST odds/ beside GET of the character (ms)")
        print(
            f"{'ruleset':<18}{'action':<24}{'odds p50':>10}{'odds p95':>10}"
            f"{'GET p50':>10}{'GET p95':>10}{'p95 ratio':>10}{'pair +p50':>10}"
        )
        for ruleset in all_rulesets():
            character = bench_character(ruleset, referee)
            url = f"/api/v1/characters/{character.pk}/"
            for label, action, params in cases(ruleset):
                sheet = prepared(ruleset, character.sheet, action)
                Character.objects.filter(pk=character.pk).update(sheet=sheet)
                timed = time_case(client, url, {"action": action, "params": params}, repeat)
                if isinstance(timed, str):
                    print(f"{ruleset.key:<18}{label:<24}  {timed}")
                    continue
                odds_times, read_times = timed
                p95, base = percentile(odds_times, 0.95), percentile(read_times, 0.95)
                worst = max(worst, p95)
                # What the odds add to a request: the median of each pair's difference
                # (an odds request and the GET right after it see the same load).
                pairs = zip(odds_times, read_times, strict=True)
                extra = statistics.median(o - r for o, r in pairs)
                extras.append(extra)
                print(
                    f"{ruleset.key:<18}{label:<24}{statistics.median(odds_times):>10.2f}{p95:>10.2f}"
                    f"{statistics.median(read_times):>10.2f}{base:>10.2f}{p95 / base:>10.2f}"
                    f"{extra:>+10.2f}"
                )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    print(f"server worst p95: {worst:.2f} ms (goal: 50 ms)")
    print(f"the most the odds add to a request (median of pairs): {max(extras):+.2f} ms")
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--engine-only", action="store_true", help="skip the server part")
    args = parser.parse_args()
    engine(args.repeat)
    if not args.engine_only:
        server(args.repeat)


if __name__ == "__main__":
    main()
