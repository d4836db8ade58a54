"""Property tests: whatever happens to a condition monitor character, the track holds.

Random sequences of actions with random valid params, the campaign clock moving
between them (due effects applied in time order, once, cancelled ones skipped, as the
clock service does) and random answers to the dying choice, on a real generator
seeded by hypothesis. After every step:

* always ten boxes, each a valid box, in the order of ruling CM-3;
* the penalty is the one ruling CM-6 gives for the boxes and willpower;
* the state fits the track (CM-4, CM-5): incapacitated, dying and terminal have every
  box marked, dying every box a back slash; ok has an empty box;
* a dying or terminal character has exactly its clock pending, under the key of the
  minute on the sheet (or, once the dying hour has passed, the referee's choice); no
  one else, the dead included, waits for any clock;
* a wound only adds lines, and every line it brings is placed, turned into a back
  slash, or recorded as overflow (CM-3); healing only removes lines (CM-7).
"""

from collections import Counter

from hypothesis import event, given, settings
from hypothesis import strategies as st

from rules.engine.dice import Dice, SystemGenerator
from rules.engine.interface import ActionBlocked, Context, RuleError
from rules.engine.rulesets.condition_monitor import (
    BOX_COUNT,
    BOX_ORDER,
    KIND_LINES,
    KINDS,
    LINES,
    ConditionMonitor,
    ordered,
    penalty,
)

RULES = ConditionMonitor()

steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("damage"),
            st.fixed_dictionaries(
                {"amount": st.integers(0, 10), "kind": st.sampled_from(KINDS)},
                optional={"soak_dice": st.integers(0, 6)},
            ),
        ),
        st.tuples(st.just("stabilize"), st.just({})),
        st.tuples(
            st.just("heal"),
            st.fixed_dictionaries(
                {"line": st.sampled_from(LINES), "boxes": st.integers(1, BOX_COUNT)}
            ),
        ),
        st.tuples(
            st.just("medical_care"),
            st.fixed_dictionaries(
                {}, optional={"means": st.sampled_from(["medical_care", "rest"])}
            ),
        ),
        st.tuples(st.just("wait"), st.integers(1, 90)),
    ),
    max_size=25,
)


def line_counts(boxes):
    return Counter(line for box in boxes for line in box)


def check_track(sheet, pending, choice=None):
    boxes = sheet["boxes"]
    assert len(boxes) == BOX_COUNT
    assert all(box in BOX_ORDER for box in boxes)
    assert list(boxes) == ordered(boxes)
    assert sheet["penalty"] == penalty(boxes, sheet["willpower"], sheet["indomitable"])
    state = sheet["state"]
    event(f"state {state}")
    if state in ("incapacitated", "dying", "terminal"):
        assert all(boxes)
    if state == "dying":
        assert all("\\" in box for box in boxes)
    if state == "ok":
        assert not all(boxes)
    keys = {key for _, key, _, _ in pending}
    expected = set()
    if state == "terminal":
        expected.add(f"terminal_wound:{sheet['terminal_until']}")
    if state == "dying" and choice is None:  # once the hour has passed, the choice waits
        expected.add(f"dying_hour:{sheet['dying_until']}")
    if choice is not None:
        assert (choice.kind, state) == ("dying_hour", "dying")
    assert keys == expected


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    willpower=st.integers(0, 8),
    indomitable=st.booleans(),
    plan=steps,
    answers=st.lists(st.sampled_from(["stabilizes", "dies"]), min_size=5, max_size=5),
)
def test_the_track_invariants_hold_through_any_sequence(
    seed, willpower, indomitable, plan, answers
):
    generator = SystemGenerator(seed)
    sheet = RULES.new_sheet({"willpower": willpower, "indomitable": indomitable}, Dice(generator))
    clock = 0
    pending: list[tuple[int, str, str, dict]] = []  # (due, key, kind, payload)
    choice = None
    answers = list(answers)

    def absorb(result, at):
        nonlocal pending, choice
        pending = [p for p in pending if p[1] not in result.cancel_effects]
        for effect in result.effects:
            pending.append((at + effect.due_in, effect.key, effect.kind, dict(effect.payload)))
        pending.sort(key=lambda p: p[0])
        choice = result.pending_choice
        return result.sheet

    for action, params in plan:
        if choice is not None:  # ruling G-3: the referee answers before anything else
            option = answers.pop() if answers else "dies"
            result = RULES.choose(sheet, choice, option, Dice(generator), Context(clock=clock))
            sheet = absorb(result, clock)
            check_track(sheet, pending, choice)
            continue
        if action == "wait":
            target = clock + params
            while pending and pending[0][0] <= target and choice is None:
                due, _, kind, payload = pending.pop(0)
                clock = due
                context = Context(clock=due, by_referee=True)
                sheet = absorb(
                    RULES.apply_effect(sheet, kind, payload, Dice(generator), context), due
                )
                check_track(sheet, pending, choice)
            if choice is None:
                clock = target
            continue
        before = list(sheet["boxes"])
        context = Context(clock=clock, by_referee=True)
        try:
            result = RULES.resolve(sheet, action, params, Dice(generator), context)
        except (RuleError, ActionBlocked):
            continue  # refused: nothing changed
        sheet = absorb(result, clock)
        check_track(sheet, pending, choice)
        after_counts, before_counts = line_counts(sheet["boxes"]), line_counts(before)
        if action == "damage":
            assert all(after_counts[line] >= before_counts[line] for line in LINES)
            marked = result.outcome.get("boxes")
            if marked is not None:
                placed = sum(after_counts.values()) - sum(before_counts.values())
                overflow = sum(result.outcome["overflow"].values())
                assert placed + overflow == marked * len(KIND_LINES[params["kind"]])
        elif action in ("heal", "medical_care"):
            assert all(after_counts[line] <= before_counts[line] for line in LINES)
