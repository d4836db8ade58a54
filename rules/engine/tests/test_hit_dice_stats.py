"""Statistical check of the short-rest re-roll with fatigue (6.5, ruling HD-2).

Over many short rests resolved through the ruleset, the new hp must follow the exact
distribution of (HD + F)d6 keeping the lowest HD, as computed by icepool. The
generator is a fixed-seed ``SystemGenerator``, so the test is deterministic.

Goodness of fit: Pearson's chi-square, computed here (scipy is not installed), over
the outcomes, with outcomes whose expected count is below 5 merged into their
neighbour. The statistic is compared with the chi-square critical value at
significance 0.001 for the resulting degrees of freedom (table below, from the
standard chi-square quantile table). A correct re-roll fails this with probability
0.001 for a random seed; with the fixed seed it passes or fails the same way every
run. A wrong re-roll (keeping the highest, ignoring fatigue, one die too many) is
rejected with a statistic in the hundreds or more (checked below).
"""

from collections import Counter
from fractions import Fraction

import icepool
import pytest

from rules.engine.dice import Dice, SystemGenerator
from rules.engine.interface import Context
from rules.engine.rulesets.hit_dice import HitDice

RULES = HitDice()
REROLLS = 10000

# Upper 0.1% points of the chi-square distribution, by degrees of freedom.
CHI2_CRITICAL_0_001 = {
    1: 10.828,
    2: 13.816,
    3: 16.266,
    4: 18.467,
    5: 20.515,
    6: 22.458,
    7: 24.322,
    8: 26.124,
    9: 27.877,
    10: 29.588,
    11: 31.264,
    12: 32.909,
    13: 34.528,
    14: 36.123,
    15: 37.697,
    16: 39.252,
    17: 40.790,
    18: 42.312,
    19: 43.820,
    20: 45.315,
}


def exact_distribution(hit_dice: int, fatigue: int) -> dict[int, Fraction]:
    """P(hp = k) for (HD + F)d6 keep lowest HD, from icepool."""
    die = icepool.d6.pool(hit_dice + fatigue).lowest(hit_dice).sum()
    total = die.denominator()
    return {int(outcome): Fraction(quantity, total) for outcome, quantity in die.items()}


def merged_bins(
    probabilities: dict[int, Fraction], counts: Counter[int], n: int
) -> list[tuple[float, int]]:
    """(expected, observed) per bin, merging outcomes until each bin expects >= 5."""
    bins: list[tuple[float, int]] = []
    expected, observed = 0.0, 0
    for outcome in sorted(probabilities):
        expected += float(probabilities[outcome]) * n
        observed += counts.get(outcome, 0)
        if expected >= 5:
            bins.append((expected, observed))
            expected, observed = 0.0, 0
    if expected or observed:  # a short tail joins the last full bin
        last_expected, last_observed = bins.pop()
        bins.append((last_expected + expected, last_observed + observed))
    return bins


def chi_square(bins: list[tuple[float, int]]) -> float:
    return sum((observed - expected) ** 2 / expected for expected, observed in bins)


def short_rest_rerolls(hit_dice: int, fatigue: int, seed: int) -> Counter[int]:
    sheet = RULES.default_sheet()
    sheet.update(level=min(hit_dice, 20), hit_dice=hit_dice, hp=1, fatigue=fatigue)
    generator = SystemGenerator(seed)
    counts: Counter[int] = Counter()
    expression = f"{hit_dice + fatigue}d6kl{hit_dice}" if fatigue else f"{hit_dice}d6"
    for _ in range(REROLLS):
        result = RULES.resolve(sheet, "short_rest", {"reroll": True}, Dice(generator), Context())
        assert result.rolls[0].expression == expression
        assert result.sheet["fatigue"] == fatigue + 1
        counts[result.sheet["hp"]] += 1
    return counts


def test_icepool_distribution_matches_the_text_example():
    # 2 HD with 2 fatigue: 4d6 dropping the two highest (6.5). Lowest possible 2: the
    # two lowest of four dice are both 1 with P = 1 - P(at most one 1) = 171/1296.
    probabilities = exact_distribution(2, 2)
    assert probabilities[2] == Fraction(171, 1296)
    assert probabilities[12] == Fraction(1, 1296)
    assert sum(probabilities.values()) == 1
    assert min(probabilities) == 2 and max(probabilities) == 12


@pytest.mark.parametrize(
    ("hit_dice", "fatigue", "seed"),
    [(2, 2, 20240601), (3, 1, 7), (1, 3, 1234), (4, 0, 99)],
)
def test_short_rest_reroll_follows_the_exact_keep_lowest_distribution(hit_dice, fatigue, seed):
    counts = short_rest_rerolls(hit_dice, fatigue, seed)
    assert sum(counts.values()) == REROLLS
    probabilities = exact_distribution(hit_dice, fatigue)
    assert set(counts) <= set(probabilities)
    bins = merged_bins(probabilities, counts, REROLLS)
    degrees_of_freedom = len(bins) - 1
    statistic = chi_square(bins)
    assert statistic < CHI2_CRITICAL_0_001[degrees_of_freedom], (
        f"chi-square {statistic:.2f} with {degrees_of_freedom} df"
    )


def test_the_fit_rejects_a_reroll_that_ignores_fatigue():
    # Same data, wrong model (plain 2d6, no disadvantage dice): the test has power.
    counts = short_rest_rerolls(2, 2, 20240601)
    wrong = exact_distribution(2, 0)
    bins = merged_bins(wrong, counts, REROLLS)
    assert chi_square(bins) > 10 * CHI2_CRITICAL_0_001[len(bins) - 1]
