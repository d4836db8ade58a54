"""What a ruleset takes and gives besides the sheet's schema: the results, choices and
scheduled effects of a resolution, a referee's correction, and the errors the rules raise.

Plain frozen values, so a result can be compared, stored and replayed; the
:class:`~rules.engine.interface.Ruleset` base class builds and checks them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from rules.engine.dice import Roll
from rules.engine.words import sentences, text_dict, text_said

Sheet = dict[str, Any]
Params = dict[str, Any]
Who = Literal["owner", "referee"]


class RuleError(ValueError):
    """The request does not make sense under the rules (answered 400)."""


# The scheduled effect a ruleset lists when its sheet holds an order drawn in secret (a
# Deckahedron deck): the campaign applies it to every character as soon as its dice seed
# is revealed, so that the order in play comes from the new, still secret seed and the
# revealed one predicts nothing still hidden (docs/dice.md, "Hidden rolls").
RESEAL_EFFECT = "reseal"


class OddsUnavailable(RuleError):
    """The odds of this action are not computed yet (answered 400 with the reason)."""


class ActionBlocked(RuntimeError):
    """The character cannot act now: dead, incapacitated... (answered 409)."""


@dataclass(frozen=True)
class ChoiceOption:
    key: str
    label: str
    # A question the page asks before this option is taken, for a lethal or
    # irreversible one ("Die outright?"); empty for the others.
    confirm: str = ""


@dataclass(frozen=True)
class PendingChoice:
    """A question the rules ask mid-resolution (ruling G-3).

    ``kind`` tells the ruleset's :meth:`Ruleset.choose` what is being answered and
    ``state`` carries whatever it needs to finish (JSON-serialisable). The Django
    side gives each stored choice an id.
    """

    kind: str
    prompt: str
    options: tuple[ChoiceOption, ...]
    state: Mapping[str, Any] = field(default_factory=dict)
    who: Who = "owner"

    def option_keys(self) -> tuple[str, ...]:
        return tuple(option.key for option in self.options)

    def as_dict(self) -> dict[str, Any]:
        """JSON to store: the English texts, and beside each that is a message its data
        (``prompt_said``, ``label_said``, ``confirm_said``) to say it in another language."""
        return {
            "kind": self.kind,
            **text_dict("prompt", self.prompt),
            "options": [
                {
                    "key": o.key,
                    **text_dict("label", o.label),
                    **(text_dict("confirm", o.confirm) if o.confirm else {}),
                }
                for o in self.options
            ],
            "state": copy.deepcopy(dict(self.state)),
            "who": self.who,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PendingChoice:
        return cls(
            kind=data["kind"],
            prompt=text_said("prompt", data),
            options=tuple(
                ChoiceOption(
                    o["key"],
                    text_said("label", o),
                    text_said("confirm", o) if o.get("confirm") else "",
                )
                for o in data["options"]
            ),
            state=copy.deepcopy(dict(data.get("state", {}))),
            who=data.get("who", "owner"),
        )


@dataclass(frozen=True)
class ScheduledEffect:
    """Something the campaign clock must apply later (disease save, worsening...).

    ``due_in`` is in in-game minutes from the resolution's clock. ``key`` names the
    effect so a later result can cancel it (a treated wound stops worsening);
    ``hidden`` effects are not listed to players (ruling G-4).
    """

    kind: str
    due_in: int
    payload: Mapping[str, Any] = field(default_factory=dict)
    key: str = ""
    hidden: bool = False


@dataclass(frozen=True)
class Result:
    """What a resolution produced. The engine never mutates the sheet it was given."""

    sheet: Sheet
    summary: str
    rolls: tuple[Roll, ...] = ()
    pending_choice: PendingChoice | None = None
    effects: tuple[ScheduledEffect, ...] = ()
    cancel_effects: tuple[str, ...] = ()  # keys of scheduled effects to cancel
    outcome: Mapping[str, Any] = field(default_factory=dict)  # facts for the table
    elapsed_minutes: int = 0  # in-game time the action itself takes


@dataclass(frozen=True)
class OutOfBounds:
    """Where a sheet leaves its ruleset's own bounds (:meth:`Ruleset.out_of_bounds`)."""

    fields: tuple[str, ...]  # the sheet's fields it is about ("hp", "hit_dice")
    why: str  # a sentence naming the value and the bound: "hp 999 is above ... 24"


class CorrectionRefused(RuleError):
    """A referee's correction the rules refuse (:meth:`Ruleset.correct`): each problem a
    sentence naming the value and why, as the API lists them."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(sentences(problems))
        self.problems = problems


@dataclass(frozen=True)
class Correction:
    """A referee's correction as its ruleset takes it (:meth:`Ruleset.correct`)."""

    sheet: Sheet  # the sheet after it
    # field -> (before, after): the fields asked for that change, then those the rules
    # set as a consequence (a state the numbers decide, a value kept by the rules)
    asked: Mapping[str, tuple[Any, Any]]
    follows: Mapping[str, tuple[Any, Any]]
