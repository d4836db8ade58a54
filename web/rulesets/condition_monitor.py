"""How condition monitor characters are shown: the ten boxes drawn, penalty, countdowns."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rules.engine.rulesets import condition_monitor as cm
from web.forms import humanize
from web.rulesets import DemoCharacter, Presentation


def view(sheet: Mapping[str, Any], effects: Iterable[Any], **_unused: Any) -> dict[str, Any]:
    """The ten boxes as the text draws them, the penalty and the running clock."""
    boxes = [cm.box_text(box) for box in sheet["boxes"]]
    size, gap = 30, 6  # each box in the picture, and the space after it
    drawn = []
    counts: Counter[str] = Counter()
    for index, box in enumerate(boxes):
        kind = cm.box_kind(box)
        counts[kind] += 1
        x = index * (size + gap) + 2
        lines = []
        if cm.FORWARD in box:  # lower left to upper right
            lines.append(
                {"x1": x + 5, "y1": size - 3, "x2": x + size - 5, "y2": 7, "line": "forward"}
            )
        if cm.BACK in box:  # upper left to lower right
            lines.append({"x1": x + 5, "y1": 7, "x2": x + size - 5, "y2": size - 3, "line": "back"})
        if cm.BAR in box:
            lines.append({"x1": x + 1, "y1": 17, "x2": x + size - 1, "y2": 17, "line": "bar"})
        drawn.append({"x": x, "kind": kind, "lines": lines, "text": f"[{cm.box_picture(box)}]"})
    described = [
        f"{counts[kind]} {kind}"
        for kind in ("aggravated", "lethal", "normal", "partial")
        if counts[kind]
    ]
    return {
        "boxes": drawn,
        "width": len(boxes) * (size + gap),
        "height": size + 4,
        "size": size,
        "track_text": cm.track_text(boxes),
        "alt": _("%(marked)s of %(total)s boxes marked")
        % {"marked": ", ".join(described), "total": len(boxes)}
        if described
        else _("all %(total)s boxes empty") % {"total": len(boxes)},
        "penalty": int(sheet["penalty"]),
        "willpower": int(sheet["willpower"]),
        "strength": int(sheet["strength"]),
        "indomitable": bool(sheet["indomitable"]),
        "state": sheet["state"],
        "terminal_until": sheet["terminal_until"],
        "dying_until": sheet["dying_until"],
    }


def lines(sheet: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The lines some box holds, with how many boxes hold each (ruling CM-7)."""
    boxes = sheet.get("boxes")
    boxes = boxes if isinstance(boxes, list) else []
    choices = []
    for line, name in cm.LINE_NAMES.items():
        held = sum(1 for box in boxes if isinstance(box, str) and line in box)
        if held:
            choices.append(
                (line, f"{humanize(name)} {line} (in {held} box{'es' if held > 1 else ''})")
            )
    return choices or [(line, f"{humanize(name)} {line}") for line, name in cm.LINE_NAMES.items()]


# One character in each state: ok, incapacitated, dying, terminal, dead.
PRESENTATION = Presentation(
    key="condition_monitor",
    view=view,
    choices={"line": lines},
    decisions={cm.CHOICE_DYING: gettext_lazy("The dying hour")},
    party=(
        DemoCharacter(
            1,
            "Sister Oda",
            {"strength": 2, "willpower": 4},
            (("damage", {"amount": 4, "kind": "lethal", "soak_dice": 0}),),
        ),
        DemoCharacter(
            1,
            "Ines Vale",
            {"strength": 3, "willpower": 3},
            (
                ("damage", {"amount": 1, "kind": "lethal", "soak_dice": 0}),
                ("damage", {"amount": 2, "kind": "normal"}),  # soaked with her strength
            ),
        ),
        DemoCharacter(
            2,
            "Brannoc",
            {"strength": 4, "willpower": 2},
            (("damage", {"amount": 4, "kind": "normal", "soak_dice": 0}),),
        ),
        DemoCharacter(
            0,
            "Courier Pim (NPC)",
            {"strength": 2},
            (("damage", {"amount": 5, "kind": "aggravated", "soak_dice": 0}),),
        ),
        DemoCharacter(
            0,
            "Old Garret (NPC)",
            {"strength": 1, "indomitable": True},
            (("damage", {"amount": 9, "kind": "normal", "soak_dice": 0}),),
        ),
    ),
)
