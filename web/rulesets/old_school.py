"""How old school characters are shown: scores current/max, wounds, conditions, diseases."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rules.engine.rulesets.old_school import data
from web.rulesets import DemoCharacter, Presentation
from web.rulesets.drawing import next_effect, percent, pips, tone


def view(
    sheet: Mapping[str, Any],
    effects: Iterable[Any],
    *,
    referee: bool = False,
    raw: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``raw``, the stored sheet, is given for referees only: it still lists the diseases
    kept from the player (ruling G-4), which ``public_sheet`` leaves out."""
    effects = list(effects)
    modifiers = sheet.get("modifiers", {})
    roll_penalty = int(sheet.get("penalties", {}).get("rolls", 0))  # sleep deprivation, OS-8
    abilities = []
    for name in data.ABILITIES:
        current, maximum = int(sheet[name]), int(sheet[f"max_{name}"])
        abilities.append(
            {
                "name": name,
                "short": name[:3].upper(),
                "current": current,
                "max": maximum,
                "pct": percent(current, 18),
                "max_pct": percent(maximum, 18),
                "lost": maximum - current,
                "modifier": modifiers.get(name, 0),
                "in_play": modifiers.get(name, 0) + roll_penalty,
            }
        )
    wounds, max_wounds = int(sheet["wounds"]), int(sheet["max_wounds"])
    fraction = percent(wounds, max_wounds)
    conditions_data = sheet.get("conditions", {})
    conditions = []
    if conditions_data.get("unconscious"):
        wake = next_effect(effects, "wake_up")
        conditions.append(
            {
                "name": "Unconscious",
                "tone": "bad",
                "until": conditions_data.get("unconscious_until"),
                "next": wake.due_at if wake else None,
                "next_label": "wakes",
            }
        )
    if conditions_data.get("drunk"):
        sober = next_effect(effects, "sober_up")
        conditions.append(
            {
                "name": "Drunk",
                "tone": "warn",
                "until": conditions_data.get("drunk_until"),
                "next": sober.due_at if sober else None,
                "next_label": "sober",
            }
        )
    deprived = int(conditions_data.get("sleep_deprived_days", 0))
    if deprived:
        window = next_effect(effects, "sleep_window")
        conditions.append(
            {
                "name": f"Sleep-deprived ({deprived} day{'s' if deprived > 1 else ''})",
                "tone": "warn",
                "next": window.due_at if window else None,
                "next_label": "next sleep check",
            }
        )
    for key, label, kind in (
        ("starving", "Starving", "starvation_check"),
        ("thirsty", "Thirsty", "thirst_check"),
    ):
        if conditions_data.get(key):
            check = next_effect(effects, kind)
            conditions.append(
                {
                    "name": label,
                    "tone": "bad" if key == "thirsty" else "warn",
                    "next": check.due_at if check else None,
                    "next_label": "next save",
                }
            )
    diseases = []
    source = raw if referee and raw is not None else sheet
    for disease in source.get("diseases", []):
        if disease.get("hidden") and not referee:  # ruling G-4
            continue
        save = next_effect(effects, "disease_save", disease=disease["name"])
        diseases.append(
            {
                **disease,
                "next": save.due_at if save else None,
                "progress": pips(int(disease["saves_made"]), int(disease["saves_total"]), cap=20),
            }
        )
    return {
        "abilities": abilities,
        "roll_penalty": roll_penalty,
        "critical_injuries": list(sheet.get("critical_injuries", [])),
        "wounds": wounds,
        "max_wounds": max_wounds,
        "wounds_pct": fraction,
        "wounds_tone": tone(fraction),
        "below_zero": min(0, wounds),
        "saves": [
            (label[:1].upper() + label[1:], sheet.get(f"save_{key}"))
            for key, label in data.SAVE_NAMES.items()
        ],
        "conditions": conditions,
        "diseases": diseases,
        "state": sheet.get("state", ""),
        "race": sheet.get("race", ""),
        "age": sheet.get("age"),
        "level": sheet.get("level"),
        "resting": bool(sheet.get("resting")),
    }


PRESENTATION = Presentation(
    key="old_school",
    view=view,
    party=(
        DemoCharacter(1, "Dorn Ironhand", {"race": "dwarf", "age": 60, "level": 2}),
        DemoCharacter(2, "Pell of the Reeds", {"race": "halfling", "age": 34, "level": 1}),
    ),
)
