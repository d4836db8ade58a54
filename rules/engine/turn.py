"""One resolution's scratchpad, shared by the rulesets that build a result step by step.

A :class:`Turn` holds the sheet being changed (already a copy), the dice and context,
and collects what the resolution says, schedules, cancels and reports; :meth:`result`
folds it into a :class:`Result`. The rolls are filled in by ``Ruleset`` (every roll
since the resolution began), so no ruleset lists them.
"""

from __future__ import annotations

from typing import Any

from rules.engine.dice import Dice
from rules.engine.interface import Context, PendingChoice, Result, ScheduledEffect, Sheet
from rules.engine.text import sentence


class Turn:
    def __init__(self, sheet: Sheet, dice: Dice, context: Context) -> None:
        self.sheet = sheet
        self.dice = dice
        self.context = context
        self.notes: list[str] = []
        self.effects: list[ScheduledEffect] = []
        self.cancels: list[str] = []
        self.outcome: dict[str, Any] = {}
        self.pending: PendingChoice | None = None
        self.elapsed = 0

    @property
    def clock(self) -> int:
        return self.context.clock

    def note(self, text: str) -> None:
        """A part of the summary sentence."""
        self.notes.append(text)

    def schedule(
        self, kind: str, due_in: int, payload: dict[str, Any], key: str = "", hidden: bool = False
    ) -> None:
        self.effects.append(ScheduledEffect(kind, due_in, payload, key, hidden))

    def cancel(self, key: str) -> None:
        self.cancels.append(key)

    def finish(self) -> None:
        """What the ruleset computes last, before :meth:`result` (derived fields...)."""

    def result(self) -> Result:
        self.finish()
        return Result(
            sheet=self.sheet,
            summary=sentence(self.notes),
            pending_choice=self.pending,
            effects=tuple(self.effects),
            cancel_effects=tuple(dict.fromkeys(self.cancels)),
            outcome=self.outcome,
            elapsed_minutes=self.elapsed,
        )
