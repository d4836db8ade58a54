import hmac

import pytest

from rules.engine.dice import Dice, DiceError, HmacGenerator, ScriptedGenerator, SystemGenerator


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
