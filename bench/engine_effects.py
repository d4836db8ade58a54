"""Micro-benchmark of the rules engine's cost per scheduled effect (issue 39, goal 3).

The effects ``bench/clock_advance.py`` applies, without Django or a database: 500
old_school characters with Green River Fever (ruling OS-6: a save vs poison every four
hours for three days after a week's incubation) and their daily sleep windows (OS-8,
not tracked), advanced past the whole infection. Each effect is applied as the clock's
batch applies it (``rules.clock.batch``): ``ruleset.apply_effect`` on the sheet as it
comes back from the database (a JSON round trip, outside the timing), then
``ruleset.status`` of the sheets before and after (the batch's report). Printed: the
microseconds per effect by kind, and a digest of everything the engine answered (the
sheets, the summaries' message data, the rolls, the effects scheduled and cancelled,
the outcomes): two versions of the engine that answer alike print the same digest.

    .venv/bin/python bench/engine_effects.py [--characters 500] [--rounds 3] [--profile 30]

The best of ``--rounds`` timings is printed (the others waited on the machine).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import heapq
import json
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.engine.dice import Dice, HmacGenerator
from rules.engine.interface import Context, Result
from rules.engine.registry import get_ruleset
from rules.engine.words import Message

DISEASE = "Green River Fever"
DAY = 24 * 60
ADVANCE = 7 * DAY + 3 * DAY + 60  # incubation, infection, and an hour past the last save
OPTIONS = {"track_sleep": False}  # the patients rest in bed (bench/clock_advance.py)

# One effect to apply: (due minute, order scheduled, character, kind, payload).
Due = tuple[int, int, int, str, dict[str, Any]]


def _said(text: str) -> Any:
    return text.data() if isinstance(text, Message) else text


def _digest_of(result: Result) -> bytes:
    answer = {
        "sheet": result.sheet,
        "summary": [str(result.summary), _said(result.summary)],
        "effects": [[e.kind, e.due_in, e.payload, e.key, e.hidden] for e in result.effects],
        "cancel": list(result.cancel_effects),
        "outcome": result.outcome,
        "rolls": [[r.expression, str(r.label), r.dice, r.total] for r in result.rolls],
        "elapsed": result.elapsed_minutes,
    }
    return json.dumps(answer, sort_keys=True, default=_said).encode()


class Ward:
    """The characters, their sheets as stored (JSON text) and the effects due, in order."""

    def __init__(self, characters: int) -> None:
        self.ruleset = get_ruleset("old_school")
        self.options = {**self.ruleset.options, **OPTIONS}
        self.dice = Dice(HmacGenerator(b"engine-effects"))
        self.sheets: dict[int, str] = {}
        self.queue: list[Due] = []
        self.seq = 0
        for character in range(characters):
            sheet = self.ruleset.new_sheet({"intelligence": 18, "resting": True}, self.dice)
            self._schedule(character, 0, self.ruleset.initial_effects(sheet))
            result = self.ruleset.resolve(
                sheet,
                "contract_disease",
                {"disease": DISEASE, "hidden": False},
                self.dice,
                self._context(0),
            )
            self.take(character, 0, result)

    def _context(self, clock: int) -> Context:
        return Context(clock=clock, options=self.options, by_referee=True, tables={})

    def _schedule(self, character: int, now: int, effects: Any) -> None:
        for effect in effects:
            self.seq += 1
            due = (now + effect.due_in, self.seq, character, effect.kind, effect.payload)
            heapq.heappush(self.queue, due)

    def take(self, character: int, now: int, result: Result) -> None:
        self.sheets[character] = json.dumps(result.sheet)
        self._schedule(character, now, result.effects)  # none is cancelled in this ward

    def run(self) -> tuple[dict[str, list[float]], str]:
        """Apply every effect due in the advance: seconds per effect by kind, the digest."""
        seconds: dict[str, list[float]] = defaultdict(list)
        digest = hashlib.sha256()
        ruleset, clock = self.ruleset, time.perf_counter
        while self.queue and self.queue[0][0] <= ADVANCE:
            due, _, character, kind, payload = heapq.heappop(self.queue)
            sheet = json.loads(self.sheets[character])  # as the batch reads it
            stored = json.loads(json.dumps(payload))
            context = self._context(due)
            start = clock()
            result = ruleset.apply_effect(sheet, kind, stored, self.dice, context)
            before, after = ruleset.status(sheet), ruleset.status(result.sheet)
            seconds[kind].append(clock() - start)
            digest.update(_digest_of(result) + f"{before}|{after}".encode())
            self.take(character, due, result)
        return seconds, digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--characters", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    args = parser.parse_args()
    best: dict[str, float] = {}
    counts: dict[str, int] = {}
    digests = set()
    for _ in range(args.rounds):
        ward = Ward(args.characters)
        profiler = cProfile.Profile() if args.profile else None
        if profiler:
            profiler.enable()
        seconds, digest = ward.run()
        if profiler:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)
        digests.add(digest)
        for kind, times in seconds.items():
            best[kind] = min(best.get(kind, float("inf")), sum(times))
            counts[kind] = len(times)
    total = sum(counts.values())
    print(f"{total} effects for {args.characters} characters, best of {args.rounds} rounds")
    print(f"{'kind':<16}{'effects':>9}{'µs/effect':>12}{'total s':>10}")
    for kind in sorted(best):
        each = best[kind] / counts[kind] * 1e6
        print(f"{kind:<16}{counts[kind]:>9,}{each:>12.1f}{best[kind]:>10.3f}")
    whole = sum(best.values())
    print(f"{'all':<16}{total:>9,}{whole / total * 1e6:>12.1f}{whole:>10.3f}")
    print("digest", *sorted(digests))


if __name__ == "__main__":
    main()
