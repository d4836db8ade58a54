"""The log's rows as the play and the clock shape them: one resolution per state change
of a character, and the effects it schedules. Saved by their callers
(``rules.play.services.persist_result``, the clock's batches: ``rules.log.sql_writes``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, Unpack

from campaigns.models import Campaign
from characters.models import Character
from core.cleaning import json_without_nul, reject_nul_characters
from rules.engine.interface import Result
from rules.engine.validation import copy_json
from rules.engine.words import Message, say
from rules.log.models import Resolution, ScheduledEffect
from rules.log.rows import EffectRow, LogRow


class ResolutionStep(TypedDict):
    """What one step of a character writes to the log, as its writers pass it on: the
    keyword arguments :func:`build_resolution` and
    :func:`rules.play.services.persist_result` share, said once."""

    campaign: Campaign
    character: Character
    result: Result
    kind: str
    action: str
    params: Mapping[str, Any]
    actor: Any
    counter_start: int
    counter_end: int
    clock: int


# The template of a log entry's message: the character's name, then what happened.
NAMED_SUMMARY = "{name}: {summary}"


def named_summary(name: str, summary: str) -> dict[str, Any] | None:
    """The stored message of "<name>: <summary>" when the summary is an engine message
    (the log's ``said``), else None (the English text is all there is)."""
    if not isinstance(summary, Message):
        return None
    if type(name) is str:
        # What ``say(...).data()`` stores, without rendering the English text it does not
        # keep (the log's ``summary`` is made apart): the clock names 14,000 summaries.
        return {"t": NAMED_SUMMARY, "v": {"name": name, "summary": {"m": summary.data()}}}
    return say(NAMED_SUMMARY, name=name, summary=summary).data()


def entry_summary(entry: Resolution, name: str) -> str:
    """What ``entry`` says without the character's name in front: its engine message
    when the entry keeps one (``said``), else the English text as the log has it."""
    if entry.said:
        try:
            said = Message.from_data(entry.said)
        except (KeyError, TypeError, ValueError):
            said = None
        if said is not None and said.template == NAMED_SUMMARY:
            inner = said.values.get("summary")
            if isinstance(inner, str):
                return inner
    return entry.summary.removeprefix(f"{name}: ")


def build_resolution(
    *,
    pending_choice: dict[str, Any] | None,
    undoes: Resolution | None = None,
    batch: Any = None,
    **step: Unpack[ResolutionStep],
) -> Resolution:
    """The unsaved log row of ``result`` for ``character`` (still at its old version).

    The one place a resolution row is shaped (:func:`_resolution_values`):
    :func:`rules.play.services.persist_result` saves one, the campaign clock a batch of
    them as plain rows (:func:`build_log_row`, ``rules.log.sql_writes``).
    """
    actor = step["actor"]
    values, texts, _ = _resolution_values(pending_choice, **step)
    resolution = Resolution(
        campaign=step["campaign"],
        character=step["character"],
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        undoes=undoes,
        batch=batch,
        **values,
    )
    resolution.sheet_after_json = texts.get("sheet_after")
    return resolution


def build_log_row(
    *, pending_choice: dict[str, Any] | None, **step: Unpack[ResolutionStep]
) -> LogRow:
    """:func:`build_resolution`'s row as a plain :class:`LogRow` (no model instance), for
    the clock's batches: no actor, no undo, no batch id."""
    assert not getattr(step["actor"], "is_authenticated", False)
    values, texts, scheduled_texts = _resolution_values(pending_choice, **step)
    return LogRow(
        campaign_id=step["campaign"].pk,
        character_id=step["character"].pk,
        texts=texts,
        scheduled_texts=scheduled_texts,
        **values,
    )


def _resolution_values(
    pending_choice: dict[str, Any] | None, **step: Unpack[ResolutionStep]
) -> tuple[dict[str, Any], dict[str, str], list[str | None]]:
    """A resolution's column values but its relations; the JSON texts made to check
    them for NUL (by column), and those of the payloads of the effects it schedules.

    Each value is checked on its JSON text (``json_without_nul``), and that text is
    what the clock's COPY writes: the row's JSON is encoded once, not twice
    (bench/clock_advance.py). In the same order as one check of them all: the params,
    the sheet, then the summary, the outcome and the payloads, worded "the resolution".
    """
    character, result, params = step["character"], step["result"], step["params"]
    made = {
        "params": json_without_nul(params, "params"),
        "sheet_after": json_without_nul(result.sheet, "the resolution"),
    }
    if "\x00" in result.summary:  # its text is what a check of its JSON would walk
        reject_nul_characters(result.summary, "the resolution")
    outcome = dict(result.outcome)
    made["outcome"] = json_without_nul(outcome, "the resolution")
    scheduled = [json_without_nul(dict(e.payload), "the resolution") for e in result.effects]
    values = {
        "kind": step["kind"],
        "action": step["action"],
        "params": copy_json(dict(params)),
        "rolls": [roll.as_dict() for roll in result.rolls],
        # The engine knows sheets, not names: the log names the character.
        "summary": f"{character.name}: {result.summary}",
        "said": named_summary(character.name, result.summary),
        "outcome": copy_json(outcome),
        "sheet_before": character.sheet,
        "sheet_after": result.sheet,
        "version": character.version + 1,
        "pending_choice": pending_choice,
        "clock": step["clock"],
        "dice_counter_start": step["counter_start"],
        "dice_counter_end": step["counter_end"],
        "elapsed_minutes": max(0, int(result.elapsed_minutes)),
    }
    texts = {column: text for column, text in made.items() if text is not None}
    return values, texts, scheduled


def build_scheduled_effects(*, resolution: Resolution, result: Result) -> list[ScheduledEffect]:
    """The unsaved effect rows ``result`` schedules, due from the resolution's minute."""
    return [
        ScheduledEffect(
            campaign=resolution.campaign,
            character=resolution.character,
            created_by=resolution,
            **values,
        )
        for values in _scheduled_values(resolution.clock, result)
    ]


def scheduled_effect_rows(*, resolution: LogRow, result: Result) -> list[EffectRow]:
    """:func:`build_scheduled_effects` as plain :class:`EffectRow` (the clock's batches),
    each with its payload's JSON text when the resolution's check made it."""
    owner: dict[str, Any] = {
        "campaign_id": resolution.campaign_id,
        "character_id": resolution.character_id,
    }
    rows = [
        EffectRow(**owner, **effect, created_by=resolution)
        for effect in _scheduled_values(resolution.clock, result)
    ]
    for row, text in zip(rows, resolution.scheduled_texts, strict=False):
        if text is not None:
            row.texts = {"payload": text}
    return rows


def _scheduled_values(clock: int, result: Result) -> list[dict[str, Any]]:
    """The column values of the effects ``result`` schedules but their relations."""
    return [
        {
            "kind": effect.kind,
            "key": effect.key,
            "due_at": clock + max(0, effect.due_in),
            "payload": copy_json(dict(effect.payload)),
            "hidden": effect.hidden,
        }
        for effect in result.effects
    ]
