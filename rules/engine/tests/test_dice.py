import hmac
import re

import pytest

from rules.engine.dice import (
    Dice,
    DiceError,
    DiceExpression,
    HmacGenerator,
    Roll,
    ScriptedGenerator,
    SystemGenerator,
)


def test_keep_lowest_keeps_the_lowest_dice_and_records_all():
    dice = Dice(ScriptedGenerator([6, 2, 5, 1]))
    roll = dice.roll("4d6kl2", "re-roll")
    assert roll.dice == (6, 2, 5, 1)
    assert roll.kept == (1, 2)
    assert roll.total == 3
    assert roll.expression == "4d6kl2"
    assert dice.rolls == [roll]


def test_modifier_and_keep_highest():
    dice = Dice(ScriptedGenerator([4, 17]))
    assert dice.roll("1d20+10", "save").total == 14
    assert dice.roll("d20kh1", "adv").kept == (17,)


@pytest.mark.parametrize(
    "text", ["", "d", "0d6", "3d0", "2d6kl3", "1001d6", "1d6+", "abc", "2d6*3"]
)
def test_bad_expressions_raise_dice_error(text):
    with pytest.raises(DiceError):
        Dice(SystemGenerator(1)).roll(text, "x")


def test_hmac_generator_is_reproducible_from_seed_and_counter():
    first = HmacGenerator(b"secret", counter=0)
    rolls = [Dice(first).roll("3d6", "a").dice for _ in range(5)]
    assert first.counter >= 15
    replay = HmacGenerator(b"secret", counter=0)
    assert [Dice(replay).roll("3d6", "a").dice for _ in range(5)] == rolls
    assert replay.counter == first.counter
    other = HmacGenerator(b"other", counter=0)
    assert [Dice(other).roll("3d6", "a").dice for _ in range(5)] != rolls


def test_hmac_generator_uses_hmac_sha256_of_the_counter():
    generator = HmacGenerator(b"k", counter=7)
    value = generator.randbelow(1 << 32)
    digest = hmac.new(b"k", (7).to_bytes(8, "big"), "sha256").digest()
    assert value == int.from_bytes(digest[:8], "big") % (1 << 32)


def test_hmac_generator_is_roughly_uniform():
    generator = HmacGenerator(b"uniform")
    counts = [0] * 6
    for _ in range(6000):
        counts[generator.randbelow(6)] += 1
    assert all(850 < c < 1150 for c in counts)


def test_shuffle_is_recorded_and_reproducible():
    cards = [str(i) for i in range(1, 21)]
    a = Dice(HmacGenerator(b"s"))
    b = Dice(HmacGenerator(b"s"))
    assert a.shuffle(cards, "shuffle deck") == b.shuffle(cards, "shuffle deck")
    assert sorted(a.shuffle(cards, "again")) == sorted(cards)
    assert a.rolls[0].expression == "shuffle(20)"
    assert len(a.rolls[0].dice) == 19


def test_scripted_generator_refuses_faces_that_do_not_fit():
    with pytest.raises(ValueError):
        Dice(ScriptedGenerator([7])).roll("1d6", "x")


def test_a_pool_keeps_its_hits_and_counts_them():
    # Ruling CM-1: each die showing the threshold or more is a hit.
    dice = Dice(ScriptedGenerator([5, 2, 6, 4]))
    roll = dice.roll("4d6>=5", "soak")
    assert roll.expression == "4d6>=5"
    assert roll.dice == (5, 2, 6, 4)
    assert roll.kept == (5, 6)
    assert roll.total == 2
    assert Dice(ScriptedGenerator([1, 1])).roll("2d10>=8", "soak").total == 0


@pytest.mark.parametrize("text", ["3d6>=7", "3d6>=0", "3d6>=", "3d6kh2>=5"])
def test_bad_pools_raise_dice_error(text):
    with pytest.raises(DiceError):
        Dice(SystemGenerator(1)).roll(text, "x")


def test_a_roll_carries_its_kind_and_the_size_of_each_die_drawn():
    dice = Dice(SystemGenerator(3))
    plain, pool = dice.roll("2d6kh1+1", "plain"), dice.roll("3d8>=5", "pool")
    dice.shuffle(list("abcd"), "deck")
    shuffle = dice.rolls[-1]
    assert [(r.kind, r.sizes) for r in (plain, pool, shuffle)] == [
        ("dice", (6, 6)),
        ("pool", (8, 8, 8)),
        ("shuffle", (4, 3, 2)),
    ]
    assert all(Roll.from_dict(r.as_dict()) == r for r in (plain, pool, shuffle))


def test_a_stored_roll_without_kind_or_sizes_is_read_from_its_expression():
    old = {"label": "deck", "expression": "shuffle(5)", "dice": [1, 2, 3, 1], "kept": []}
    assert (Roll.from_dict(old).kind, Roll.from_dict(old).sizes) == ("shuffle", (5, 4, 3, 2))
    pool = {"label": "soak", "expression": "4d6>=5", "dice": [5, 1, 2, 6], "kept": [5, 6]}
    assert (Roll.from_dict(pool).kind, Roll.from_dict(pool).sides) == ("pool", 6)


def test_the_table_pattern_is_the_engine_grammar():
    from rules.engine.dice import expression_pattern
    from rules.engine.rulesets.old_school.data import DICE_PATTERN

    assert expression_pattern(max_count=999, max_sides=999) == DICE_PATTERN
    for text in ("2d6", "d20+1", "10d10-3"):
        assert re.match(DICE_PATTERN, text) and DiceExpression.parse(text)
    for text in ("2d6kh1", "d0", "1000d6", "shuffle(3)"):
        assert not re.match(DICE_PATTERN, text)
