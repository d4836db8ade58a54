"""An action's statements, each compiled by Django once and run again with new values
(issue 39): with its sibling ``rules.log.sql_writes``, the modules of ours that reach
into Django's SQL internals (issue 35). Tests: rules/log/tests/test_action_write.py,
test_compiled_query.py, test_statements.py.

* :func:`write_action`: an action's sheet, dice counter, log row and clock (or clock
  job), on PostgreSQL in one statement of data-modifying CTEs, each part compiled by
  Django from the models (``InsertQuery``, ``UpdateQuery``) so the columns, the JSON and
  the timestamps are written exactly as ``save()`` writes them; elsewhere as separate saves.
* :func:`write_job_end`: a clock job's report, clock and state, in one statement.
* :class:`CompiledQuery`: a hot read compiled once, run again with new values.

Each ``INSERT`` and ``UPDATE`` text is compiled once per model, columns and NULLs
(:data:`_TEXTS`); its parameters are made on every call, by the fields, as Django's
compiler makes them. On PostgreSQL the statements that find their rows by their keys
run prepared on the connection (:func:`run_prepared`), so a kept
connection parses and plans them once. Callers hold the locks and the transaction.
"""

from __future__ import annotations

import json
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

import psycopg
from django.conf import settings
from django.db import connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, ForeignKey, Model, OneToOneField
from django.db.models.expressions import RawSQL
from django.db.models.query import QuerySet, get_related_populators  # type: ignore[attr-defined]
from django.db.models.sql import InsertQuery, UpdateQuery
from django.utils import timezone
from psycopg.types.json import Jsonb

from campaigns.models import Campaign
from characters.models import Character
from core.cleaning import json_bytes
from rules.log.models import Resolution

M = TypeVar("M", bound=Model)


def write_action(
    campaign: Campaign,
    character: Character,
    resolution: Resolution,
    *,
    dice_rolled: bool,
    clock: Any = None,
    job: Model | None = None,
) -> int | None:
    """Save the sheet, the dice counter, the log row and what the action's time does to
    the clock, if anything (``job``, a clock job to insert, or ``clock``, an SQL value
    for the campaign's clock: rules.clock.action_time): on PostgreSQL in one statement
    (the updates and the job's insert as data-modifying CTEs before the log row's
    insert), one round trip where four were made; elsewhere (SQLite, the embedded mode)
    as separate saves. The campaign's clock as written when ``clock`` is set.

    Each statement is compiled by Django from the models, so the columns, the JSON and
    the timestamps are written exactly as ``save()`` writes them."""
    connection = connections[Resolution.objects.db]
    campaign_values: dict[str, Any] = {}
    if dice_rolled:
        campaign_values["dice_counter"] = campaign.dice_counter
    moving = clock is not None
    if moving:
        campaign_values["clock"] = clock
    if connection.vendor != "postgresql":
        return _write_apart(campaign, character, resolution, campaign_values, job)
    character.updated_at = timezone.now()
    parts = [
        _update_sql(
            Character,
            character.pk,
            {
                "sheet": character.sheet,
                "version": character.version,
                "pending_choice": character.pending_choice,
                "updated_at": character.updated_at,
            },
            connection.alias,
        )
    ]
    returned = []  # (CTE, column) read back beside the log row's id
    if campaign_values:
        update, update_params = _update_sql(
            Campaign, campaign.pk, campaign_values, connection.alias
        )
        if moving:
            update += ' RETURNING "clock"'
            returned.append((len(parts), '"clock"'))
        parts.append((update, update_params))
    if job is not None:
        returned.append((len(parts), '"id"'))
        parts.append(_insert_sql(job, connection.alias))
    insert_sql, insert_params = _insert_sql(resolution, connection.alias)
    ctes = ", ".join(f"write_{n} AS ({text})" for n, (text, _) in enumerate(parts))
    params = [param for _, part_params in parts for param in part_params]
    for n, column in returned:  # from their CTEs: names of ours, no value
        insert_sql += f", (SELECT {column} FROM write_{n})"  # noqa: S608
    # prepared whether or not the clock's value searches the campaign's effects and jobs
    # (rules.clock.services.clock_quiet_value is shaped for a generic plan)
    [row] = run_prepared(connection, f"WITH {ctes} {insert_sql}", [*params, *insert_params])
    resolution.pk = row[0]
    if job is not None:
        job.pk = row[-1]
    for saved in (resolution, job):
        if saved is not None:
            saved._state.adding = False
            saved._state.db = connection.alias
    if moving:
        campaign.clock = row[1]
        return campaign.clock
    return None


def insert_row(obj: Model) -> None:
    """Insert the unsaved ``obj`` as ``save(force_insert=True)`` does, its id given back:
    on PostgreSQL by the statement compiled once per model (:func:`_insert_sql`), where
    ``save()`` compiles it anew each time (an action's clock job: a third of a
    millisecond of an action that crosses due effects, issue 39); elsewhere by ``save()``.
    No signal is sent: nothing of ours listens for a saved row."""
    connection = connections[obj._state.db or type(obj)._default_manager.db]
    if connection.vendor != "postgresql":
        obj.save(force_insert=True)
        return
    text, params = _insert_sql(obj, connection.alias)
    [(obj.pk,)] = run_prepared(connection, text, params)
    obj._state.adding = False
    obj._state.db = connection.alias


@dataclass(frozen=True)
class Preceding:
    """Data-modifying CTEs of ours (``"effects AS (...), sheets AS (...)"``, names from
    the models' metadata) to run in the same statement ahead of another, ``params`` theirs;
    the rows each of ``counted`` returned are counted in that statement's answer."""

    ctes: str
    params: list[Any]
    counted: tuple[str, ...]


def write_job_end(
    campaign: Campaign,
    job: Model,
    fields: list[str],
    report: Model,
    before: Preceding | None = None,
) -> tuple[int, ...]:
    """A clock job's rows as it stops or leaves the action it ran in
    (``rules.clock.services``): its report inserted (``job.report``), the campaign's
    clock and dice counter, the job's ``fields`` (``updated_at`` set now, as ``save()``
    sets it), or the whole job inserted if it is not saved yet (an action's job run in
    the action: one row written, where an insert and an update wrote two): on PostgreSQL
    one statement (the report's insert and the campaign's update as data-modifying CTEs
    before the job's update or insert), elsewhere three saves. ``before``: the last
    batch's own writes, run first in the same statement (PostgreSQL; a round trip fewer,
    issue 39); the counts of their rows are returned, in the order of ``counted``."""
    connection = connections[Resolution.objects.db]
    if connection.vendor != "postgresql":
        assert before is None  # a batch defers its writes on PostgreSQL only
        report.save(force_insert=True)
        job.report = report  # type: ignore[attr-defined]
        campaign.save(update_fields=["clock", "dice_counter"])
        if job.pk is None:
            job.save(force_insert=True)
        else:
            job.save(update_fields=[*fields, "report", "updated_at"])
        return ()
    job.updated_at = timezone.now()  # type: ignore[attr-defined]
    insert, insert_params = _insert_sql(report, connection.alias)
    moved, moved_params = _update_sql(
        Campaign,
        campaign.pk,
        {"clock": campaign.clock, "dice_counter": campaign.dice_counter},
        connection.alias,
    )
    quote = connection.ops.quote_name
    field, report_pk = type(job)._meta.get_field("report"), report._meta.pk
    assert isinstance(field, ForeignKey) and report_pk is not None
    # the report's id from its insert: names of ours, no value
    from_insert = f"(SELECT {quote(report_pk.column)} FROM write_0)"  # noqa: S608
    if job.pk is None:
        write, write_params = _insert_from(job, field, from_insert, connection.alias)
    else:
        values = {name: getattr(job, name) for name in (*fields, "updated_at")}
        write, write_params = _update_sql(type(job), job.pk, values, connection.alias)
        column = quote(field.column)
        write = write.replace(" WHERE ", f", {column} = {from_insert} WHERE ", 1)
        write += f" RETURNING {quote(type(job)._meta.pk.column)}"
    ahead, ahead_params, counts = "", [], ""
    if before is not None:
        ahead, ahead_params = f"{before.ctes}, ", before.params
        # the CTEs' names are ours (Preceding), no value
        counts = "".join(f", (SELECT count(*) FROM {name})" for name in before.counted)  # noqa: S608
    [(job.pk, report.pk, *counted)] = run_prepared(
        connection,
        f"WITH {ahead}write_0 AS ({insert}), write_1 AS ({moved}) {write}, {from_insert}{counts}",
        [*ahead_params, *insert_params, *moved_params, *write_params],
    )
    for saved in (job, report):
        saved._state.adding = False
        saved._state.db = connection.alias
    job.report = report  # type: ignore[attr-defined]
    return tuple(int(count) for count in counted)


def _insert_from(obj: Model, field: Any, sql: str, using: str) -> tuple[str, tuple[Any, ...]]:
    """:func:`_insert_sql` of ``obj`` with ``field``'s value the SQL ``sql`` (names of ours,
    no value) in place of its parameter; the text made once per insert text."""
    text, params = _insert_sql(obj, using)
    key = ("insert from", text, field, sql)
    made = _FROM.get(key)
    if made is None:
        fields = [f for f in type(obj)._meta.concrete_fields if not f.primary_key]
        n = fields.index(field)
        head, values = text.split(" VALUES (", 1)
        marks, tail = values.split(")", 1)
        slots = marks.split(", ")
        assert len(slots) == len(fields) == len(params) and slots[n] == "%s", text
        slots[n] = sql
        made = _FROM[key] = (f"{head} VALUES ({', '.join(slots)}){tail}", n)
    from_text, n = made
    return from_text, (*params[:n], *params[n + 1 :])


_FROM: dict[tuple[str, str, Any, str], tuple[str, int]] = {}


def _write_apart(
    campaign: Campaign,
    character: Character,
    resolution: Resolution,
    campaign_values: dict[str, Any],
    job: Model | None,
) -> int | None:
    """:func:`write_action`'s rows as separate saves (SQLite, the embedded mode)."""
    character.save(update_fields=["sheet", "version", "pending_choice", "updated_at"])
    if campaign_values:
        Campaign.objects.filter(pk=campaign.pk).update(**campaign_values)
    resolution.save()
    if job is not None:
        job.save(force_insert=True)
    if "clock" in campaign_values:
        campaign.clock = Campaign.objects.values_list("clock", flat=True).get(pk=campaign.pk)
        return campaign.clock
    return None


# Each statement's text by what it depends on (the kind, the model, the database, and
# for an update its columns and which are NULL): Django compiles a statement on every
# call, 0.2-0.5 ms of CPU each, four to six of them in an action (issue 39).
_TEXTS: dict[tuple[Any, ...], str] = {}


def _json_by_orjson(params: Iterable[Any]) -> tuple[Any, ...]:
    """``params`` with each JSON value Django made (psycopg's ``Jsonb`` with
    ``json.dumps``) encoded by ``core.cleaning.json_text`` instead: the same value, in a tenth of
    the time (an action writes its sheet twice, in the log row and on the character)."""
    params = tuple(params)
    for param in params:
        if type(param) is Jsonb and param.dumps is json.dumps:
            param.dumps = json_bytes
    return params


_SLOW = object()  # a value :func:`prepared_value` leaves to its field


def prepared_value(field: Field[Any, Any], value: Any, db: BaseDatabaseWrapper) -> Any:
    """``field.get_db_prep_save(value, db)``: for a plain value of the usual fields (an int
    for an integer column or a key, a ``str`` for a text one, a bool, an aware datetime, a
    UUID, None) the value it would give, without its chain of calls, worked out once per
    field (issue 39: 31 values an action's clock job writes, a fifth of a millisecond).
    Any other field or value (JSON above all) goes through the field."""
    key = (field, db.vendor)
    way = _WAYS.get(key)
    if way is None:
        way = _WAYS[key] = _way(field, db)
    made = way(value)
    return field.get_db_prep_save(value, db) if made is _SLOW else made


def _way(field: Field[Any, Any], db: BaseDatabaseWrapper) -> Callable[[Any], Any]:
    """How :func:`prepared_value` makes ``field``'s plain values, as Django 5.2's fields
    make them on PostgreSQL (rules/log/tests/test_statements.py compares them)."""
    kind = type(field)
    if db.vendor != "postgresql":
        return lambda value: _SLOW
    if kind in (ForeignKey, OneToOneField):
        assert isinstance(field, ForeignKey)
        if not isinstance(field.target_field, models.AutoField | models.BigAutoField):
            return lambda value: _SLOW
        return lambda value: value if value is None or type(value) is int else _SLOW
    wrap = db.ops.integerfield_type_map.get(field.get_internal_type())  # type: ignore[attr-defined]
    if kind in _INTEGERS and wrap is not None:
        return lambda value: None if value is None else wrap(value) if type(value) is int else _SLOW
    plain = _PLAIN.get(kind)
    if plain is not None:
        return lambda value: value if value is None or type(value) is plain else _SLOW
    if kind is models.DateTimeField and settings.USE_TZ:
        return lambda value: (
            value
            if value is None or (type(value) is datetime and value.tzinfo is not None)
            else _SLOW
        )
    return lambda value: _SLOW


_INTEGERS = {
    models.IntegerField,
    models.BigIntegerField,
    models.SmallIntegerField,
    models.PositiveIntegerField,
    models.PositiveBigIntegerField,
    models.PositiveSmallIntegerField,
}
_PLAIN: dict[type[Field[Any, Any]], type] = {
    models.CharField: str,
    models.TextField: str,
    models.BooleanField: bool,
    models.UUIDField: uuid.UUID,  # PostgreSQL's uuid is native: the field gives it as it is
}
_WAYS: dict[tuple[Field[Any, Any], str], Callable[[Any], Any]] = {}


def _insert_sql(obj: models.Model, using: str) -> tuple[str, tuple[Any, ...]]:
    """``INSERT`` of the unsaved ``obj`` with ``RETURNING`` its id, not run: compiled by
    Django once per model (defaults and timestamps as ``save()`` sets them), each value
    then made as its compiler makes it (``pre_save``, ``get_db_prep_save``)."""
    model = type(obj)
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    key = ("insert", model, using)
    text = _TEXTS.get(key)
    if text is not None:
        db = connections[using]
        values = [f.pre_save(obj, True) for f in fields]
        if not any(hasattr(value, "resolve_expression") for value in values):
            return text, _json_by_orjson(
                prepared_value(f, v, db) for f, v in zip(fields, values, strict=True)
            )
    insert = InsertQuery(model)
    insert.insert_values(fields, [obj])
    compiler = insert.get_compiler(using)
    compiler.returning_fields = [model._meta.pk]
    [(text, params)] = compiler.as_sql()
    if not any(hasattr(getattr(obj, f.attname), "resolve_expression") for f in fields):
        _TEXTS[key] = text  # no database default or expression in it: the same for all
    return text, _json_by_orjson(params)


def _update_sql(
    model: type[models.Model], pk: int, values: dict[str, Any], using: str
) -> tuple[str, tuple[Any, ...]]:
    """``UPDATE <model> SET <values> WHERE pk``, not run: compiled by Django once per
    columns, NULLs and raw SQL texts, each value then made as its compiler makes it (a
    model instance as its key, ``get_db_prep_save``; None is written ``NULL`` in the text;
    a ``RawSQL``, an action's clock that moves if nothing is due, is its text with its
    own parameters in its place: issue 39, compiling it cost an action that moves the
    clock a third of a millisecond)."""
    db = connections[using]
    prepared: list[Any] = []
    for name, value in values.items():
        if type(value) is RawSQL:
            prepared.append(value)
            continue
        if hasattr(value, "resolve_expression"):
            prepared = []
            break  # another expression: compiled as Django compiles it, every time
        field = model._meta.get_field(name)
        assert isinstance(field, models.Field)
        if hasattr(value, "prepare_database_save") and field.remote_field:
            value = value.prepare_database_save(field)
        prepared.append(prepared_value(field, value, db))
    shape = tuple(v.sql if type(v) is RawSQL else v is None for v in prepared)
    key = ("update", model, using, tuple(values), shape)
    text = _TEXTS.get(key) if len(prepared) == len(values) else None
    if text is not None:
        params: list[Any] = []
        for value in prepared:
            if type(value) is RawSQL:
                params.extend(value.params)  # in its place in the text, as Django puts them
            elif value is not None:
                params.append(value)
        return text, (*_json_by_orjson(params), pk)
    query = model._default_manager.filter(pk=pk).query.chain(UpdateQuery)
    assert isinstance(query, UpdateQuery)
    query.add_update_values(values)
    text, compiled = query.get_compiler(using).as_sql()
    if len(prepared) == len(values):
        _TEXTS[key] = text
    return text, _json_by_orjson(compiled)


class CompiledQuery(Generic[M]):
    """A hot read's SQL compiled by Django once per process (and database), run again
    with new values: Django compiles a queryset on every call, for the row an action
    locks 330 µs of CPU, more than the database spends on it (issue 39).

    The caller builds the queryset once with :attr:`marks` (an integer marker per slot,
    to be used only as a parameter: ``filter(pk=...)``, a ``RawSQL`` parameter, never in
    the text) and gives it to :meth:`compile` (inside its transaction when the queryset
    locks); :meth:`first` runs it with the slots' values and makes the row as Django's
    iterator does (converters, ``select_related``, annotations). Tests:
    test_compiled_query.py."""

    MARK = 7_330_000_001  # slot n is compiled as -(MARK + n): no key or count of ours

    def __init__(self, *slots: str) -> None:
        self.marks = {name: -(self.MARK + n) for n, name in enumerate(slots)}
        self._compiled: dict[str, tuple[Any, ...]] = {}

    def ready(self, using: str = "default") -> bool:
        return using in self._compiled

    def compile(self, queryset: QuerySet[M], using: str = "default") -> None:
        compiler = queryset.query.get_compiler(using=using)
        text, raw = compiler.as_sql()
        slot = {mark: name for name, mark in self.marks.items()}
        # a mark may come wrapped to say its type (psycopg's Int8, an int)
        params = [(slot[p], None) if isinstance(p, int) and p in slot else (None, p) for p in raw]
        if missing := set(self.marks) - {name for name, _ in params}:
            raise ValueError(f"slots not found among the parameters: {sorted(missing)}")
        select, info = compiler.select, compiler.klass_info
        converters = compiler.get_converters([s[0] for s in select[: compiler.col_count]])
        if info is None:  # a values_list queryset: its rows are tuples (:meth:`rows`)
            self._compiled[using] = (text, params, compiler, converters, [], (0, 0), [])
            return
        start, end = info["select_fields"][0], info["select_fields"][-1] + 1
        self._compiled[using] = (
            text,
            params,
            compiler,
            converters,
            [f[0].target.attname for f in select[start:end]],
            (start, end),
            get_related_populators(info, select, using),
        )

    def rows(self, using: str = "default", **values: Any) -> list[tuple[Any, ...]]:
        """Every row of a ``values_list`` queryset, as its tuples (compiled first)."""
        text, params, compiler, converters, *_ = self._compiled[using]
        values_in = [values[n] if n is not None else v for n, v in params]
        rows = run_prepared(connections[using], text, values_in)
        if converters:
            rows = compiler.apply_converters(rows, converters)
        return [tuple(row) for row in rows]

    def first(self, using: str = "default", **values: Any) -> M | None:
        """The first row as a model instance, or None (compiled first: :meth:`ready`)."""
        text, params, compiler, converters, names, (start, end), populators = self._compiled[using]
        values_in = [values[n] if n is not None else v for n, v in params]
        rows = run_prepared(connections[using], text, values_in)
        if not rows:
            return None
        row = rows[0]
        if converters:
            [row] = compiler.apply_converters([row], converters)
        obj: M = compiler.klass_info["model"].from_db(using, names, row[start:end])
        for populator in populators:
            populator.populate(row, obj)
        for name, position in compiler.annotation_col_map.items():
            setattr(obj, name, row[position])
        return obj


def run_prepared(db: BaseDatabaseWrapper, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows of one statement of ours whose text is compiled once per process
    (this module's, the batch's updates of ``rules.log.sql_writes``): on PostgreSQL a prepared
    statement of the connection, its values sent apart from its text (server-side
    binding), so that the server parses it once per connection and, once it settled on
    a generic plan, plans it no more (issue 39: planning was 0.1-0.3 ms of PostgreSQL's
    CPU for each of an action's larger statements); elsewhere through Django's cursor.

    A generic plan does not know which campaign it reads: a statement is either found
    by its keys (ids, the campaign's row) or shaped so that its plan reads an index
    whatever the campaign. ``EXISTS`` of a campaign's due effect, where one campaign held
    most effects, was planned as a scan of the whole table; the earliest effect in the
    index's order is not (rules.clock.services._quiet_text; docs/performance.md "Prepared
    searches"). Errors are Django's, the statement is logged with the others when queries
    are (debug, tests, the benchmark)."""
    if db.vendor != "postgresql":
        with db.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall() if cursor.description is not None else []
    return run_bound(db, sql, params)[0]


def run_bound(
    db: BaseDatabaseWrapper, sql: str, params: Sequence[Any]
) -> tuple[list[tuple[Any, ...]], int]:
    """:func:`run_prepared` on PostgreSQL (and ``rules.log.sql_writes``' updates): the rows
    and the number changed."""
    start = time.monotonic()
    db.ensure_connection()
    db.validate_no_broken_transaction()
    with db.wrap_database_errors:
        cursor = _bound_cursor(db)
        values = [array_text(p) if type(p) is list else p for p in params]
        # prepare=True: on its first run. psycopg prepares nothing while the connection's
        # threshold is None, Django's setting, and it is None but here: while it is set,
        # psycopg counts every statement the connection runs, Django's client-bound
        # ones too, each by its text with the values in it, and keeps the last hundred
        # (an import's 500-row INSERTs: 36 MiB held, issue 39; test_statements.py).
        raw = cursor.connection
        raw.prepare_threshold = 0
        try:
            cursor.execute(sql, values, prepare=True)
        finally:
            raw.prepare_threshold = None
        # Rows only if the statement returned some; asked of the result's status, not of
        # ``cursor.description``, which builds a Column for each of its columns (their
        # names and types: a tenth of a millisecond for each of an action's statements)
        result = cursor.pgresult
        returned = result is not None and result.status == psycopg.pq.ExecStatus.TUPLES_OK
        rows = cursor.fetchall() if returned else []
        changed = cursor.rowcount
    log_query(db, sql, start)
    return rows, changed


def array_text(values: list[Any]) -> str | list[Any]:
    """A list of ints, strings and None as PostgreSQL's text of an array (``{1,NULL}``,
    ``{"done","it\\"s"}``), which the statement's cast or context makes the array
    psycopg would have sent; any other list as it is. psycopg encodes a list one element
    at a time through its dumpers' lookup (issue 39: 0.27 ms of the six arrays of a
    one-party rest's clock job, 16 elements each); this is one join."""
    items = []
    for value in values:
        if value is None:
            items.append("NULL")
        elif isinstance(value, str):  # quoted: any text, NULL and the empty one included
            items.append('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"')
        elif isinstance(value, int) and not isinstance(value, bool):
            items.append(str(int(value)))  # int(): an Int4 or an IntEnum as its digits
        else:
            return values
    return "{" + ",".join(items) + "}"


# The server-binding cursor of each database wrapper (one per thread and alias), kept for
# its current connection: making a psycopg cursor (its adapters' transformer) cost about
# 35 µs of CPU, a third of a short statement's client side (issue 39). Keyed weakly by
# the wrapper, which the cursor does not reference; a new connection gets a new cursor.
_CURSORS: weakref.WeakKeyDictionary[BaseDatabaseWrapper, psycopg.Cursor[Any]] = (
    weakref.WeakKeyDictionary()
)


def _bound_cursor(db: BaseDatabaseWrapper) -> psycopg.Cursor[Any]:
    """``db``'s cursor for :func:`run_bound`, on its current connection."""
    cursor = _CURSORS.get(db)
    if cursor is None or cursor.closed or cursor.connection is not db.connection:
        cursor = _CURSORS[db] = psycopg.Cursor(db.connection)
    return cursor


def log_query(db: BaseDatabaseWrapper, sql: str, start: float) -> None:
    """Log a statement run outside Django's cursors, as Django logs its own."""
    if db.queries_logged:
        db.queries_log.append({"sql": sql, "time": f"{time.monotonic() - start:.3f}"})
