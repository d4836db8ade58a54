"""What a clock job did, told per character (issue 25, docs/clock.md "The advance report").

The report is built while the batch applies its effects (``rules.clock.services``): each
applied effect adds one event to its character's entry, with the character's state word
before the first and after the last. Nothing reads the log again to make it.

Stored form (``ClockReport.characters``), in order of each character's first event::

    [{"id", "name", "state_before", "state_after",
      "events": [{"clock", "resolution", "summary", "notable": [...], "hidden"}]}]

``notable`` names what a referee wants first (:data:`NOTABLE`); ``hidden`` marks an
event of a hidden effect or with a hidden roll (ruling G-4): left out for players
until the referee reveals the entry.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils.translation import gettext_lazy

from core.cleaning import json_text
from core.said import said_stored
from rules.clock.models import ClockReport, ClockReportPart

# The kinds of notable event, most notable first, and how a page says each.
NOTABLE: dict[str, Any] = {
    "death": gettext_lazy("died"),
    "incapacitated": gettext_lazy("was taken out of action"),
    "ability_loss": gettext_lazy("lost ability points"),
    "disease_over": gettext_lazy("came through a disease"),
    "aging": gettext_lazy("had a birthday with aging saves"),
    "starvation": gettext_lazy("went hungry or thirsty"),
    "choice": gettext_lazy("has a choice to make: the clock stopped"),
}
# State words that are not a fall (the page's good tone, web.templatetags.sawbones).
WELL = frozenset({"standing", "fresh", "alive", "ok", "winded", "harmed", "wounded"})
ABILITIES = ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma")
PRIVATION_EFFECTS = frozenset({"starvation_check", "thirst_check"})


# Each ability and its maximum, as a sheet names them.
_ABILITY_KEYS = tuple(key for name in ABILITIES for key in (name, f"max_{name}"))


def _ability_lost(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    olds, news = list(map(before.get, _ABILITY_KEYS)), list(map(after.get, _ABILITY_KEYS))
    if olds == news:  # most effects change no ability: told in C, not key by key
        return False
    return any(
        isinstance(old, int) and isinstance(new, int) and new < old
        for old, new in zip(olds, news, strict=True)
    )


def notable_marks(
    *,
    effect_kind: str,
    state_before: str,
    state_after: str,
    sheet_before: Mapping[str, Any],
    sheet_after: Mapping[str, Any],
    outcome: Mapping[str, Any],
    choice: bool,
) -> list[str]:
    """What makes an applied effect notable, in :data:`NOTABLE`'s order (may be empty)."""
    marks: set[str] = set()
    if state_after == "dead" and state_before != "dead":
        marks.add("death")
    elif state_after != state_before and state_after not in WELL:
        marks.add("incapacitated")
    if _ability_lost(sheet_before, sheet_after):
        marks.add("ability_loss")
    diseases_before = sheet_before.get("diseases")
    diseases_after = sheet_after.get("diseases")
    if (
        effect_kind == "disease_save"
        and isinstance(diseases_before, list)
        and isinstance(diseases_after, list)
        and len(diseases_after) < len(diseases_before)
        and state_after != "dead"
    ):
        marks.add("disease_over")
    aging = outcome.get("aging_saves")
    if isinstance(aging, Mapping) and int(aging.get("made") or 0) > 0:
        marks.add("aging")
    if effect_kind in PRIVATION_EFFECTS and sheet_before != sheet_after:
        marks.add("starvation")
    if choice:
        marks.add("choice")
    return [key for key in NOTABLE if key in marks]


@dataclass
class ReportBuilder:
    """One batch's events, by character, merged into the stored report at the batch's end."""

    entries: dict[int, dict[str, Any]] = field(default_factory=dict)
    # The resolution object of each event, whose id exists only once the batch is written.
    _pending: list[tuple[dict[str, Any], Any]] = field(default_factory=list)

    def add(
        self,
        *,
        character_id: int,
        name: str,
        state_before: str,
        state_after: str,
        clock: int,
        resolution: Any,
        summary: str,
        notable: list[str],
        hidden: bool,
    ) -> None:
        entry = self.entries.get(character_id)
        if entry is None:
            entry = self.entries[character_id] = {
                "id": character_id,
                "name": name,
                "state_before": state_before,
                "state_after": state_after,
                "events": [],
            }
        entry["state_after"] = state_after
        entry["name"] = name
        event = {
            "clock": clock,
            "resolution": None,
            "summary": summary,
            "notable": notable,
            "hidden": hidden,
        }
        if getattr(resolution, "said", None):
            event["said"] = resolution.said  # the summary's message (issue 37)
        entry["events"].append(event)
        self._pending.append((event, resolution))

    def span(self) -> tuple[int, int] | None:
        """The first and last in-game minute of this batch's events (None: no event)."""
        minutes = [event["clock"] for entry in self.entries.values() for event in entry["events"]]
        return (min(minutes), max(minutes)) if minutes else None

    def with_ids(self) -> list[dict[str, Any]]:
        """This batch's entries, each event's resolution id filled in (call once the
        batch's resolutions are written)."""
        for event, resolution in self._pending:
            event["resolution"] = resolution.pk
        return list(self.entries.values())

    def merged_into(self, stored: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The stored report's characters with this batch's events added (ids filled in:
        call once the batch's resolutions are written)."""
        return merged(stored, self.with_ids())


def merged(
    stored: Iterable[Mapping[str, Any]], *later: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """A report's characters with each of the ``later`` lists (the same shape) added in
    turn: a known character's events appended, its state after and name the later ones;
    a new one last. The given entries are not changed."""
    result: list[dict[str, Any]] = []
    by_id: dict[Any, dict[str, Any]] = {}
    for entries in (stored, *later):
        for entry in entries:
            known = by_id.get(entry["id"])
            if known is None:
                known = by_id[entry["id"]] = {**entry, "events": list(entry["events"])}
                result.append(known)
                continue
            known["events"].extend(entry["events"])
            known["state_after"] = entry["state_after"]
            known["name"] = entry["name"]
    return result


def report_add_batch(
    report: ClockReport,
    batch: ReportBuilder,
    *,
    catch_up: bool,
    clock: int,
    now: datetime,
) -> None:
    """Add a batch's events to the job's report (a part of it: :class:`ClockReportPart`),
    and the span of the clock it covers: a catch-up's report spans the minutes of the
    effects it applied (it moves no clock, issue 34), any other job's reaches ``clock``.
    Call once the batch's resolutions are written; ``report`` may be loaded without
    ``characters`` (``defer``): it is not read.

    The parts are never merged into the report's ``characters``: readers merge them
    (:func:`report_characters`), and a report is read far less often than a job writes
    one. Merging them when the job stopped rewrote the whole report, a tenth of a long
    advance's CPU (issue 39, docs/clock.md "The advance report").
    """
    span = batch.span()
    if not catch_up:
        report.clock_to = max(report.clock_to, clock)
    elif span is not None:
        first, last = span
        if _has_events(report):  # an earlier batch's
            first, last = min(first, report.clock_from), max(last, report.clock_to)
        report.clock_from, report.clock_to = first, last
    if batch.entries:
        ClockReportPart.objects.create(report=report, characters=json_text(batch.with_ids()))
        report.updated_at = now
    report.save(update_fields=["clock_from", "clock_to", "updated_at"])


def _has_events(report: ClockReport) -> bool:
    return (
        ClockReportPart.objects.filter(report=report).exists()
        or ClockReport.objects.filter(pk=report.pk).exclude(characters=[]).exists()
    )


def report_characters(report: ClockReport) -> list[dict[str, Any]]:
    """The report's characters: those stored with it (an action's job writes its report
    whole), then each of its batches' parts, in order (a worker's job)."""
    parts = ClockReportPart.objects.filter(report=report).order_by("id")
    texts = parts.values_list("characters", flat=True)
    return merged(report.characters, *(json.loads(text) for text in texts))


def report_for_viewer(
    characters: Sequence[Mapping[str, Any]],
    *,
    own: set[int] | None,
    revealed: set[int],
) -> list[dict[str, Any]]:
    """The report's characters as a viewer may read them.

    ``own``: the viewer's characters (None for the referee: everyone, everything);
    ``revealed``: resolutions the referee has shown to players (G-4). A player reads
    their own characters only, without the hidden events; a character left with no
    event is left out.
    """
    shown = []
    for entry in characters:
        if own is not None and entry["id"] not in own:
            continue
        events = [
            {
                "clock": event["clock"],
                "resolution": event["resolution"],
                "summary": said_stored(event["summary"], event.get("said")),
                "notable": list(event.get("notable", [])),
            }
            for event in entry["events"]
            if own is None or not event.get("hidden") or event["resolution"] in revealed
        ]
        if not events:
            continue
        shown.append(
            {
                "id": entry["id"],
                "name": entry["name"],
                "state_before": entry["state_before"],
                "state_after": entry["state_after"],
                "events": events,
            }
        )
    return shown


def hidden_resolutions(characters: Iterable[Mapping[str, Any]]) -> set[int]:
    """The resolutions of the report's hidden events (to ask which are revealed)."""
    return {
        event["resolution"]
        for entry in characters
        for event in entry["events"]
        if event.get("hidden") and event.get("resolution") is not None
    }


def notable_first(characters: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every notable event of the report, the most notable kind first, then in time order:
    ``{character, name, clock, resolution, summary, kind, words}``."""
    rank = {key: index for index, key in enumerate(NOTABLE)}
    found = []
    for entry in characters:
        for event in entry["events"]:
            marks = event.get("notable") or []
            if not marks:
                continue
            kind = min(marks, key=rank.__getitem__)
            found.append(
                {
                    "character": entry["id"],
                    "name": entry["name"],
                    "clock": event["clock"],
                    "resolution": event["resolution"],
                    "summary": said_stored(event["summary"], event.get("said")),
                    "kind": kind,
                    "words": str(NOTABLE[kind]),
                }
            )
    found.sort(key=lambda row: (rank[row["kind"]], row["clock"]))
    return found
