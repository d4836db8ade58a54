#!/usr/bin/env python3
"""Check every die of a Sawbones campaign yourself, without trusting the server.

Standard library only: copy this one file anywhere. It follows the algorithm written
in docs/dice.md, independently of the server's code.

    # the export, as a member of the campaign (API token or a saved page)
    curl -H "Authorization: Token $TOKEN" \\
        https://sawbones.example/api/v1/campaigns/7/dice/export/ > export.json
    python3 verify_dice.py export.json

It checks every resolution whose dice came from a seed that has been revealed: that
the seed matches the commitment published before any of its dice were drawn, and that
each die of each roll is what the seed gives at that counter. Resolutions whose seed
is still secret, or that hold rolls still hidden from you, are counted and skipped.

A seed is revealed only when none of its draws still matters (docs/dice.md, "Hidden
rolls"): at each rotation every Deckahedron deck is shuffled again from the new seed, a
resolution of its own (action ``reseal``). The script counts those and checks them like
any other roll once their seed is revealed in turn; it also counts the hidden rolls of a
revealed seed that are still withheld from you and were drawn again since (a deck's old
order, no longer in play).
Exit status: 0 when nothing failed, 1 when a die or a commitment does not match, 2 for
a file it cannot read.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import re
import sys
from typing import Any

EXPRESSION = re.compile(r"^(\d*)d(\d+)(?:k[hl]\d+)?(?:[+-]\d+)?$")
SHUFFLE = re.compile(r"^shuffle\((\d+)\)$")


class Stream:
    """The campaign's dice stream for one seed, from a counter (docs/dice.md)."""

    def __init__(self, seed: bytes, counter: int) -> None:
        self.seed = seed
        self.counter = counter

    def block(self) -> int:
        message = self.counter.to_bytes(8, "big")
        digest = hmac.new(self.seed, message, hashlib.sha256).digest()
        self.counter += 1
        return int.from_bytes(digest[:8], "big")

    def die(self, sides: int) -> int:
        """A uniform face 1..sides: values at or above the last whole multiple are redrawn."""
        limit = 2**64 - (2**64 % sides)
        while True:
            value = self.block()
            if value < limit:
                return value % sides + 1


def die_sizes(roll: dict[str, Any]) -> list[int]:
    """The size of each die drawn for a roll, in order: its ``sizes``, or for a roll
    logged before rolls carried them, read from its expression."""
    if isinstance(roll.get("sizes"), list):
        return [int(size) for size in roll["sizes"]]
    text = str(roll["expression"]).replace(" ", "")
    shuffle = SHUFFLE.match(text)
    if shuffle:  # Fisher-Yates: one die of each size n, n-1, ..., 2
        return list(range(int(shuffle.group(1)), 1, -1))
    match = EXPRESSION.match(text)
    if not match:
        raise ValueError(f"not a dice expression: {roll['expression']!r}")
    return [int(match.group(2))] * int(match.group(1) or 1)


def seed_for(counter: int, seeds: list[dict[str, Any]]) -> dict[str, Any] | None:
    for period in seeds:
        last = period.get("last_counter")
        if last is not None and period["first_counter"] <= counter <= last:
            return period
    return None


def verify(export: dict[str, Any]) -> dict[str, Any]:
    report: dict[str, Any] = {
        "checked": 0,
        "no_dice": 0,
        "secret_seed": 0,
        "withheld": 0,
        "reseals": 0,
        "drawn_again": 0,
        "failures": [],
    }
    seeds = export["seeds"]
    # Where each character's deck was last shuffled again at a rotation (docs/dice.md).
    resealed_at: dict[Any, int] = {}
    for resolution in export["resolutions"]:
        if resolution.get("action") == "reseal":
            report["reseals"] += 1
            character = resolution.get("character")
            start = resolution["dice_counter_start"]
            resealed_at[character] = max(resealed_at.get(character, start), start)
    for period in seeds:
        if period.get("seed") is None:
            continue
        commitment = hashlib.sha256(bytes.fromhex(period["seed"])).hexdigest()
        if commitment != period["commitment"]:
            report["failures"].append(
                f"the seed from counter {period['first_counter']} does not match its commitment"
            )
    for resolution in export["resolutions"]:
        start, end = resolution["dice_counter_start"], resolution["dice_counter_end"]
        if start == end:
            report["no_dice"] += 1
            continue
        if resolution.get("withheld_rolls"):
            report["withheld"] += 1
            if resealed_at.get(resolution.get("character"), -1) >= end:
                report["drawn_again"] += 1  # an order no longer in play
            continue
        period = seed_for(start, seeds)
        if period is None or period.get("seed") is None:
            report["secret_seed"] += 1
            continue
        stream = Stream(bytes.fromhex(period["seed"]), start)
        for roll in resolution["rolls"]:
            faces = [stream.die(sides) for sides in die_sizes(roll)]
            if faces != list(roll["dice"]):
                report["failures"].append(
                    f"resolution {resolution['id']}, roll {roll['label']!r}: recorded "
                    f"{roll['dice']}, the seed gives {faces}"
                )
                break
        else:
            if stream.counter != end:
                report["failures"].append(
                    f"resolution {resolution['id']}: its rolls end at counter {stream.counter}, "
                    f"the log says {end}"
                )
                continue
            report["checked"] += 1
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export", help="the JSON of GET campaigns/{id}/dice/export/")
    args = parser.parse_args(argv)
    try:
        with open(args.export, encoding="utf-8") as handle:
            export = json.load(handle)
        report = verify(export)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"cannot read {args.export}: {error}", file=sys.stderr)
        return 2
    print(
        f"{report['checked']} resolutions checked, {report['no_dice']} without dice, "
        f"{report['secret_seed']} with a seed not yet revealed, "
        f"{report['withheld']} with rolls hidden from you "
        f"({report['drawn_again']} of them a deck's order shuffled again since), "
        f"{report['reseals']} decks shuffled again at a rotation"
    )
    for failure in report["failures"]:
        print(f"MISMATCH: {failure}")
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
