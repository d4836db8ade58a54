"""The log's rows written in as few statements as the database allows: the one module
of ours that reaches into Django's SQL internals (issue 35), with its own tests
(rules/log/tests/test_sql_writes.py).

* :class:`ResolutionWriter`, :class:`Copy`, :func:`copy_rows`: the clock's batches of
  resolutions and new effects streamed with ``COPY`` (PostgreSQL), else ``bulk_create``.
* :func:`bulk_set`, :func:`sheets_from_log`: a batch's updates in one statement each.

An action's statements, compiled once, are in ``rules.log.statements``.

Callers hold the locks and the transaction; this module decides nothing about the play
or the clock, it writes the rows it is given.
"""

from __future__ import annotations

import operator
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack
from datetime import datetime
from types import TracebackType
from typing import Any

from django.db import connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import (
    AutoField,
    BigAutoField,
    BigIntegerField,
    BooleanField,
    CharField,
    DateTimeField,
    Field,
    ForeignKey,
    IntegerField,
    JSONField,
    Model,
    OneToOneField,
    PositiveBigIntegerField,
    PositiveIntegerField,
    PositiveSmallIntegerField,
    SmallAutoField,
    SmallIntegerField,
    TextField,
    UUIDField,
)
from django.utils import timezone

from characters.models import Character
from core.cleaning import json_text
from rules.log.models import EffectState, Resolution, ScheduledEffect
from rules.log.rows import LogRow
from rules.log.statements import Preceding, log_query, run_bound, run_prepared


def sheets_from_log(resolutions: Sequence[LogRow], now: datetime) -> int:
    """Set each character's sheet, version and pending choice to its last resolution's
    of the batch, in the database (PostgreSQL): the rows are in already, so the sheets
    are neither sent nor parsed a second time. One statement; the number of characters
    whose row was not found (0, unless something went wrong)."""
    sql, params, count = _sheets_sql(resolutions, now)
    return count - _execute_bound(connections[connection.alias], sql, params)


def _sheets_sql(resolutions: Sequence[LogRow], now: datetime) -> tuple[str, list[Any], int]:
    """:func:`sheets_from_log`'s update, not run, and the number of characters it sets."""
    last = {r.character_id: r.pk for r in resolutions}  # a later resolution wins
    db = connections[connection.alias]
    quote = db.ops.quote_name
    character, resolution = Character._meta, Resolution._meta

    def column(meta: Any, name: str) -> str:
        return quote(meta.get_field(name).column)

    copied = ", ".join(
        f"{column(character, to)} = r.{column(resolution, source)}"
        for to, source in (
            ("sheet", "sheet_after"),
            ("version", "version"),
            ("pending_choice", "pending_choice"),
        )
    )
    # Only quoted names from the models' metadata go into the text; values are parameters.
    sql = (
        f"UPDATE {quote(character.db_table)} AS c SET {copied}, "  # noqa: S608
        f"{column(character, 'updated_at')} = %s "
        f"FROM {quote(resolution.db_table)} AS r "
        f"WHERE r.{column(resolution, 'id')} = ANY(%s) "
        f"AND c.{column(character, 'id')} = r.{column(resolution, 'character')}"
    )
    return sql, [now, list(last.values())], len(last)


def effects_and_sheets(
    effects: list[Any], names: list[str], resolutions: Sequence[LogRow], now: datetime
) -> tuple[int, int]:
    """:func:`bulk_set` of the effects a batch applied or cancelled (compare-and-set on
    their pending state) and :func:`sheets_from_log`, in one statement (PostgreSQL: two
    data-modifying CTEs; a round trip fewer per batch, issue 39): the number of effects
    changed, and of characters whose row was not found."""
    ctes, count = effects_and_sheets_ctes(effects, names, resolutions, now)
    changed, sheets = counted_run(ctes)
    return changed, count - sheets


def counted_run(before: Preceding) -> tuple[int, ...]:
    """``before``'s CTEs run as a statement of their own: the rows each counted one
    returned."""
    # the CTEs' text and names are ours (Preceding); values are parameters
    counts = ", ".join(f"(SELECT count(*) FROM {name})" for name in before.counted)  # noqa: S608
    sql = f"WITH {before.ctes} SELECT {counts}"
    [row] = run_bound(connections[connection.alias], sql, before.params)[0]
    return tuple(int(count) for count in row)


def effects_and_sheets_ctes(
    effects: list[Any], names: list[str], resolutions: Sequence[LogRow], now: datetime
) -> tuple[Preceding, int]:
    """:func:`effects_and_sheets`' two CTEs, ``effects`` and ``sheets``, not run (to run
    ahead of the job's end: ``rules.log.statements.write_job_end``), and the number of
    characters whose sheets they set."""
    effects_sql, effects_params = _bulk_set_sql(ScheduledEffect, effects, names, True)
    sheets_sql, sheets_params, count = _sheets_sql(resolutions, now)
    # Both texts are this module's (names from the models' metadata); values are parameters.
    ctes = f"effects AS ({effects_sql} RETURNING 1), sheets AS ({sheets_sql} RETURNING 1)"
    return Preceding(ctes, [*effects_params, *sheets_params], ("effects", "sheets")), count


def use_copy() -> bool:
    """Whether the batch writes its new rows with COPY (PostgreSQL) or ``bulk_create``."""
    return connection.vendor == "postgresql"


# Each table's sequence as an SQL literal, by table (PostgreSQL): looked up once per process.
_SEQUENCES: dict[str, str] = {}


def _sequence(model: type[Model]) -> str:
    """The table's sequence as an SQL literal (PostgreSQL), looked up once per process."""
    pk = model._meta.pk
    assert pk is not None
    table = model._meta.db_table
    sequence = _SEQUENCES.get(table)
    if sequence is None:
        db = connections[connection.alias]
        [(name,)] = run_prepared(db, "SELECT pg_get_serial_sequence(%s, %s)", [table, pk.column])
        # the catalog's own name, quoted as a literal (a quote in it doubled)
        sequence = _SEQUENCES[table] = "'" + str(name).replace("'", "''") + "'"
    return sequence


def take_ids(model: type[Model], count: int) -> list[int]:
    """``count`` new ids from the table's sequence, in order (PostgreSQL; one query).

    The sequence is named in the statement's text, so the planner resolves it once: with
    ``pg_get_serial_sequence`` in it, each id looked the sequence up in the catalogs again
    (issue 39: a fifth of a millisecond of PostgreSQL's CPU for an action's 17 ids)."""
    text = f"SELECT nextval({_sequence(model)}::regclass) FROM generate_series(1, %s)"  # noqa: S608 - the catalog's name
    rows = run_prepared(connections[connection.alias], text, [count])
    return sorted(row[0] for row in rows)


def ids_column(model: type[Model]) -> str:
    """SQL of :func:`take_ids` as one value, an array of new ids in order, for the select
    list of another statement (its one parameter: how many): a batch takes its log's ids
    with its characters' lock (rules.clock.batch), a round trip fewer (issue 39)."""
    return (
        f"(SELECT array_agg(nextval({_sequence(model)}::regclass) ORDER BY n) "  # noqa: S608 - the catalog's name
        "FROM generate_series(1, %s) AS n)"
    )


# Fields whose ``pre_save`` reads the attribute and whose ``get_db_prep_save`` gives a
# value of these exact types back as it is (PostgreSQL may wrap an int in a psycopg
# integer type: its text in a COPY is the same). Any other type or field: the field's way.
_PLAIN_TYPES: dict[type[Field[Any, Any]], tuple[type, ...]] = {
    **dict.fromkeys(
        (
            AutoField,
            BigAutoField,
            SmallAutoField,
            IntegerField,
            BigIntegerField,
            SmallIntegerField,
            PositiveIntegerField,
            PositiveBigIntegerField,
            PositiveSmallIntegerField,
        ),
        (int, type(None)),
    ),
    CharField: (str, type(None)),
    TextField: (str, type(None)),
    BooleanField: (bool, type(None)),
    # COPY is PostgreSQL's, whose uuid is native: the field gives a UUID back as it is
    UUIDField: (uuid.UUID, type(None)),
}


def _field_type(field: Field[Any, Any]) -> type[Field[Any, Any]]:
    """The field's class; for a foreign key, its target's (a key is written as its id)."""
    if type(field) in (ForeignKey, OneToOneField):
        assert isinstance(field, ForeignKey)
        return type(field.target_field)
    return type(field)


class _CopyPlan:
    """:class:`Copy`'s text and columns for a model (see there), made once."""

    def __init__(self, model: type[Model], with_pk: bool, db: BaseDatabaseWrapper) -> None:
        fields = [f for f in model._meta.concrete_fields if with_pk or not f.primary_key]
        quote = db.ops.quote_name
        # Only quoted names from the model's metadata go into the text; values are data.
        self.sql = (
            f"COPY {quote(model._meta.db_table)} "
            f"({', '.join(quote(f.column) for f in fields)}) FROM STDIN"
        )
        # A row's values read in one call (in C), then, by their place in the row, those
        # that need more (issue 39: a loop over the columns in Python cost more per row
        # than psycopg's own formatting of it):
        self.values = operator.attrgetter(*(f.attname for f in fields))
        # a JSON column without its own encoder: its JSON text (core.cleaning.json_text: the value
        # Django's adapter would have psycopg send, ``adapt_json_value``), made directly;
        self.json: list[tuple[int, str]] = []
        # a time stamp set on insert (``auto_now_add``): ``timezone.now()`` as ``pre_save``
        # sets it, once for the whole COPY (its rows are one statement's, as a
        # ``bulk_create``'s would be one transaction's), which the adapter gives back as it is;
        self.now: list[tuple[int, str]] = []
        # any other: kept when of a type its field gives back unchanged (an int for an
        # integer column..., any ``str`` for a text one), else through the field.
        self.checked: list[tuple[int, Field[Any, Any], tuple[type, ...], bool]] = []
        for n, f in enumerate(fields):
            if isinstance(f, JSONField) and f.encoder is None:
                self.json.append((n, f.attname))
            elif isinstance(f, DateTimeField) and (f.auto_now or f.auto_now_add):
                self.now.append((n, f.attname))
            else:
                kind = _field_type(f)
                any_str = kind in (CharField, TextField)
                self.checked.append((n, f, _PLAIN_TYPES.get(kind, ()), any_str))


_COPY_PLANS: dict[tuple[type[Model], bool, str], _CopyPlan] = {}


class Copy:
    """A COPY into ``model``'s table (PostgreSQL): the rows ``bulk_create`` would insert.

    Every concrete column (the primary key too when ``with_pk``, else the database
    numbers the rows), each value through its field's ``pre_save`` (``auto_now_add``)
    and ``get_db_prep_save`` as Django's insert does, unless the field would give it
    back as it is (_PLAIN_TYPES) or it comes as JSON text made already; foreign keys
    must be in their ``*_id`` attributes already. The objects may be models or plain
    rows with the same attributes (rules.log.rows). Rows go to the server as they are
    written, in chunks: it stores them while the caller goes on. Errors are Django's
    (an ``IntegrityError`` for a second resolution of one effect...); the COPY is logged
    with the queries. Nothing else may use the connection while it is open.
    """

    def __init__(self, model: type[Model], *, with_pk: bool) -> None:
        self.db = connections[connection.alias]  # not the proxy: read per value
        # The COPY's text and how each column's value is made: worked out once per
        # model, columns and database (issue 39: on every batch, a tenth of a
        # millisecond of an action whose time crosses effects).
        key = (model, with_pk, self.db.alias)
        plan = _COPY_PLANS.get(key)
        if plan is None:
            plan = _COPY_PLANS[key] = _CopyPlan(model, with_pk, self.db)
        self.sql, self._values = plan.sql, plan.values
        self._json, self._now, self._checked = plan.json, plan.now, plan.checked
        self.written: list[Any] = []
        self._stack = ExitStack()
        self._start = 0.0
        self._created: datetime | None = None
        self._writer: Any = None

    def __enter__(self) -> Copy:
        self._start = time.monotonic()
        self._created = timezone.now()
        self._stack.enter_context(self.db.wrap_database_errors)
        cursor = self._stack.enter_context(self.db.cursor())
        self._writer = self._stack.enter_context(cursor.cursor.copy(self.sql))
        return self

    def write(self, obj: Any, texts: Mapping[str, str] | None = None) -> None:
        """Write ``obj``'s row; ``texts``: JSON columns' values as JSON text made already
        (by attname), written as they are instead of encoded again."""
        row = list(self._values(obj))
        for n, name in self._json:
            text = texts.get(name) if texts else None
            if text is None:
                value = row[n]
                # None is SQL NULL, as JSONField.get_db_prep_save gives it
                text = None if value is None else json_text(value)
            row[n] = text
        for n, name in self._now:
            row[n] = self._created
            setattr(obj, name, self._created)
        for n, field, plain, any_str in self._checked:
            value = row[n]
            # CharField and TextField give any str back as it is (an enum's member too)
            if type(value) not in plain and not (any_str and isinstance(value, str)):
                row[n] = field.get_db_prep_save(field.pre_save(obj, True), self.db)
        self._writer.write_row(row)
        self.written.append(obj)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stack.__exit__(exc_type, exc, traceback)  # ends the COPY, or aborts it
        if exc_type is None:
            for obj in self.written:
                if isinstance(obj, Model):
                    obj._state.adding = False
                    obj._state.db = self.db.alias
            log_query(self.db, f"{self.sql} -- {len(self.written)} rows", self._start)


def copy_rows(model: type[Model], objs: list[Any], *, with_pk: bool) -> None:
    """Insert ``objs`` with one COPY (see :class:`Copy`)."""
    with Copy(model, with_pk=with_pk) as rows:
        for obj in objs:
            rows.write(obj, getattr(obj, "texts", None))


class ResolutionWriter:
    """Where a batch puts its resolutions as it makes them.

    On PostgreSQL each is written at once into a COPY that stays open while the batch
    applies the next effects, so the database stores the rows while Python works out
    the following ones (two cores at work, not one after the other). Ids come
    from the table's sequence, one for each effect the batch loaded (those left unused
    are skipped numbers, as a rolled-back insert leaves): taken with the characters' lock
    (``ids``), or when the first resolution comes; given in order: ids follow the log, as
    ``bulk_create`` gives them. No query may run while the COPY is open: the batch's loop
    makes none. Elsewhere the resolutions are bulk-created when the batch's loop ends.
    """

    def __init__(self, capacity: int, ids: list[int] | None = None) -> None:
        self.capacity = capacity
        self.copying = use_copy()  # asked once, not per row
        self.pending: list[LogRow] = []  # for bulk_create, off PostgreSQL
        self._copy: Copy | None = None
        # taken already (``ids_column``, with the characters' lock), else when needed
        self._ids: Iterator[int] = iter(())
        self._taken = ids
        # The JSON text of each sheet written after, by the sheet's id (the sheet kept so
        # the id is not reused): a character's next resolution has it as its sheet before.
        self._texts: dict[int, tuple[Any, str]] = {}

    def __enter__(self) -> ResolutionWriter:
        return self

    def known_text(self, sheet: Any, text: str | None) -> None:
        """``text`` is ``sheet`` as JSON (any text PostgreSQL parses to the same value)."""
        if text is not None:
            self._texts[id(sheet)] = (sheet, text)

    def add(self, resolution: LogRow) -> None:
        if not self.copying:
            self.pending.append(resolution)
            return
        if self._copy is None:
            taken = self._taken if self._taken is not None else take_ids(Resolution, self.capacity)
            self._ids = iter(sorted(taken))
            self._copy = Copy(Resolution, with_pk=True).__enter__()
        resolution.pk = next(self._ids)
        # The JSON texts made already (those build_log_row checked for NUL, the sheet
        # after among them), and the sheet before, which is the character's last sheet
        # after in this batch (the same object, which nothing changes once the engine
        # returned it).
        texts = resolution.texts
        before = self._texts.get(id(resolution.sheet_before))
        if before is not None and before[0] is resolution.sheet_before:
            texts["sheet_before"] = before[1]
        self._copy.write(resolution, texts)
        after = texts.get("sheet_after")
        if after is not None:
            self._texts[id(resolution.sheet_after)] = (resolution.sheet_after, after)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._copy is not None:
            self._copy.__exit__(exc_type, exc, traceback)
        elif exc_type is None and self.pending:
            # Off PostgreSQL: as models, their ids and timestamps given back to the rows.
            models = Resolution.objects.bulk_create([row.model() for row in self.pending])
            for row, model in zip(self.pending, models, strict=True):
                row.id, row.created_at = model.pk, model.created_at


def bulk_set(
    model: type[Model], objs: list[Any], names: list[str], *, where_pending: bool = False
) -> int:
    """Update ``names`` of each object's row in one statement; the number of rows changed.

    On PostgreSQL, ``UPDATE ... FROM unnest(<one array per column>)``: Django's
    ``bulk_update`` builds a CASE expression per row and field, several times slower for
    a batch of sheets, and a ``VALUES`` list of one parameter per value costs the client
    and the server's parser per row. ``where_pending`` changes only rows still pending
    (the effects' compare-and-set).
    """
    if connection.vendor != "postgresql":
        rows = model._default_manager.all()
        if where_pending:
            rows = rows.filter(state=EffectState.PENDING)
        return rows.bulk_update(objs, names)
    sql, params = _bulk_set_sql(model, objs, names, where_pending)
    return _execute_bound(connections[connection.alias], sql, params)


def _bulk_set_sql(
    model: type[Model], objs: list[Any], names: list[str], where_pending: bool
) -> tuple[str, list[Any]]:
    """:func:`bulk_set`'s update on PostgreSQL, not run."""
    db = connections[connection.alias]  # not the proxy: its attributes are read per value
    key = (model, tuple(names), where_pending, db.alias)
    if (shape := _BULK_SET_SHAPES.get(key)) is None:
        shape = _BULK_SET_SHAPES[key] = _bulk_set_shape(db, model, names, where_pending)
    sql, fields = shape
    params: list[Any] = [[obj.pk for obj in objs]]
    for field, plain, any_str in fields:
        values = [getattr(obj, field.attname) for obj in objs]
        # As Copy.write: a value its field would give back as it is goes as it is.
        if not all(type(v) in plain or (any_str and isinstance(v, str)) for v in values):
            values = [field.get_db_prep_save(value, db) for value in values]
        params.append(values)
    if where_pending:
        params.append(EffectState.PENDING.value)
    return sql, params


# (model, names, where_pending, alias) -> the update's text and, for each column it
# sets, the field with the types it gives back unchanged (_PLAIN_TYPES).
_BULK_SET_SHAPES: dict[
    tuple[type[Model], tuple[str, ...], bool, str],
    tuple[str, list[tuple[Field[Any, Any], tuple[type, ...], bool]]],
] = {}


def _bulk_set_shape(
    db: BaseDatabaseWrapper, model: type[Model], names: list[str], where_pending: bool
) -> tuple[str, list[tuple[Field[Any, Any], tuple[type, ...], bool]]]:
    """:func:`_bulk_set_sql`'s text and fields, made once per model and columns."""
    quote = db.ops.quote_name
    pk = model._meta.pk
    assert pk is not None
    fields: list[Field[Any, Any]] = []
    for name in names:
        field = model._meta.get_field(name)
        assert isinstance(field, Field), name  # a column of the model, not a relation's far end
        fields.append(field)
    columns = [pk, *fields]
    # Only quoted names from the model's metadata go into the text; values are parameters.
    table = quote(model._meta.db_table)
    arrays = ", ".join(f"%s::{field.db_type(db)}[]" for field in columns)
    aliases = ", ".join(quote(field.column) for field in columns)
    assignments = ", ".join(f"{quote(f.column)} = v.{quote(f.column)}" for f in fields)
    condition = f"t.{quote(pk.column)} = v.{quote(pk.column)}"
    if where_pending:
        condition += f" AND t.{quote('state')} = %s"
    sql = f"UPDATE {table} AS t SET {assignments} FROM unnest({arrays}) AS v({aliases}) WHERE {condition}"  # noqa: E501, S608
    plain = [
        (f, _PLAIN_TYPES.get(_field_type(f), ()), _field_type(f) in (CharField, TextField))
        for f in fields
    ]
    return sql, plain


def _execute_bound(db: BaseDatabaseWrapper, sql: str, params: Sequence[Any]) -> int:
    """Run one statement with its values sent apart from its text; the rows it changed.

    Django's cursors bind on the client: psycopg quotes every value into the text, which
    for a batch of sheets costs about as much as the update itself. Here the values go
    as parameters (server-side binding), and the statement is prepared (:func:`run_prepared`).
    """
    return run_bound(db, sql, params)[1]
