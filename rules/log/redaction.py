"""What a player may not see yet (ruling G-4, issue 36), decided here once for every
answer, page, recap, advance report and e-mail digest that shows a log entry.

The referee sees everything, and so do the referee's own outputs (the export, the CSV
log, webhooks, which only a referee registers). Anyone else, until the referee reveals
the entry (``Resolution.revealed``), is shown the entry without:

* its hidden rolls (the referee's exposure save, a Deckahedron shuffle);
* what the ruleset keeps for the referee, ``outcome.referee_only`` (a secret disease:
  its name, the save, whether it took), and with it every param the entry was asked
  with: they name the secret (``contract_disease`` with ``hidden``, ``expose_disease``,
  the cure of a secret disease all name the disease).

The tellings of what happened (the session recap, the clock's advance report and the
e-mail digest made of it) go further and leave out, whole, an entry with a hidden roll
or one that applies a hidden scheduled effect (:attr:`Seen.told`): they would say that
a secret was rolled or applied. Beside the entries, a sheet's secrets are left out by
its ruleset's ``public_sheet``, and hidden scheduled effects by
``rules.log.selectors.effects_for_viewer``.

Nothing here reads the database: a caller that tells entries asks which of them apply a
hidden effect (:func:`entries_applying_hidden_effects`, one query) or knows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.log.models import Resolution, ResolutionKind, ScheduledEffect
from rules.log.rows import LogRow

# Where a ruleset puts, in a resolution's outcome, what only the referee may know.
REFEREE_ONLY = "referee_only"


@dataclass(frozen=True)
class Seen:
    """One log entry as one viewer may see it."""

    rolls: list[dict[str, Any]]  # as stored, the hidden ones left out
    withheld_rolls: int  # how many were left out (the dice's counters still show a roll)
    outcome: dict[str, Any]
    params: dict[str, Any]
    told: bool  # a telling (recap, report, digest) may tell the entry at all


def entry_seen(
    resolution: Resolution | LogRow, *, referee: bool, applies_hidden_effect: bool = False
) -> Seen:
    """The entry as the viewer may see it (module docstring)."""
    if referee or resolution.revealed:
        return Seen(
            rolls=list(resolution.rolls),
            withheld_rolls=0,
            outcome=dict(resolution.outcome),
            params=dict(resolution.params),
            told=True,
        )
    rolls = [roll for roll in resolution.rolls if not roll.get("hidden")]
    secret = REFEREE_ONLY in resolution.outcome
    return Seen(
        rolls=rolls,
        withheld_rolls=len(resolution.rolls) - len(rolls),
        outcome={key: value for key, value in resolution.outcome.items() if key != REFEREE_ONLY},
        params={} if secret else dict(resolution.params),
        told=entry_told(resolution, applies_hidden_effect=applies_hidden_effect),
    )


def entry_told(resolution: Resolution | LogRow, *, applies_hidden_effect: bool = False) -> bool:
    """:attr:`Seen.told` for a player, without the rest of :func:`entry_seen` (the
    clock's report asks it of every effect it applies)."""
    if resolution.revealed:
        return True
    return not applies_hidden_effect and not any(roll.get("hidden") for roll in resolution.rolls)


def entries_applying_hidden_effects(resolutions: Iterable[Resolution]) -> set[int]:
    """The ids of those entries, not revealed, that apply a hidden scheduled effect: in
    one query, only when there are such entries to ask about."""
    effects = {
        int(r.params["scheduled_effect"]): r.pk
        for r in resolutions
        if r.kind == ResolutionKind.EFFECT
        and not r.revealed
        and isinstance(r.params.get("scheduled_effect"), int)
    }
    if not effects:
        return set()
    hidden = ScheduledEffect.objects.filter(pk__in=effects, hidden=True).values_list(
        "pk", flat=True
    )
    return {effects[pk] for pk in hidden}


def keeps_secret(resolution: Resolution) -> bool:
    """The entry keeps something from players until the referee reveals it (a page
    offers the referee "Reveal")."""
    seen = entry_seen(resolution, referee=False)
    return bool(seen.withheld_rolls) or REFEREE_ONLY in resolution.outcome
