"""The soak pool's distribution (ruling CM-1), exactly.

Every possible roll of the pool is fed to the ruleset through a scripted generator, so
each outcome of the dice is counted once: the number of soak hits, and the net damage
and wound they lead to, must equal icepool's distribution of "N dice, each a hit on T
or more" (a binomial, also checked against its closed formula) as exact fractions.
A sample through the campaign's HMAC generator then checks the dice the server really
draws follow it too (Pearson's chi-square at significance 0.001, as for hit dice).
"""

from collections import Counter
from fractions import Fraction
from itertools import product
from math import comb

import icepool
import pytest

from rules.engine.dice import Dice, HmacGenerator, ScriptedGenerator
from rules.engine.interface import Context
from rules.engine.rulesets.condition_monitor import ConditionMonitor, wound_row
from rules.engine.tests.test_hit_dice_stats import CHI2_CRITICAL_0_001, chi_square, merged_bins

RULES = ConditionMonitor()


def hits_distribution(pool: int, size: int, threshold: int) -> dict[int, Fraction]:
    """P(k hits) for ``pool`` d``size`` hitting on ``threshold`` or more, from icepool."""
    hits = pool @ (icepool.d(size) >= threshold)
    total = hits.denominator()
    return {int(k): Fraction(quantity, total) for k, quantity in hits.items()}


def soak(pool: int, amount: int, faces: tuple[int, ...], options: dict[str, int]) -> dict:
    sheet = RULES.new_sheet({"strength": pool}, Dice(ScriptedGenerator([])))
    generator = ScriptedGenerator(faces)
    result = RULES.resolve(
        sheet,
        "damage",
        {"amount": amount, "kind": "lethal"},
        Dice(generator),
        Context(options=options),
    )
    assert generator.remaining == 0
    (roll,) = result.rolls
    assert roll.dice == faces and roll.total == result.outcome["hits"]
    return dict(result.outcome)


@pytest.mark.parametrize(
    ("pool", "size", "threshold"),
    [(1, 6, 5), (2, 6, 5), (4, 6, 5), (3, 10, 8), (4, 4, 4), (2, 20, 11)],
)
def test_cm1_every_roll_of_the_pool_gives_the_exact_binomial_distribution(pool, size, threshold):
    options = {"soak_die_size": size, "soak_hit_threshold": threshold}
    amount = 6
    hits: Counter[int] = Counter()
    wounds: Counter[str] = Counter()
    for faces in product(range(1, size + 1), repeat=pool):
        outcome = soak(pool, amount, faces, options)
        hits[outcome["hits"]] += 1
        wounds[outcome["wound"] or "none"] += 1
    rolls = size**pool
    observed = {k: Fraction(n, rolls) for k, n in hits.items()}
    expected = hits_distribution(pool, size, threshold)
    assert observed == {k: p for k, p in expected.items() if p}
    p = Fraction(size - threshold + 1, size)
    assert expected == {k: comb(pool, k) * p**k * (1 - p) ** (pool - k) for k in range(pool + 1)}
    # The wound follows from the hits by the net damage table (CM-2).
    by_wound: Counter[str] = Counter()
    for k, p_k in expected.items():
        by_wound[wound_name(amount - k)] += int(p_k * rolls)
    assert wounds == by_wound
    # The odds the ruleset gives before the roll are exactly these (CM-1, CM-2).
    sheet = RULES.new_sheet({"strength": pool}, Dice(ScriptedGenerator([])))
    odds = RULES.odds(
        sheet, "damage", {"amount": amount, "kind": "lethal"}, Context(options=options)
    )
    assert {o.key: o.probability for o in odds.outcomes} == {
        str(name): Fraction(n, rolls) for name, n in wounds.items()
    }


def wound_name(net: int) -> str:
    if net <= 0:
        return "none"
    row = wound_row(net, 8)
    return "death" if row is None else row.name


def test_cm1_the_hmac_dice_follow_the_binomial():
    pool, draws = 8, 4000
    sheet = RULES.new_sheet({"strength": pool}, Dice(ScriptedGenerator([])))
    generator = HmacGenerator(b"condition monitor soak", counter=0)
    counts: Counter[int] = Counter()
    for _ in range(draws):
        result = RULES.resolve(
            sheet, "damage", {"amount": 1, "kind": "normal"}, Dice(generator), Context()
        )
        counts[result.outcome["hits"]] += 1
    expected = hits_distribution(pool, 6, 5)
    bins = merged_bins(expected, counts, draws)
    statistic = chi_square(bins)
    assert statistic < CHI2_CRITICAL_0_001[len(bins) - 1], f"chi-square {statistic:.2f}"
    # The same data against a wrong threshold (hits on 4+) is rejected: the test has power.
    wrong = merged_bins(hits_distribution(pool, 6, 4), counts, draws)
    assert chi_square(wrong) > 10 * CHI2_CRITICAL_0_001[len(wrong) - 1]
