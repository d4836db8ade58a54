"""How each ruleset looks on the pages: one module ``web/rulesets/<key>.py`` per ruleset.

The engine (``rules/engine/rulesets/<key>.py``) says what a ruleset *is*: its name,
blurb, creation fields, options, tables and actions. Its module here says how it is
*shown*, in a module-level ``PRESENTATION``: the sheet's picture (``view``, which turns
the public sheet into what ``templates/sheets/<key>.html`` and ``<key>_card.html`` draw),
the choices a form offers that the schema cannot give (the wounds a sheet holds), and
the demo party ``seed_demo`` creates. It is found by the ruleset's key;
``tests/test_ruleset_recipe.py`` fails while a registered ruleset lacks any part.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# A ruleset's picture: (public sheet, scheduled effects, referee=..., raw=...) -> context.
SheetView = Callable[..., dict[str, Any]]
# Choices a form offers for a param that its schema cannot list: sheet -> (value, label).
ChoiceSource = Callable[[Mapping[str, Any]], list[tuple[str, str]]]
Opening = tuple[str, Mapping[str, Any]]  # an action the referee resolves: (action, params)


@dataclass(frozen=True)
class DemoCharacter:
    """A character of the demo party: who plays it, its name and first sheet fields,
    and what happened to it before the session (resolved through the real service)."""

    owner: int  # index in seed_demo.DEMO_USERS: 0 the referee, 1 and 2 the players
    name: str
    sheet: Mapping[str, Any] = field(default_factory=dict)
    opening: tuple[Opening, ...] = ()


@dataclass(frozen=True)
class Presentation:
    key: str
    view: SheetView
    party: tuple[DemoCharacter, ...]
    choices: Mapping[str, ChoiceSource] = field(default_factory=dict)
    # Texts a sheet holds only until someone writes the real one ("Major wound: awaiting
    # the referee's description"): an editing form shows them as a placeholder, never as
    # text to type after.
    placeholders: frozenset[str] = frozenset()
    # The decisions its rules ask for (a pending choice's kind -> what the log's filter
    # calls it): the log is filtered by them beside the actions.
    decisions: Mapping[str, StrOrPromise] = field(default_factory=dict)

    @property
    def sheet_template(self) -> str:
        return f"sheets/{self.key}.html"

    @property
    def card_template(self) -> str:
        return f"sheets/{self.key}_card.html"

    def templates(self, size: str = "sheet") -> list[str]:
        """The picture's template: the small one for ``size`` "card", else the full one."""
        return [self.card_template if size == "card" else self.sheet_template]


GENERIC_TEMPLATES = {"sheet": "sheets/generic.html", "card": "sheets/generic_card.html"}


@cache
def presentation(key: str) -> Presentation | None:
    """The presentation of ruleset ``key``; None when it has none (the pages fall back to
    the generic picture, and the recipe test fails)."""
    try:
        module = importlib.import_module(f"web.rulesets.{key}")
    except ModuleNotFoundError:
        return None
    found = getattr(module, "PRESENTATION", None)
    return found if isinstance(found, Presentation) and found.key == key else None


def sheet_templates(key: str, size: str = "sheet") -> list[str]:
    """Templates to try for a ruleset's picture: its own, then the generic one."""
    shown = presentation(key)
    own = shown.templates(size) if shown is not None else []
    return [*own, GENERIC_TEMPLATES["card" if size == "card" else "sheet"]]


def sheet_view(
    key: str,
    sheet: Mapping[str, Any],
    effects: Iterable[Any] = (),
    *,
    referee: bool = False,
    raw: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    shown = presentation(key)
    if shown is None:
        return {}
    return shown.view(sheet, effects, referee=referee, raw=raw)


def sheet_placeholders(key: str) -> frozenset[str]:
    shown = presentation(key)
    return shown.placeholders if shown is not None else frozenset()


def ruleset_decisions(key: str) -> Mapping[str, StrOrPromise]:
    shown = presentation(key)
    return shown.decisions if shown is not None else {}


def sheet_choices(key: str, param: str) -> ChoiceSource | None:
    shown = presentation(key)
    return shown.choices.get(param) if shown is not None else None
