"""Benchmark of the exact odds (rules/engine/odds.py, issue "know the odds").

For every action of every registered ruleset with sample params on a sample sheet, the
time to compute its odds (p50 and p95 over repeated calls, after one warm-up call), beside
the time to resolve the same action once with the campaign's HMAC dice in the same run
(the baseline: what the action itself costs). The goal is p95 <= 50 ms for any action.

    .venv/bin/python bench/odds.py [--repeat 50]

Actions whose odds are not computed yet are listed as such.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
SHEETS: dict[str, Callable[[Ruleset], dict[str, Any]]] = {
    "hit_dice": lambda r: {**r.default_sheet(), "level": 3, "hit_dice": 3, "hp": 6},
    "warband": lambda r: {**r.default_sheet(), "warband": "Reds", "wounds": 3, "max_wounds": 3},
}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    context = Context(by_referee=True)
    print(f"{'ruleset':<18}{'action':<22}{'odds p50':>10}{'odds p95':>10}{'action':>10}  outcomes")
    worst = 0.0
    for ruleset in all_rulesets():
        make_sheet = SHEETS.get(ruleset.key)
        sheet = make_sheet(ruleset) if make_sheet else ruleset.default_sheet()
        if ruleset.key == "deckahedron":
            sheet = ruleset.new_sheet({}, Dice(HmacGenerator(b"bench")))
        for spec in ruleset.actions:
            params = SAMPLES.get(ruleset.key, {}).get(spec.key, {})
            try:
                odds = ruleset.odds(sheet, spec.key, params, context)
            except OddsUnavailable:
                print(f"{ruleset.key:<18}{spec.key:<22}{'not computed yet':>30}")
                continue
            except (RuleError, ActionBlocked) as error:
                print(f"{ruleset.key:<18}{spec.key:<22}  refused: {error}")
                continue
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                ruleset.odds(sheet, spec.key, params, context)
                times.append((time.perf_counter() - start) * 1000)
            generator = HmacGenerator(b"bench")
            actions = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                ruleset.resolve(sheet, spec.key, params, Dice(generator), context)
                actions.append((time.perf_counter() - start) * 1000)
            p95 = percentile(times, 0.95)
            worst = max(worst, p95)
            print(
                f"{ruleset.key:<18}{spec.key:<22}{statistics.median(times):>9.2f}"
                f"{p95:>10.2f}{statistics.median(actions):>10.2f}  {len(odds.outcomes)}"
            )
    print(f"\nworst p95: {worst:.2f} ms (goal: 50 ms)")


if __name__ == "__main__":
    main()
