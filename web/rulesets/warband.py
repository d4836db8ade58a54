"""How warband units are shown: state as word, colour and icon; wounds as pips."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext_lazy

from core.said import said
from rules.engine.rulesets.warband import INJURY_MEANS
from web.rulesets import DemoCharacter, Presentation
from web.rulesets.drawing import pips

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class Look:
    """How a warband unit's state is drawn: a word, a colour (tone) and an icon."""

    word: StrOrPromise
    tone: str
    icon: str


# Each state has its own word, colour and picture, so no one needs to tell colours apart.
LOOKS: dict[str, Look] = {
    "none": Look(gettext_lazy("Fighting fit"), "fit", "shield"),
    "staggered": Look(gettext_lazy("Staggered"), "staggered", "wobble"),
    "dazed": Look(gettext_lazy("Dazed"), "dazed", "spiral"),
    "stunned": Look(gettext_lazy("Stunned"), "stunned", "star"),
    "incapacitated": Look(gettext_lazy("Incapacitated"), "down", "cross"),
}


def view(sheet: Mapping[str, Any], effects: Iterable[Any], **_: Any) -> dict[str, Any]:
    """A unit: its state's look and meaning (from the public sheet), wounds as pips."""
    wounds, most = int(sheet["wounds"]), int(sheet["max_wounds"])
    return {
        "warband": sheet["warband"],
        "look": LOOKS[sheet["injury"]],
        # the engine's words for the state, in the reader's language (the public sheet may
        # have come through JSON, where the meaning is English text)
        "means": said(INJURY_MEANS.get(str(sheet["injury"]), sheet.get("injury_means", ""))),
        "wounds": pips(wounds, most, cap=20),
        "wounds_left": wounds,
        "max_wounds": most,
        "move": sheet["move"],
        "move_now": sheet.get("move_now", sheet["move"]),
        "agility": sheet["agility"],
        "scars": list(sheet["scars"]),
    }


# Two warbands of five, each led by a hero with 3 wounds; the battle's first blows are
# the attack's d20 as the table rolled it (WB-1).
PRESENTATION = Presentation(
    key="warband",
    view=view,
    party=(
        DemoCharacter(1, "Vessa the Red", {"warband": "Red Hand", "max_wounds": 3, "agility": 12}),
        DemoCharacter(
            1,
            "Oskar",
            {"warband": "Red Hand"},
            (("injury_check", {"attack_roll": 12, "attack": "melee"}),),
        ),
        DemoCharacter(1, "Brannoc", {"warband": "Red Hand", "move": 5}),
        DemoCharacter(1, "Ilse", {"warband": "Red Hand", "agility": 12}),
        DemoCharacter(1, "Tam the Quick", {"warband": "Red Hand", "move": 7}),
        DemoCharacter(
            2,
            "Crow Captain",
            {"warband": "Grey Crows", "max_wounds": 3},
            (("injury_check", {"attack_roll": 18, "attack": "ranged"}),),
        ),
        DemoCharacter(
            2,
            "Hookbill",
            {"warband": "Grey Crows"},
            (("injury_check", {"attack_roll": 16, "attack": "ranged"}),),
        ),
        DemoCharacter(
            2,
            "Tallow",
            {"warband": "Grey Crows"},
            (("injury_check", {"attack_roll": 19, "attack": "melee"}),),
        ),
        DemoCharacter(2, "Wren", {"warband": "Grey Crows", "agility": 13}),
        DemoCharacter(2, "Mossback", {"warband": "Grey Crows", "move": 5}),
    ),
)
