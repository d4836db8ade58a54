"""The odds agree with the action on every way the dice can fall (issue 26).

For every action a ruleset computes odds for (``odds_<action>``), over a grid of sheets
with low scores, worn tracks and small piles, this walks every sequence of draws the
real action can make (``enumerate_draws``: each path resolved once, weighted exactly)
and sorts each result by the key its odds use. The two distributions must be equal as
fractions, not merely close. A Deckahedron deck's order is the one thing a flip depends
on besides the dice: it is secret, so the odds count every order as equally likely, and
the walk does too, over every order of a small deck.

A new ``odds_<action>`` fails ``test_every_odds_handler_is_walked`` until it has cases
here (and a key below).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from fractions import Fraction
from math import factorial
from typing import Any

import pytest

from rules.engine.dice import Dice, ScriptedGenerator
from rules.engine.interface import ActionBlocked, Context, Result, RuleError, Ruleset
from rules.engine.odds import PathGenerator, enumerate_draws
from rules.engine.registry import all_rulesets, get_ruleset
from rules.engine.rulesets.deckahedron import CARDS, DECK_CARD_IDS
from rules.engine.rulesets.old_school.ruleset import OldSchool

PATH_LIMIT = 20_000
SCARS: dict[str, Any] = {
    "dice": "2d6",
    "rows": [
        {"min": 2, "max": 6, "scar": "Limps"},
        {"min": 7, "max": 12, "scar": "A scar across the face"},
    ],
}
CONTEXT = Context(by_referee=True, tables={"scars": SCARS})

Key = Callable[[dict[str, Any], dict[str, Any], Result], str]
Case = tuple[str, dict[str, Any], dict[str, Any]]  # action, sheet, params


# -- the keys each ruleset's odds sort results by -------------------------------------------
def _hd_injury(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    if "strength_save" not in result.outcome:
        return "no_injury"
    return f"strength:{result.outcome['strength_save']},will:{result.outcome['will_save']}"


def _hd_reroll(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    if params.get("reroll") is False:
        return "no_roll"
    return str(result.sheet["hp"])


def _os_state(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    if result.sheet["state"] == "dead":
        return "dead"
    critical = result.outcome.get("critical_injury")
    if critical:
        if critical["description"] is None:
            return "critical:none"
        table = OldSchool().critical_table(CONTEXT)
        return f"critical:{[r['description'] for r in table].index(critical['description'])}"
    if result.sheet["wounds"] == before["wounds"]:
        return "unhurt" if "effect" in params else "standing"
    return "down" if result.sheet["wounds"] == 0 else "standing"


def _os_pass(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    if "referee_only" in result.outcome:  # exposure to a disease
        return "fail" if result.outcome["referee_only"]["contracted"] else "pass"
    return "pass" if result.outcome["passed"] else "fail"


def _os_poison(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    return (
        _os_pass(before, params, result)
        if params.get("save", True)
        else _os_state(before, params, result)
    )


def _os_aging(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    if result.sheet["state"] == "dead":
        return "dead"
    made = result.outcome["aging_saves"]
    return f"lost:{made['made'] - made['passed']}"


def _wb_injury(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    outcome = result.outcome
    if "agility_roll" in outcome and outcome["passed"]:
        return "keeps_footing"
    if outcome.get("absorbed"):
        return "loses_wound"
    if not outcome["changed"]:
        return "unchanged" if before["injury"] != "none" else "none"
    return str(result.sheet["injury"])


def _wb_scar(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    rows = [row["scar"] for row in SCARS["rows"]]
    return f"scar:{rows.index(result.outcome['scar'])}"


def _cm_wound(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    wound = result.outcome.get("wound")
    return "none" if wound is None else str(wound)


def _dk_flip(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    order = ["vv", "v", "x", "xx", "wound"]
    kinds = ["wound" if card["wound"] else card["result"] for card in result.outcome["cards"]]
    return "+".join(sorted(kinds, key=order.index))


def _dk_status(before: dict[str, Any], params: dict[str, Any], result: Result) -> str:
    if result.pending_choice is not None:
        return "no_roll"
    return get_ruleset("deckahedron").status(result.sheet)


KEYS: dict[tuple[str, str], Key] = {
    ("hit_dice", "damage"): _hd_injury,
    ("hit_dice", "bypass"): _hd_injury,
    ("hit_dice", "short_rest"): _hd_reroll,
    ("hit_dice", "long_rest"): _hd_reroll,
    ("old_school", "save"): _os_pass,
    ("old_school", "expose_disease"): _os_pass,
    ("old_school", "poison"): _os_poison,
    ("old_school", "search"): lambda b, p, r: "found" if r.outcome["found"] else "nothing",
    ("old_school", "damage"): _os_state,
    ("old_school", "fall"): _os_state,
    ("old_school", "magical_aging"): _os_aging,
    ("warband", "injury_roll"): _wb_injury,
    ("warband", "fall"): _wb_injury,
    ("warband", "ledge_check"): _wb_injury,
    ("warband", "roll_scars"): _wb_scar,
    ("condition_monitor", "damage"): _cm_wound,
    ("deckahedron", "flip"): _dk_flip,
    ("deckahedron", "take_breather"): lambda b, p, r: (
        "wound" if r.outcome["stopped_by_wound"] else str(r.outcome["result"])
    ),
    **{
        ("deckahedron", action): _dk_status
        for action in ("lose_stamina", "take_harm", "take_wound", "rest", "heal")
    },
    ("deckahedron", "clear_incapacitation"): _dk_status,
}


# -- the grid of sheets ------------------------------------------------------------------
def _hit_dice_cases() -> Iterator[Case]:
    ruleset = get_ruleset("hit_dice")
    for level, hp, fatigue, marks, strength, will in (
        (1, 1, 0, 0, 10, 10),
        (2, 5, 1, 0, 3, 14),
        (2, 0, 2, 2, 0, 0),
        (3, 7, 1, 1, 18, 2),
    ):
        sheet = {
            **ruleset.default_sheet(),
            "level": level,
            "hit_dice": level,
            "hp": hp,
            "fatigue": fatigue,
            "major_wound_marks": marks,
            "strength_save": strength,
            "will_save": will,
        }
        for amount in (1, 3, 8, 15):
            yield "damage", sheet, {"amount": amount}
            yield "damage", sheet, {"amount": amount, "give_up": True}
        yield "bypass", sheet, {"damage": 3, "attacker_level": 1}
        yield "short_rest", sheet, {"reroll": True}
        yield "short_rest", sheet, {"reroll": False}
        yield "long_rest", sheet, {}


def _old_school_cases() -> Iterator[Case]:
    ruleset = get_ruleset("old_school")
    fresh = ruleset.default_sheet()
    low = {ability: 1 for ability in ("strength", "dexterity", "intelligence", "wisdom")}
    patches: list[dict[str, Any]] = [
        {},
        {"strength": 1, "wounds": 3, "max_wounds": 3},  # the audit's sheet (OS-P19)
        {**low, "charisma": 1, "constitution": 1, "wounds": 2, "max_wounds": 2},
        {"dexterity": 2, "charisma": 1, "wounds": 1, "max_wounds": 4},
        {"strength": 2, "constitution": 1, "wounds": 0, "max_wounds": 3, "state": "down"},
        {"wounds": -2, "max_wounds": 6, "state": "down"},
        {"strength": 1, "age": 59, "save_paralysis": 15},
    ]
    for patch in patches:
        sheet = {**fresh, **patch, "conditions": dict(fresh["conditions"])}
        for ability in ("strength", "dexterity", "intelligence", "wisdom", "charisma"):
            sheet[f"max_{ability}"] = max(sheet[ability], fresh[f"max_{ability}"])
        sheet["max_constitution"] = max(sheet["constitution"], fresh["max_constitution"])
        for amount in (1, 2, 3, 4, 6, 9, 12):
            yield "damage", sheet, {"amount": amount}
        for feet in (0, 10, 20):
            yield "fall", sheet, {"feet": feet}
        yield "save", sheet, {"category": "poison", "modifier": -3}
        yield "expose_disease", sheet, {"disease": "Green River Fever"}
        yield "poison", sheet, {}
        yield "poison", sheet, {"save": False, "effect": {"type": "damage", "dice": "2d4"}}
        yield "poison", sheet, {"save": False, "effect": {"type": "damage", "dice": "1d6-3"}}
        yield "search", sheet, {"squares": 1, "chance": 2}
        yield "magical_aging", sheet, {"years": 1}
    deprived = {**fresh, "conditions": {**fresh["conditions"], "sleep_deprived_days": 2}}
    yield "search", deprived, {"squares": 1, "chance": 3}
    yield "save", deprived, {"category": "spells"}


def _warband_cases() -> Iterator[Case]:
    ruleset = get_ruleset("warband")
    for wounds, injury in itertools.product((0, 1, 3), ("none", "staggered", "dazed", "stunned")):
        sheet = {**ruleset.default_sheet(), "warband": "Crows", "max_wounds": 3}
        sheet.update(wounds=wounds, injury=injury, agility=12)
        yield "injury_roll", sheet, {}
        yield "injury_roll", sheet, {"modifiers": 4}
        yield "fall", sheet, {"height_inches": 4.5}
        yield "ledge_check", sheet, {"drop_inches": 3}
        yield "ledge_check", sheet, {"drop_inches": 5, "sides": 3}
    scarred = {**ruleset.default_sheet(), "warband": "Crows", "injury": "incapacitated"}
    scarred["wounds"] = 0
    yield "roll_scars", scarred, {}


def _condition_monitor_cases() -> Iterator[Case]:
    ruleset = get_ruleset("condition_monitor")
    tracks = [
        [""] * 10,
        ["/"] * 6 + [""] * 4,
        ["/\\"] * 3 + ["/"] * 7,
        ["/\\-"] * 2 + ["/\\"] * 6 + ["/"] * 2,
    ]
    for boxes, strength in itertools.product(tracks, (1, 3)):
        sheet = ruleset.new_sheet(
            {"strength": strength, "boxes": boxes}, Dice(ScriptedGenerator([]))
        )
        for amount, kind in itertools.product((1, 3, 5, 9), ("normal", "lethal", "aggravated")):
            yield "damage", sheet, {"amount": amount, "kind": kind}


def _deck(deck: list[str], **fields: Any) -> dict[str, Any]:
    """A Deckahedron sheet with this deck (small: every order is walked), every other
    Stamina card on the exhaustion pile unless given, every other card discarded."""
    ruleset = get_ruleset("deckahedron")
    sheet = {**ruleset.default_sheet(), "deck": deck, "strength": 2, "dexterity": 4}
    sheet.update(fields)
    if "exhaustion" not in fields:
        sheet["exhaustion"] = [c for c in DECK_CARD_IDS if CARDS[c].stamina and c not in deck]
    used = set(deck) | set(sheet["exhaustion"])
    sheet["discard"] = [card for card in DECK_CARD_IDS if card not in used]
    return sheet


def _deckahedron_cases() -> Iterator[Case]:
    stamina = [card for card in DECK_CARD_IDS if CARDS[card].stamina]
    plain = [card for card in DECK_CARD_IDS if not CARDS[card].stamina]
    # Flips stay within the deck: a refill would shuffle the whole discard pile in.
    small = [
        _deck(plain[:3] + stamina[:1]),
        _deck(["W1", *stamina[:2], plain[0]], wounds=1, exhaustion=stamina[2:4]),
        _deck(["W1", plain[0], stamina[0], "W2"], wounds=2, exhaustion=stamina[1:4]),
    ]
    for sheet in small:
        for count in (1, 2, 3):
            yield "flip", sheet, {"attribute": "strength", "count": count}
        yield "flip", sheet, {"attribute": "dexterity"}
        yield "take_breather", sheet, {"attribute": "dexterity"}
        yield "lose_stamina", sheet, {"amount": 1}
        yield "take_harm", sheet, {}
        yield "take_wound", sheet, {}
    # Rest and heal shuffle the exhaustion pile in: a small one, the rest discarded.
    resting = [
        _deck(plain[:2], harm=1, exhaustion=stamina[:3]),
        _deck(stamina[:1], harm=2, exhaustion=stamina[1:3]),
        _deck(["W1", plain[0]], harm=1, wounds=1, exhaustion=stamina[:3]),
    ]
    for sheet in resting:
        yield "rest", sheet, {}
        yield "heal", sheet, {}
        yield "clear_incapacitation", {**sheet, "incapacitated": True}, {}


CASES: dict[str, Callable[[], Iterator[Case]]] = {
    "hit_dice": _hit_dice_cases,
    "old_school": _old_school_cases,
    "warband": _warband_cases,
    "condition_monitor": _condition_monitor_cases,
    "deckahedron": _deckahedron_cases,
}


# -- the walk ------------------------------------------------------------------------------
def _run(ruleset: Ruleset, sheet: dict[str, Any], action: str, params: dict[str, Any]):
    def run(generator: PathGenerator) -> Result:
        dice = Dice(generator)
        result = ruleset.resolve(sheet, action, params, dice, CONTEXT)
        choice = result.pending_choice
        if choice is not None and choice.kind == "bypass":  # the odds of taking the saves
            give_up = "injury_give_up" if params.get("give_up") else "injury"
            result = ruleset.choose(result.sheet, choice, give_up, dice, CONTEXT)
        return result

    return run


def _orders(ruleset: Ruleset, sheet: dict[str, Any]) -> list[tuple[dict[str, Any], Fraction]]:
    """Every order of a secret deck, equally likely; any other sheet as it is."""
    if ruleset.key != "deckahedron":
        return [(sheet, Fraction(1))]
    weight = Fraction(1, factorial(len(sheet["deck"])))
    return [
        ({**sheet, "deck": list(order)}, weight) for order in itertools.permutations(sheet["deck"])
    ]


def walked(ruleset: Ruleset, action: str, sheet: dict[str, Any], params: dict[str, Any]):
    key = KEYS[(ruleset.key, action)]
    totals: dict[str, Fraction] = {}
    for ordered, weight in _orders(ruleset, sheet):
        for result, chance in enumerate_draws(
            _run(ruleset, ordered, action, params), limit=PATH_LIMIT
        ):
            name = key(ordered, params, result)
            totals[name] = totals.get(name, Fraction(0)) + weight * chance
    return totals


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", all_rulesets(), ids=lambda r: r.key)
def test_the_odds_are_what_every_path_of_the_action_gives(ruleset: Ruleset) -> None:
    checked = 0
    for action, sheet, params in CASES[ruleset.key]():
        ruleset.validate_sheet(sheet)
        try:
            odds = ruleset.odds(sheet, action, params, CONTEXT)
        except (RuleError, ActionBlocked) as refusal:  # the action refuses it too
            with pytest.raises(type(refusal)):
                _run(ruleset, sheet, action, params)(PathGenerator([]))
            continue
        expected = {o.key: o.probability for o in odds.outcomes}
        assert walked(ruleset, action, sheet, params) == expected, (action, params, sheet)
        checked += 1
    assert checked


@pytest.mark.parametrize("ruleset", all_rulesets(), ids=lambda r: r.key)
def test_every_odds_handler_is_walked(ruleset: Ruleset) -> None:
    handlers = {spec.key for spec in ruleset.actions if hasattr(ruleset, f"odds_{spec.key}")}
    walked_actions = {action for action, _, _ in CASES[ruleset.key]()}
    assert handlers <= walked_actions
    assert handlers <= {action for key, action in KEYS if key == ruleset.key}


def test_os_p19_a_critical_injury_that_takes_the_last_point_of_an_ability_kills():
    """Strength 1 at 3/3 wounds, 4 damage: 1d10+1 gives 6 (cracked ribs, -1 Strength)
    or 9 (broken arm, -2 Strength) 1 time in 5, and either takes Strength to 0 (OS-1)."""
    ruleset = get_ruleset("old_school")
    sheet = {**ruleset.default_sheet(), "strength": 1, "wounds": 3, "max_wounds": 3}
    odds = ruleset.odds(sheet, "damage", {"amount": 4}, CONTEXT)
    assert odds.probability("dead") == Fraction(1, 5)
    assert walked(ruleset, "damage", sheet, {"amount": 4})["dead"] == Fraction(1, 5)
