"""Exact odds before the roll (rules/engine/odds.py, Ruleset.odds).

Hand-computed fractions for a few cases, then the real action against its odds: over
many seeded resolutions the outcomes seen fit the odds (chi-square).
"""

from __future__ import annotations

import copy
from collections import Counter
from fractions import Fraction
from typing import Any, cast

import icepool
import pytest

from rules.engine.dice import Dice, HmacGenerator
from rules.engine.interface import ActionBlocked, Context, OddsUnavailable, Result, RuleError
from rules.engine.odds import (
    Odds,
    Outcome,
    die_outcomes,
    expression_die,
    lowest_of,
    successes,
    sum_of,
)
from rules.engine.registry import get_ruleset
from rules.engine.rulesets.old_school.ruleset import OldSchool

HIT_DICE = get_ruleset("hit_dice")


def hd_sheet(**fields) -> dict:
    sheet = HIT_DICE.default_sheet()
    sheet.update({"level": 2, "hit_dice": 2, "hp": 5, **fields})
    return sheet


def fractions(odds: Odds) -> dict[str, Fraction]:
    return {o.key: o.probability for o in odds.outcomes}


# -- the Odds value ---------------------------------------------------------------------
def test_odds_must_add_up_to_exactly_one():
    with pytest.raises(ValueError, match="add up"):
        Odds("x", (Outcome("a", "A", Fraction(1, 3)), Outcome("b", "B", Fraction(1, 3))))


def test_odds_refuse_a_repeated_key():
    with pytest.raises(ValueError, match="repeat"):
        Odds("x", (Outcome("a", "A", Fraction(1, 2)), Outcome("a", "A", Fraction(1, 2))))


def test_fractions_are_exact_strings():
    odds = Odds("x", (Outcome("a", "A", Fraction(7, 20)), Outcome("b", "B", Fraction(13, 20))))
    assert [o["fraction"] for o in odds.as_dict()["outcomes"]] == ["7/20", "13/20"]
    assert odds.as_dict()["outcomes"][0]["probability"] == pytest.approx(0.35)


# -- hit_dice: damage and bypass (rulings HD-4, HD-5, HD-8, G-5) ---------------------------
def test_hd4_overflow_gives_four_outcomes_of_two_saves():
    # 8 damage on 5 hp: overflow 3, DC 23; d20+10 >= 23 on 13-20: 8/20 = 2/5 per save.
    odds = HIT_DICE.odds(hd_sheet(), "damage", {"amount": 8}, Context())
    assert fractions(odds) == {
        "strength:pass,will:pass": Fraction(4, 25),
        "strength:pass,will:fail": Fraction(6, 25),
        "strength:fail,will:pass": Fraction(6, 25),
        "strength:fail,will:fail": Fraction(9, 25),
    }
    assert odds.outcomes[0].label == "Minor wound, keeps standing"
    assert odds.outcomes[3].label == "Chooses death or a major wound, collapses"
    assert "DC 23" in " ".join(odds.notes)


def test_hd4_the_save_modifiers_on_the_sheet_count():
    # Strength +14 passes DC 23 on 9-20 (12/20); will +3 on 20 only (1/20).
    odds = HIT_DICE.odds(
        hd_sheet(strength_save=14, will_save=3), "damage", {"amount": 8}, Context()
    )
    assert fractions(odds)["strength:pass,will:pass"] == Fraction(12, 20) * Fraction(1, 20)


def test_hd4_giving_up_fails_the_will_save_for_sure():
    odds = HIT_DICE.odds(hd_sheet(), "damage", {"amount": 8, "give_up": True}, Context())
    assert fractions(odds) == {
        "strength:pass,will:given_up": Fraction(2, 5),
        "strength:fail,will:given_up": Fraction(3, 5),
    }


def test_hd4_damage_that_hp_absorb_is_certain():
    odds = HIT_DICE.odds(hd_sheet(), "damage", {"amount": 5}, Context())
    assert fractions(odds) == {"no_injury": Fraction(1)}


def test_hd5_enough_marks_make_a_failed_strength_save_death():
    odds = HIT_DICE.odds(hd_sheet(major_wound_marks=2), "damage", {"amount": 8}, Context())
    assert odds.outcomes[2].label == "Dies"
    assert odds.outcomes[3].label == "Dies"


def test_an_impossible_save_has_no_passing_outcome():
    # DC 20 + 100: no d20 + 10 reaches it; outcomes of probability 0 are left out.
    odds = HIT_DICE.odds(hd_sheet(), "damage", {"amount": 105}, Context())
    assert fractions(odds) == {"strength:fail,will:fail": Fraction(1)}


def test_hd8_bypass_odds_are_those_of_the_saves_at_dc_20_plus_damage():
    odds = HIT_DICE.odds(hd_sheet(), "bypass", {"damage": 2, "attacker_level": 1}, Context())
    # DC 22: d20+10 >= 22 on 12-20, 9/20.
    assert fractions(odds)["strength:pass,will:pass"] == Fraction(81, 400)
    assert "Paying 10 hp is not possible" in odds.notes[0]


# -- hit_dice: rests (rulings HD-2, HD-3) --------------------------------------------------
def test_hd2_a_short_rest_reroll_keeps_the_lowest_hd():
    # 1 HD with 1 fatigue: 2d6 keep the lowest; P(1) = 11/36, P(6) = 1/36.
    odds = HIT_DICE.odds(
        hd_sheet(hit_dice=1, level=1, fatigue=1), "short_rest", {"reroll": True}, Context()
    )
    assert fractions(odds)["1"] == Fraction(11, 36)
    assert fractions(odds)["6"] == Fraction(1, 36)
    assert [o.key for o in odds.outcomes] == ["1", "2", "3", "4", "5", "6"]


def test_hd2_a_short_rest_without_reroll_is_certain():
    odds = HIT_DICE.odds(hd_sheet(), "short_rest", {"reroll": False}, Context())
    assert len(odds.outcomes) == 1 and odds.outcomes[0].probability == 1


def test_hd3_a_nights_sleep_rerolls_hd_d6_without_fatigue():
    odds = HIT_DICE.odds(hd_sheet(fatigue=3), "long_rest", {}, Context())
    assert fractions(odds)["7"] == Fraction(6, 36)
    assert fractions(odds)["2"] == Fraction(1, 36)


# -- actions that roll nothing answer what the action would do -----------------------------
def test_an_action_without_dice_answers_its_own_result():
    sheet = hd_sheet(state="collapsed")
    odds = HIT_DICE.odds(sheet, "stand_up", {}, Context(by_referee=True))
    assert len(odds.outcomes) == 1
    assert odds.outcomes[0].key == "no_roll"
    assert "stands up" in odds.outcomes[0].label.lower()


def test_odds_refuse_what_the_action_refuses():
    with pytest.raises(RuleError):
        HIT_DICE.odds(hd_sheet(), "treat_wound", {"wound": 9}, Context())
    with pytest.raises(RuleError):
        HIT_DICE.odds(hd_sheet(), "damage", {"amount": 0}, Context())
    with pytest.raises(ActionBlocked):
        HIT_DICE.odds(hd_sheet(state="dead"), "damage", {"amount": 3}, Context())


def test_odds_never_change_the_sheet_they_read():
    sheet = hd_sheet(state="collapsed")
    before = copy.deepcopy(sheet)
    for action, params in (("damage", {"amount": 9}), ("long_rest", {}), ("stand_up", {})):
        HIT_DICE.odds(sheet, action, params, Context(by_referee=True))
    assert sheet == before


@pytest.mark.parametrize("dice", ["999d999", "999d5", "100d20"])
def test_an_action_with_too_many_totals_says_its_odds_are_not_computed(dice):
    """Many totals, or few totals of numbers too long to add up quickly (999d5)."""
    old_school = get_ruleset("old_school")
    drug = {"save": False, "effect": {"type": "damage", "dice": dice}}
    with pytest.raises(OddsUnavailable, match="not computed"):
        old_school.odds(old_school.default_sheet(), "poison", drug, Context())


# -- the cached sums (odds.sum_of, lowest_of, successes, expression_die) ------------------
@pytest.mark.parametrize(("count", "keep"), [(1, 1), (3, 2), (5, 1), (5, 5), (7, 3), (12, 4)])
def test_the_lowest_dice_kept_are_icepools_own(count, keep):
    mine = die_outcomes(lowest_of(count, keep, 6))
    assert mine == die_outcomes(icepool.d6.pool(count).lowest(keep).sum())


@pytest.mark.parametrize(("count", "sides"), [(1, 6), (2, 6), (5, 20), (13, 6), (3, 1)])
def test_sums_are_icepools_own(count, sides):
    assert die_outcomes(sum_of(count, sides)) == die_outcomes(icepool.d(sides).pool(count).sum())


@pytest.mark.parametrize(("count", "threshold"), [(1, 5), (10, 4), (50, 5), (3, 7), (3, 1)])
def test_hits_of_a_pool_are_icepools_own(count, threshold):
    assert die_outcomes(successes(count, 6, threshold)) == die_outcomes(
        count @ (icepool.d6 >= threshold)
    )


@pytest.mark.parametrize("expression", ["1d6", "3d6+1", "4d6kh3", "4d6kl2", "5d10>=8", "2d20kh1-2"])
def test_a_dice_expression_fits_the_dice_service(expression):
    die = dict(die_outcomes(expression_die(expression)))
    dice = Dice(HmacGenerator(expression.encode()))
    runs = 3000
    seen = Counter(dice.roll(expression, "test").total for _ in range(runs))
    assert set(seen) <= set(die)
    statistic = sum((seen[t] - runs * float(p)) ** 2 / (runs * float(p)) for t, p in die.items())
    assert statistic < CRITICAL_0_001.get(len(die) - 1, 3 * len(die))


def test_a_hundred_hit_dice_resting_have_exact_odds():
    """Up to 100 HD and 100 fatigue (the sheet's limits): every hp from 100 to 600."""
    sheet = hd_sheet(hit_dice=100, fatigue=100)
    odds = HIT_DICE.odds(sheet, "short_rest", {"reroll": True}, Context())
    assert len(odds.outcomes) == 501
    assert odds.probability("600") == Fraction(1, 6**200)  # all 200 dice a 6
    assert odds.probability("100") > odds.probability("600")


# -- the real action fits its odds (chi-square) ---------------------------------------------
def chi_square(observed: Counter[str], odds: Odds, runs: int) -> float:
    assert set(observed) <= {o.key for o in odds.outcomes}
    return sum(
        (observed[o.key] - runs * float(o.probability)) ** 2 / (runs * float(o.probability))
        for o in odds.outcomes
    )


# Critical values of chi-square at the 0.1% level, by degrees of freedom.
CRITICAL_0_001 = {
    1: 10.83,
    2: 13.82,
    3: 16.27,
    4: 18.47,
    5: 20.52,
    6: 22.46,
    7: 24.32,
    8: 26.12,
    9: 27.88,
    10: 29.59,
    11: 31.26,
    12: 32.91,
    13: 34.53,
    14: 36.12,
    15: 37.70,
    16: 39.25,
    17: 40.79,
    18: 42.31,
    19: 43.82,
    20: 45.31,
}


def _runs(action: str, params: dict, sheet: dict, key, runs: int) -> Counter[str]:
    generator = HmacGenerator(f"odds-{action}".encode())
    seen: Counter[str] = Counter()
    for _ in range(runs):
        result: Result = HIT_DICE.resolve(sheet, action, params, Dice(generator), Context())
        seen[key(result)] += 1
    return seen


def test_damage_outcomes_fit_their_odds():
    sheet = hd_sheet(strength_save=12, will_save=8)
    params = {"amount": 8}
    odds = HIT_DICE.odds(sheet, "damage", params, Context())
    runs = 4000

    seen = _runs(
        "damage",
        params,
        sheet,
        lambda r: f"strength:{r.outcome['strength_save']},will:{r.outcome['will_save']}",
        runs,
    )

    assert chi_square(seen, odds, runs) < CRITICAL_0_001[len(odds.outcomes) - 1]


def test_short_rest_rerolls_fit_their_odds():
    sheet = hd_sheet(hit_dice=2, level=2, fatigue=2)
    odds = HIT_DICE.odds(sheet, "short_rest", {"reroll": True}, Context())
    runs = 6000

    seen = _runs("short_rest", {"reroll": True}, sheet, lambda r: str(r.sheet["hp"]), runs)

    assert len(odds.outcomes) == 11
    assert chi_square(seen, odds, runs) < CRITICAL_0_001[10]


# -- old_school: saves, search, damage and falls (rulings G-5, OS-3, OS-4, OS-8, OS-9) -----
OLD_SCHOOL = cast(OldSchool, get_ruleset("old_school"))


def os_sheet(**conditions: Any) -> dict[str, Any]:
    sheet = OLD_SCHOOL.default_sheet()
    sheet["conditions"].update(conditions)
    return sheet


def test_os3_a_save_against_its_target():
    # d20 >= 12 (save vs poison 12): 9/20.
    odds = OLD_SCHOOL.odds(os_sheet(), "save", {"category": "poison"}, Context())
    assert fractions(odds) == {"pass": Fraction(9, 20), "fail": Fraction(11, 20)}


def test_os8_os9_every_modifier_in_force_counts():
    # Two days without sleep (-2) and drunk (-2), +1 from the referee: d20 - 3 >= 12.
    sheet = os_sheet(sleep_deprived_days=2, drunk=True, drunk_until=600)
    odds = OLD_SCHOOL.odds(sheet, "save", {"category": "poison", "modifier": 1}, Context())
    assert fractions(odds)["pass"] == Fraction(6, 20)


def test_os6_the_exposure_save_is_a_save_vs_poison():
    odds = OLD_SCHOOL.odds(
        os_sheet(), "expose_disease", {"disease": "Green River Fever"}, Context(by_referee=True)
    )
    assert fractions(odds) == {"pass": Fraction(9, 20), "fail": Fraction(11, 20)}
    with pytest.raises(RuleError):
        OLD_SCHOOL.odds(os_sheet(), "expose_disease", {"disease": "Nope"}, Context())


def test_os9_search_is_one_in_six_less_a_point_a_day_without_sleep():
    odds = OLD_SCHOOL.odds(os_sheet(), "search", {"squares": 1}, Context())
    assert fractions(odds) == {"found": Fraction(1, 6), "nothing": Fraction(5, 6)}
    tired = OLD_SCHOOL.odds(os_sheet(sleep_deprived_days=1), "search", {"squares": 1}, Context())
    assert fractions(tired) == {"nothing": Fraction(1)}


def test_os4_damage_below_zero_reads_the_critical_table():
    # 6 wounds, 8 damage: 2 below 0, 1d10+2 on the project's table.
    odds = OLD_SCHOOL.odds(os_sheet(), "damage", {"amount": 8}, Context())
    table = OLD_SCHOOL.critical_table(Context())
    expected: Counter[str] = Counter()
    for roll in range(3, 13):
        index = next(
            i
            for i, row in enumerate(table)
            if row["min"] <= roll and (row["max"] is None or roll <= row["max"])
        )
        expected[f"critical:{index}"] += 1
    assert fractions(odds) == {key: Fraction(n, 10) for key, n in expected.items()}
    assert fractions(OLD_SCHOOL.odds(os_sheet(), "damage", {"amount": 6}, Context())) == {
        "down": Fraction(1)
    }
    assert fractions(OLD_SCHOOL.odds(os_sheet(), "damage", {"amount": 2}, Context())) == {
        "standing": Fraction(1)
    }


def _os_state_key(result: Result) -> str:
    if result.sheet["state"] == "dead":
        return "dead"
    critical = result.outcome.get("critical_injury")
    if critical:
        table = OLD_SCHOOL.critical_table(Context())
        return f"critical:{[r['description'] for r in table].index(critical['description'])}"
    return "down" if result.sheet["wounds"] == 0 else "standing"


def _os_seen(sheet: dict, action: str, params: dict, key, runs: int) -> Counter[str]:
    """What ``runs`` seeded resolutions of the real action gave, sorted by ``key``."""
    generator = HmacGenerator(f"odds-{action}".encode())
    seen: Counter[str] = Counter()
    for _ in range(runs):
        seen[key(OLD_SCHOOL.resolve(sheet, action, params, Dice(generator), Context()))] += 1
    return seen


@pytest.mark.slow
def test_os9_falls_fit_their_odds():
    sheet = os_sheet()
    params = {"feet": 20}  # 2d6 on 6 wounds: standing, down, or 1-6 below 0
    odds = OLD_SCHOOL.odds(sheet, "fall", params, Context())
    runs = 3000
    seen = _os_seen(sheet, "fall", params, _os_state_key, runs)
    assert fractions(odds)["standing"] == Fraction(10, 36)  # 2-5 on 2d6
    assert chi_square(seen, odds, runs) < CRITICAL_0_001[len(odds.outcomes) - 1]


def test_os3_saves_fit_their_odds():
    sheet = os_sheet()
    params = {"category": "breath"}
    odds = OLD_SCHOOL.odds(sheet, "save", params, Context())
    generator = HmacGenerator(b"odds-save")
    runs = 2000
    seen: Counter[str] = Counter()
    for _ in range(runs):
        result = OLD_SCHOOL.resolve(sheet, "save", params, Dice(generator), Context())
        seen["pass" if result.outcome["passed"] else "fail"] += 1
    assert chi_square(seen, odds, runs) < CRITICAL_0_001[1]


# -- old_school magical aging: every save due, a random ability per failure (OS-5, OS-1) -----
def test_os5_one_aging_save_at_forty():
    # Human turning 40: one save vs paralysis 14 at +0, d20 >= 14: 7/20 passes.
    odds = OLD_SCHOOL.odds(os_sheet() | {"age": 39}, "magical_aging", {"years": 1}, Context())
    assert fractions(odds) == {"lost:0": Fraction(7, 20), "lost:1": Fraction(13, 20)}
    tired = os_sheet(sleep_deprived_days=1) | {"age": 39}  # OS-8: -1 on every save
    odds = OLD_SCHOOL.odds(tired, "magical_aging", {"years": 1}, Context())
    assert fractions(odds) == {"lost:0": Fraction(6, 20), "lost:1": Fraction(14, 20)}


def test_os5_os1_two_saves_at_minus_four_with_strength_one():
    # Ages 60 and 61: two saves at -4, d20 >= 18 passes (3/20). Strength 1: a failure
    # that picks strength (1 in 6) kills; the other abilities stand two failures.
    sheet = os_sheet() | {"age": 59, "strength": 1}
    odds = OLD_SCHOOL.odds(sheet, "magical_aging", {"years": 2}, Context())
    passes, fails = Fraction(3, 20), Fraction(17, 20)
    assert fractions(odds) == {
        "lost:0": passes * passes,
        "lost:1": 2 * passes * fails * Fraction(5, 6),
        "lost:2": fails * fails * Fraction(25, 36),
        "dead": 2 * passes * fails * Fraction(1, 6) + fails * fails * Fraction(11, 36),
    }
    assert fractions(odds)["dead"] == Fraction(3791, 14400)


def test_os5_no_save_due_and_elves_are_certain():
    young = OLD_SCHOOL.odds(os_sheet(), "magical_aging", {"years": 10}, Context())
    assert fractions(young) == {"lost:0": Fraction(1)}
    elf = os_sheet() | {"race": "elf", "age": 500}
    assert fractions(OLD_SCHOOL.odds(elf, "magical_aging", {"years": 900}, Context())) == {
        "lost:0": Fraction(1)
    }


def test_os5_a_thousand_years_kill_for_sure_but_exactly():
    odds = OLD_SCHOOL.odds(os_sheet() | {"age": 60}, "magical_aging", {"years": 1000}, Context())
    assert 0 < odds.probability("lost:54") < Fraction(1, 10**100)
    assert sum(o.probability for o in odds.outcomes) == 1


def test_os5_magical_aging_fits_its_odds():
    # Ages 58-63: two saves at -2, four at -4; strength 2 and dexterity, constitution 3.
    sheet = os_sheet() | {"age": 57, "strength": 2, "dexterity": 3, "constitution": 3}
    sheet |= {"max_strength": 2, "max_dexterity": 3, "max_constitution": 3}
    params = {"years": 6}
    odds = OLD_SCHOOL.odds(sheet, "magical_aging", params, Context())

    def lost(result: Result) -> str:
        saves = result.outcome["aging_saves"]
        failed = saves["made"] - saves["passed"]
        return "dead" if result.sheet["state"] == "dead" else f"lost:{failed}"

    runs = 3000
    seen = _os_seen(sheet, "magical_aging", params, lost, runs)
    assert len(odds.outcomes) == 8
    assert chi_square(seen, odds, runs) < CRITICAL_0_001[7]


@pytest.mark.slow
def test_os4_a_drug_of_dice_damage_fits_its_odds():
    # No save; 3d6 damage on 6 wounds: standing, down, or a critical injury by depth.
    params = {"save": False, "effect": {"type": "damage", "dice": "3d6"}}
    odds = OLD_SCHOOL.odds(os_sheet(), "poison", params, Context())
    assert odds.probability("standing") == Fraction(10, 216)  # 3, 4 or 5 on 3d6
    runs = 3000
    seen = _os_seen(os_sheet(), "poison", params, _os_state_key, runs)
    assert chi_square(seen, odds, runs) < CRITICAL_0_001[len(odds.outcomes) - 1]


# -- deckahedron: from the piles' composition, never the deck's order (DK-1, DK-3, DK-6) ---
DECKAHEDRON = get_ruleset("deckahedron")


def dk_sheet(seed: bytes = b"deck", **fields: Any) -> dict[str, Any]:
    sheet = DECKAHEDRON.new_sheet({"strength": 2}, Dice(HmacGenerator(seed)))
    sheet.update(fields)
    return sheet


def test_dk1_one_flip_reads_the_rank_column_of_the_cards_in_the_deck():
    # Bulb (rank 2) over the 20 cards: xx on 1, 7, 8, 10, 14; x on 2, 3, 5, 9, 15, 16;
    # v on 6, 12, 13, 19, 20; vv on 4, 11, 17, 18.
    odds = DECKAHEDRON.odds(dk_sheet(), "flip", {"attribute": "strength"}, Context())
    assert fractions(odds) == {
        "xx": Fraction(5, 20),
        "x": Fraction(6, 20),
        "v": Fraction(5, 20),
        "vv": Fraction(4, 20),
    }


def test_dk1_the_deck_order_does_not_change_the_odds():
    one, other = dk_sheet(b"one"), dk_sheet(b"other")
    assert one["deck"] != other["deck"]
    for params in ({"attribute": "strength"}, {"attribute": "dexterity", "count": 3}):
        assert DECKAHEDRON.odds(one, "flip", params, Context()) == DECKAHEDRON.odds(
            other, "flip", params, Context()
        )


def test_dk3_a_wound_card_stops_the_flipping():
    # Deck: card 11 (vv everywhere) and W1; card 12 exhausted for the wound; two flips.
    everything = dk_sheet()["deck"]
    sheet = dk_sheet(
        deck=["11", "W1"],
        discard=[c for c in everything if c not in {"11", "12"}],
        exhaustion=["12"],
        wounds=1,
    )
    odds = DECKAHEDRON.odds(sheet, "flip", {"attribute": "strength", "count": 2}, Context())
    # W1 first (1/2): stops. Card 11 first (1/2): then W1 for sure.
    assert fractions(odds) == {"wound": Fraction(1, 2), "vv+wound": Fraction(1, 2)}


def test_dk3_an_empty_deck_is_refilled_from_the_discard_pile():
    everything = dk_sheet()["deck"]
    sheet = dk_sheet(deck=["11"], discard=[c for c in everything if c != "11"])
    # Card 11 first, onto the discard pile; the second flip draws from all 20 shuffled
    # in again: vv at rank 2 on cards 4, 11, 17 and 18.
    odds = DECKAHEDRON.odds(sheet, "flip", {"attribute": "strength", "count": 2}, Context())
    assert fractions(odds)["vv+vv"] == Fraction(4, 20)


def test_dk6_a_breather_regains_by_its_result():
    # Dexterity at rank 1 (Anchor): vv on cards 11 and 19, xx on 1, 2, 3, 4, 7, 12, 15, 17.
    odds = DECKAHEDRON.odds(dk_sheet(), "take_breather", {"attribute": "dexterity"}, Context())
    assert fractions(odds)["vv"] == Fraction(2, 20)
    assert fractions(odds)["xx"] == Fraction(8, 20)
    labels = {o.key: o.label for o in odds.outcomes}
    assert labels["vv"] == "Two checks: regains 1d4 Stamina"


def test_dk_flips_fit_their_odds_over_shuffled_decks():
    params = {"attribute": "strength", "count": 2}
    odds = DECKAHEDRON.odds(dk_sheet(), "flip", params, Context())
    generator = HmacGenerator(b"odds-flip")
    runs = 3000
    seen: Counter[str] = Counter()
    for _ in range(runs):
        sheet = DECKAHEDRON.new_sheet({"strength": 2}, Dice(generator))
        result = DECKAHEDRON.resolve(sheet, "flip", params, Dice(generator), Context())
        order = ["vv", "v", "x", "xx", "wound"]
        drawn = sorted(
            ("wound" if c["wound"] else c["result"] for c in result.outcome["cards"]),
            key=order.index,
        )
        seen["+".join(drawn)] += 1
    assert chi_square(seen, odds, runs) < CRITICAL_0_001[len(odds.outcomes) - 1]


# -- warband: the injury roll, falls and ledges (rulings WB-2, WB-5, G-5) ---------------------
WARBAND = get_ruleset("warband")


def wb_sheet(**fields: Any) -> dict[str, Any]:
    return {**WARBAND.default_sheet(), "warband": "Reds", **fields}


def test_wb5_a_fall_from_four_and_a_half_inches():
    # The example: +4 on the injury roll.
    odds = WARBAND.odds(wb_sheet(), "fall", {"height_inches": 4.5}, Context())
    assert fractions(odds) == {
        "none": Fraction(7, 20),
        "dazed": Fraction(3, 20),
        "stunned": Fraction(3, 20),
        "incapacitated": Fraction(7, 20),
    }


def test_wb2_a_hero_loses_a_wound_instead():
    sheet = wb_sheet(wounds=3, max_wounds=3)
    odds = WARBAND.odds(sheet, "fall", {"height_inches": 4.5}, Context())
    assert fractions(odds) == {"none": Fraction(7, 20), "loses_wound": Fraction(13, 20)}


def test_wb5_a_ledge_is_an_agility_check_then_the_fall():
    sheet = wb_sheet(injury="dazed")
    odds = WARBAND.odds(sheet, "ledge_check", {"drop_inches": 2}, Context())
    assert fractions(odds)["keeps_footing"] == Fraction(11, 20)  # d20 >= 10
    assert sum(fractions(odds).values()) == 1
    with pytest.raises(ActionBlocked):
        WARBAND.odds(wb_sheet(), "ledge_check", {"drop_inches": 2}, Context())


def test_wb_injury_rolls_fit_their_odds():
    sheet = wb_sheet(injury="staggered")
    params = {"modifiers": 2}
    odds = WARBAND.odds(sheet, "injury_roll", params, Context())
    generator = HmacGenerator(b"odds-injury-roll")
    runs = 3000
    seen: Counter[str] = Counter()
    for _ in range(runs):
        result = WARBAND.resolve(sheet, "injury_roll", params, Dice(generator), Context())
        injury = result.sheet["injury"]
        seen["unchanged" if injury == "staggered" else injury] += 1
    assert chi_square(seen, odds, runs) < CRITICAL_0_001[len(odds.outcomes) - 1]
