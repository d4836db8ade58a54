"""Template helpers of the pages: clock and durations, bars and pips, dice, sheet pictures.

The ``*_view`` presenters turn a ruleset's public sheet into what its picture needs
(fractions, pips, piles) so the templates in ``templates/sheets/`` only draw. They
read the sheet; they never decide a rule.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django import template

from campaigns.selectors import clock_display
from web.forms import humanize as _humanize

register = template.Library()

GOOD = {"standing", "fresh", "alive", "ok"}
BAD = {"dead", "incapacitated", "dying", "terminal"}


@register.filter
def clock(minutes: int | None) -> str:
    """In-game minute -> "Day 3, 14:20" (ruling G-1)."""
    return clock_display(int(minutes or 0))


@register.filter
def duration(minutes: int | None) -> str:
    """A span of in-game minutes for people: "45 min", "2 h 10 min", "3 days 4 h"."""
    total = max(0, int(minutes or 0))
    days, rest = divmod(total, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days >= 365:
        years, days = divmod(days, 365)
        return f"{years} year{'s' if years > 1 else ''}" + (f" {days} d" if days else "")
    if days:
        return f"{days} day{'s' if days > 1 else ''}" + (f" {hours} h" if hours else "")
    if hours:
        return f"{hours} h" + (f" {mins} min" if mins else "")
    return f"{mins} min"


@register.filter
def humanize(key: str) -> str:
    return _humanize(str(key))


@register.filter
def status_tone(status: str) -> str:
    """good / bad / warn: the colour of a state word."""
    if status in GOOD:
        return "good"
    if status in BAD:
        return "bad"
    return "warn"


def percent(value: float, maximum: float) -> int:
    if maximum <= 0:
        return 0
    return max(0, min(100, round(100 * value / maximum)))


def pips(filled: int, total: int, cap: int = 12) -> dict[str, Any]:
    """Pips for a count: ``filled`` of ``total`` (drawn up to ``cap``, the rest as "+n")."""
    shown = min(max(total, filled), cap)
    return {
        "marks": [i < filled for i in range(shown)],
        "more": max(0, filled - cap),
        "filled": filled,
        "total": total,
    }


@register.filter
def dice_faces(roll: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each die of a roll, marked kept or dropped (``kept`` is a multiset of faces)."""
    left = Counter(roll.get("kept", ()))
    faces = []
    for face in roll.get("dice", ()):
        kept = left[face] > 0
        if kept:
            left[face] -= 1
        faces.append({"face": face, "kept": kept})
    return faces


@register.filter
def is_shuffle(roll: Mapping[str, Any]) -> bool:
    return str(roll.get("expression", "")).startswith("shuffle(")


@register.filter
def is_pool(roll: Mapping[str, Any]) -> bool:
    """A dice pool (``3d6>=5``): its kept dice are the hits, its total how many."""
    return ">=" in str(roll.get("expression", ""))


@register.filter
def dropped_any(roll: Mapping[str, Any]) -> bool:
    return (
        len(roll.get("kept", ())) < len(roll.get("dice", ()))
        and not is_shuffle(roll)
        and not is_pool(roll)
    )


@register.filter
def get(mapping: Mapping[str, Any] | None, key: str) -> Any:
    if not mapping:
        return None
    return mapping.get(key)


# -- per-ruleset presenters --------------------------------------------------------------


def _next_effect(effects: Iterable[Any], kind: str, **payload: Any) -> Any | None:
    for effect in effects:
        if effect.kind != kind:
            continue
        if all(effect.payload.get(k) == v for k, v in payload.items()):
            return effect
    return None


def hit_dice_view(sheet: Mapping[str, Any], effects: Iterable[Any], **_: Any) -> dict[str, Any]:
    hp, hit_dice = int(sheet["hp"]), int(sheet["hit_dice"])
    hp_max = max(hp, hit_dice * 6)  # the most a re-roll can give (6.4)
    fraction = percent(hp, hp_max)
    level, marks = int(sheet["level"]), int(sheet["major_wound_marks"])
    effects = list(effects)
    wounds = []
    for wound in sheet["wounds"]:
        worsening = _next_effect(effects, "wound_worsens", wound=wound["id"])
        wounds.append({**wound, "next_worsening": worsening.due_at if worsening else None})
    return {
        "hp": hp,
        "hp_max": hp_max,
        "hp_pct": fraction,
        "hp_tone": "good" if fraction > 50 else ("warn" if fraction > 20 else "bad"),
        "hit_dice": hit_dice,
        "level": level,
        "fatigue": pips(int(sheet["fatigue"]), 5),
        "marks": pips(marks, level, cap=20),
        "wounds": wounds,
        "open_wounds": [w for w in wounds if not w["treated"] or w["kind"] == "major"],
        "strength_save": sheet["strength_save"],
        "will_save": sheet["will_save"],
        "state": sheet["state"],
    }


def deckahedron_view(sheet: Mapping[str, Any], effects: Iterable[Any], **_: Any) -> dict[str, Any]:
    from rules.engine.rulesets import deckahedron as dk

    def card(card_id: str) -> dict[str, Any]:
        data = dk.CARDS[card_id]
        return {
            "id": card_id,
            "stamina": data.stamina,
            "wound": data.wound,
            "results": list(zip(("Anchor", "Bulb", "Crescent", "Dart"), data.results, strict=True)),
        }

    deck = list(sheet["deck"])
    discard = [card(c) for c in sheet["discard"]]
    exhaustion = [card(c) for c in sheet["exhaustion"]]
    stamina_total = len(dk.STAMINA_CARD_IDS)
    exhausted = len(sheet["exhaustion"])
    ranks = []
    for attribute in dk.ATTRIBUTES:
        rank = int(sheet[attribute])
        ranks.append(
            {
                "name": attribute,
                "rank": rank,
                "rank_name": dk.RANK_NAMES[rank],
                "pips": pips(rank, 4),
            }
        )
    return {
        "ranks": ranks,
        "deck_size": int(sheet.get("deck_size", len(deck))),
        "deck_stack": range(min(4, max(1, len(deck) // 4))) if deck else range(0),
        "discard": discard,
        "discard_top": discard[0] if discard else None,
        "exhaustion": exhaustion,
        "harm": pips(int(sheet["harm"]), dk.MAX_HARM),
        "wounds": pips(int(sheet["wounds"]), dk.MAX_WOUNDS),
        "stamina": pips(stamina_total - exhausted, stamina_total),
        "stamina_left": stamina_total - exhausted,
        "stamina_total": stamina_total,
        "incapacitated": bool(sheet["incapacitated"]),
    }


OLD_SCHOOL_ABILITIES = (
    "strength",
    "dexterity",
    "constitution",
    "intelligence",
    "wisdom",
    "charisma",
)
OLD_SCHOOL_SAVES = (
    ("poison", "Death ray or poison"),
    ("wands", "Magic wands"),
    ("paralysis", "Paralysis or petrify"),
    ("breath", "Dragon breath"),
    ("spells", "Spells"),
)


def old_school_view(
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
    for name in OLD_SCHOOL_ABILITIES:
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
        wake = _next_effect(effects, "wake_up")
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
        sober = _next_effect(effects, "sober_up")
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
        window = _next_effect(effects, "sleep_window")
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
            check = _next_effect(effects, kind)
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
        save = _next_effect(effects, "disease_save", disease=disease["name"])
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
        "wounds_tone": "good" if fraction > 50 else ("warn" if fraction > 20 else "bad"),
        "below_zero": min(0, wounds),
        "saves": [(label, sheet.get(f"save_{key}")) for key, label in OLD_SCHOOL_SAVES],
        "conditions": conditions,
        "diseases": diseases,
        "state": sheet.get("state", ""),
        "race": sheet.get("race", ""),
        "age": sheet.get("age"),
        "level": sheet.get("level"),
        "resting": bool(sheet.get("resting")),
    }


def condition_monitor_view(
    sheet: Mapping[str, Any], effects: Iterable[Any], **_: Any
) -> dict[str, Any]:
    """The ten boxes as the text draws them, the penalty and the running clock."""
    from rules.engine.rulesets import condition_monitor as cm

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
        "alt": (", ".join(described) + f" of {len(boxes)} boxes marked")
        if described
        else f"all {len(boxes)} boxes empty",
        "penalty": int(sheet["penalty"]),
        "willpower": int(sheet["willpower"]),
        "strength": int(sheet["strength"]),
        "indomitable": bool(sheet["indomitable"]),
        "state": sheet["state"],
        "terminal_until": sheet["terminal_until"],
        "dying_until": sheet["dying_until"],
    }


@dataclass(frozen=True)
class Look:
    """How a warband unit's state is drawn: a word, a colour (tone) and an icon."""

    word: str
    tone: str
    icon: str


# Each state has its own word, colour and picture, so no one needs to tell colours apart.
WARBAND_LOOKS: dict[str, Look] = {
    "none": Look("Fighting fit", "fit", "shield"),
    "staggered": Look("Staggered", "staggered", "wobble"),
    "dazed": Look("Dazed", "dazed", "spiral"),
    "stunned": Look("Stunned", "stunned", "star"),
    "incapacitated": Look("Incapacitated", "down", "cross"),
}


def warband_view(sheet: Mapping[str, Any], effects: Iterable[Any], **_: Any) -> dict[str, Any]:
    """A unit: its state's look and meaning (from the public sheet), wounds as pips."""
    wounds, most = int(sheet["wounds"]), int(sheet["max_wounds"])
    return {
        "warband": sheet["warband"],
        "look": WARBAND_LOOKS[sheet["injury"]],
        "means": sheet.get("injury_means", ""),
        "wounds": pips(wounds, most, cap=20),
        "wounds_left": wounds,
        "max_wounds": most,
        "move": sheet["move"],
        "move_now": sheet.get("move_now", sheet["move"]),
        "agility": sheet["agility"],
        "scars": list(sheet["scars"]),
    }


Presenter = Callable[..., dict[str, Any]]
PRESENTERS: dict[str, Presenter] = {
    "hit_dice": hit_dice_view,
    "deckahedron": deckahedron_view,
    "old_school": old_school_view,
    "condition_monitor": condition_monitor_view,
    "warband": warband_view,
}


@register.simple_tag
def sheet_view(
    ruleset: str,
    sheet: Mapping[str, Any],
    effects: Iterable[Any] = (),
    referee: bool = False,
    raw: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What the ruleset's picture needs:
    ``{% sheet_view key sheet effects is_referee raw_sheet as v %}``."""
    presenter = PRESENTERS.get(ruleset)
    if presenter is None:
        return {}
    return presenter(sheet, effects or (), referee=bool(referee), raw=raw or None)


@register.filter
def ruleset_name(key: str) -> str:
    from rules.engine.registry import get_ruleset

    try:
        return get_ruleset(key).name
    except (ImportError, AttributeError, ValueError):
        return _humanize(key)


@register.filter
def minutes_until(due: int, now: int) -> int:
    return max(0, int(due) - int(now))


@register.filter
def effect_text(effect: Any) -> str:
    """A scheduled effect for people: its kind, and what it is about when the payload says."""
    text = _humanize(effect.kind)
    payload = effect.payload or {}
    if payload.get("disease"):
        text += f": {payload['disease']}"
    elif payload.get("wound") is not None:
        text += f" (wound {payload['wound']})"
    return text


_SIDES = re.compile(r"d(\d+)")


@register.filter
def die_sides(roll: Mapping[str, Any]) -> str:
    match = _SIDES.search(str(roll.get("expression", "")))
    return match.group(1) if match else ""
