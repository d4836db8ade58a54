"""The clock's log rows and effects as plain objects, not Django model instances
(issue 39): a batch of 500 effects made about 2,000 model instances (the effects loaded,
their resolutions, the effects those schedule), each ``Model.__init__`` costing more than
the row's own ``COPY``. These carry the same attributes under the same names as the
models' columns (``campaign_id``, ``sheet_after``...), so ``rules.log.sql_writes`` writes
them field by field exactly as it writes a model; :meth:`LogRow.model` gives the model
instance where one is needed (webhooks, off PostgreSQL).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from rules.log.models import EffectState, Resolution, ScheduledEffect


@dataclass(slots=True, eq=False)
class LogRow:
    """One resolution row as the clock's batch writes it (``Resolution``'s columns)."""

    campaign_id: int
    character_id: int
    kind: str
    action: str
    params: dict[str, Any]
    rolls: list[dict[str, Any]]
    summary: str
    said: dict[str, Any] | None
    outcome: dict[str, Any]
    sheet_before: Any
    sheet_after: Any
    version: int
    pending_choice: dict[str, Any] | None
    clock: int
    dice_counter_start: int
    dice_counter_end: int
    elapsed_minutes: int
    actor_id: int | None = None
    undoes_id: int | None = None
    batch: UUID | None = None
    imported_actor: str = ""
    revealed: bool = False
    id: int | None = None
    created_at: datetime | None = None  # set when written (``auto_now_add``)
    # JSON columns' values as JSON text, made once for the NUL check (``sheet_after``,
    # ``params``, ``outcome``; by attname): what the COPY sends as it is.
    texts: dict[str, str] = field(default_factory=dict)
    # The same of the payloads of the effects its result schedules, in order (None: none made).
    scheduled_texts: list[str | None] = field(default_factory=list)

    @property
    def pk(self) -> int | None:
        return self.id

    @pk.setter
    def pk(self, value: int | None) -> None:
        self.id = value

    def model(self, **related: Any) -> Resolution:
        """The ``Resolution`` of this row (written already when it has an id);
        ``related``: objects to set on it (``campaign``, ``character``) so reading them
        makes no query."""
        resolution = Resolution(
            **{f.attname: getattr(self, f.attname) for f in Resolution._meta.concrete_fields}
        )
        for name, value in related.items():
            setattr(resolution, name, value)
        if self.id is not None:
            resolution._state.adding = False
        return resolution


def _pk(row: LogRow | None) -> int | None:
    return None if row is None else row.id


@dataclass(slots=True, eq=False)
class EffectRow:
    """A scheduled effect as the clock's batch holds it: one loaded (pending, with its
    id; only the columns the batch reads or changes) or one it schedules (no id yet).
    The resolutions it names are rows of the same batch: their ids are read when the
    effect is written (``*_id``), after theirs are given."""

    campaign_id: int
    character_id: int
    kind: str
    key: str
    due_at: int
    payload: dict[str, Any]
    hidden: bool
    state: str = EffectState.PENDING
    id: int | None = None
    created_by: LogRow | None = None
    cancelled_by: LogRow | None = None
    resolution: LogRow | None = None
    created_at: datetime | None = None  # set when written (``auto_now_add``)
    # Its ``payload`` as JSON text made already (for ``Copy.write``), if any.
    texts: dict[str, str] | None = None

    # Loaded: the columns the batch reads (and writes back: state, resolution, cancelled_by).
    COLUMNS = ("id", "campaign_id", "character_id", "kind", "key", "due_at", "payload", "hidden")

    @classmethod
    def loaded(cls, values: tuple[Any, ...]) -> EffectRow:
        """The effect from a ``values_list(*COLUMNS)`` row (a pending effect)."""
        pk, campaign_id, character_id, kind, key, due_at, payload, hidden = values
        return cls(campaign_id, character_id, kind, key, due_at, payload, hidden, id=pk)

    @property
    def pk(self) -> int | None:
        return self.id

    @property
    def created_by_id(self) -> int | None:
        return _pk(self.created_by)

    @property
    def cancelled_by_id(self) -> int | None:
        return _pk(self.cancelled_by)

    @property
    def resolution_id(self) -> int | None:
        return _pk(self.resolution)

    def model(self) -> ScheduledEffect:
        """The ``ScheduledEffect`` of this row (off PostgreSQL, for ``bulk_create`` and
        ``bulk_update``)."""
        effect = ScheduledEffect(
            **{f.attname: getattr(self, f.attname) for f in ScheduledEffect._meta.concrete_fields}
        )
        if self.id is not None:
            effect._state.adding = False
        return effect
