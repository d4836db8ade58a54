"""How old school characters are shown: scores current/max, wounds, conditions, diseases."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rules.engine.rulesets.old_school import data
from web.rulesets import DemoCharacter, Presentation
from web.rulesets.drawing import next_effect, percent, pips, tone


def _abilities(sheet: Mapping[str, Any], roll_penalty: int) -> list[dict[str, Any]]:
    """Each ability score, current against its maximum, with the modifier in play."""
    modifiers = sheet.get("modifiers", {})
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
    return abilities


def _conditions(sheet: Mapping[str, Any], effects: list[Any]) -> list[dict[str, Any]]:
    """The conditions the character is in, each a chip with what ends or checks it next."""
    conditions_data = sheet.get("conditions", {})
    deprived = int(conditions_data.get("sleep_deprived_days", 0))
    shown = (  # (condition, its chip's words and tone, the effect that ends or checks it)
        ("unconscious", _("Unconscious"), "bad", "wake_up", _("wakes")),
        ("drunk", _("Drunk"), "warn", "sober_up", _("sober")),
        (
            "sleep_deprived_days",
            ngettext("Sleep-deprived (%(days)s day)", "Sleep-deprived (%(days)s days)", deprived)
            % {"days": deprived},
            "warn",
            "sleep_window",
            _("next sleep check"),
        ),
        ("starving", _("Starving"), "warn", "starvation_check", _("next save")),
        ("thirsty", _("Thirsty"), "bad", "thirst_check", _("next save")),
    )
    conditions = []
    for key, name, chip_tone, kind, next_label in shown:
        if not conditions_data.get(key):
            continue
        upcoming = next_effect(effects, kind)
        conditions.append(
            {
                "name": name,
                "tone": chip_tone,
                "until": conditions_data.get(f"{key}_until"),
                "next": upcoming.due_at if upcoming else None,
                "next_label": next_label,
            }
        )
    return conditions


def _diseases(source: Mapping[str, Any], effects: list[Any], *, referee: bool) -> list[Any]:
    """The diseases the viewer may see, each with its next save and the saves made."""
    diseases = []
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
    return diseases


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
    roll_penalty = int(sheet.get("penalties", {}).get("rolls", 0))  # sleep deprivation, OS-8
    wounds, max_wounds = int(sheet["wounds"]), int(sheet["max_wounds"])
    fraction = percent(wounds, max_wounds)
    source = raw if referee and raw is not None else sheet
    return {
        "abilities": _abilities(sheet, roll_penalty),
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
        "conditions": _conditions(sheet, effects),
        "diseases": _diseases(source, effects, referee=referee),
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
