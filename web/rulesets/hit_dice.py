"""How hit dice characters are shown: hp meter, fatigue and marks, wounds and their worsening."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rules.engine.rulesets.hit_dice import (
    CHOICE_BYPASS,
    CHOICE_DEATH_OR_MAJOR,
    MAJOR_WOUND_PLACEHOLDER,
)
from web.rulesets import DemoCharacter, Presentation
from web.rulesets.drawing import next_effect, percent, pips, tone


def view(sheet: Mapping[str, Any], effects: Iterable[Any], **_unused: Any) -> dict[str, Any]:
    hp, hit_dice = int(sheet["hp"]), int(sheet["hit_dice"])
    hp_max = max(hp, hit_dice * 6)  # the most a re-roll can give (6.4)
    fraction = percent(hp, hp_max)
    level, marks = int(sheet["level"]), int(sheet["major_wound_marks"])
    effects = list(effects)
    shown = []
    for wound in sheet["wounds"]:
        worsening = next_effect(effects, "wound_worsens", wound=wound["id"])
        shown.append({**wound, "next_worsening": worsening.due_at if worsening else None})
    return {
        "hp": hp,
        "hp_max": hp_max,
        "hp_pct": fraction,
        "hp_tone": tone(fraction),
        "hit_dice": hit_dice,
        "level": level,
        "fatigue": pips(int(sheet["fatigue"]), 5),
        "marks": pips(marks, level, cap=20),
        "wounds": shown,
        "open_wounds": [w for w in shown if not w["treated"] or w["kind"] == "major"],
        "strength_save": sheet["strength_save"],
        "will_save": sheet["will_save"],
        "state": sheet["state"],
    }


def wounds(sheet: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The sheet's wounds, for the actions that pick one."""
    held = sheet.get("wounds")
    if not isinstance(held, list):
        return []
    return [
        (
            str(w["id"]),
            (
                (
                    _("Wound %(id)s (%(kind)s, treated): %(description)s")
                    if w.get("treated")
                    else _("Wound %(id)s (%(kind)s): %(description)s")
                )
                % {"id": w["id"], "kind": w["kind"], "description": w["description"]}
            )[:90],
        )
        for w in held
        if isinstance(w, dict) and "id" in w
    ]


PRESENTATION = Presentation(
    key="hit_dice",
    view=view,
    choices={"wound": wounds},
    placeholders=frozenset({MAJOR_WOUND_PLACEHOLDER}),
    decisions={
        CHOICE_DEATH_OR_MAJOR: gettext_lazy("Death or a major wound"),
        CHOICE_BYPASS: gettext_lazy("Pay hit points or suffer the effect"),
    },
    party=(
        DemoCharacter(1, "Aldo the Bold", {"level": 3, "hit_dice": 3, "hp": 11}),
        DemoCharacter(2, "Brisk Mara", {"level": 2, "hit_dice": 2, "hp": 7}),
        DemoCharacter(0, "Gate Sergeant (NPC)", {"level": 1, "hit_dice": 4, "hp": 14}),
    ),
)
