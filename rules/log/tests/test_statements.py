"""rules.log.statements: an ``INSERT`` or ``UPDATE`` whose text was compiled once gives
what Django's compiler gives for the same object or values, text and parameters, and a
value Django compiles into the text (an expression) is never answered from the cache.
Both configurations run these (SQLite and PostgreSQL)."""

from __future__ import annotations

import re
import tracemalloc
import uuid
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, connections
from django.db.models import F
from django.db.models.expressions import RawSQL
from django.utils import timezone
from psycopg.types.numeric import Int4, Int8

from campaigns.models import Campaign, Membership
from characters.models import Character
from core.cleaning import json_bytes
from rules.clock.models import ClockJob, ClockReport
from rules.log import statements
from rules.log.models import EffectState, Resolution
from rules.log.statements import _insert_sql, _update_sql, prepared_value
from rules.play.services import character_create

pytestmark = pytest.mark.django_db

Compiled = tuple[str, tuple[Any, ...]]
TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def _plain(compiled: Compiled) -> tuple[str, list[Any]]:
    """The text, and the parameters comparable: JSON by its value (psycopg's wrappers
    have no equality), a time stamp set on insert as such."""
    text, params = compiled
    plain: list[Any] = []
    for param in params:
        if isinstance(param, datetime) or (isinstance(param, str) and TIME.match(param)):
            plain.append("a time")  # SQLite's is text
        elif hasattr(param, "obj"):  # psycopg's Jsonb
            plain.append(("json", param.obj))
        else:
            plain.append(param)
    return text, plain


def _by_django(make: Callable[[], Compiled]) -> Compiled:
    """What Django's compiler gives, the cache set aside."""
    kept = dict(statements._TEXTS)
    statements._TEXTS.clear()
    try:
        return make()
    finally:
        statements._TEXTS.clear()
        statements._TEXTS.update(kept)


def test_an_insert_compiled_once_gives_what_django_gives(campaign, player):
    def report(clock: int) -> ClockReport:
        return ClockReport(
            campaign=campaign,
            requested_by=player,
            clock_from=clock,
            clock_to=clock + 60,
            characters=[{"id": 1, "name": "Aldo", "events": [{"clock": clock}]}],
        )

    using = connection.alias
    _insert_sql(report(0), using)  # compiled, and kept
    assert ("insert", ClockReport, using) in statements._TEXTS
    for clock in (60, 120):
        cached, fresh = report(clock), report(clock)
        assert _plain(_insert_sql(cached, using)) == _plain(
            _by_django(partial(_insert_sql, fresh, using))
        )
        assert cached.created_at is not None  # set as save() sets it


def test_an_update_compiled_once_gives_what_django_gives(campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    job = ClockJob.objects.create(campaign=campaign, minutes=60)
    using = connection.alias
    cases: list[tuple[type[Any], int, dict[str, Any]]] = [
        (Character, aldo.pk, {"sheet": {"hp": 2}, "version": 2, "pending_choice": None}),
        (Character, aldo.pk, {"sheet": {"hp": 1}, "version": 3, "pending_choice": {"p": 1}}),
        (Campaign, campaign.pk, {"clock": 90, "dice_counter": 4}),
        # a related row as a model instance (its key), or none (NULL)
        (ClockJob, job.pk, {"state": "waiting", "waiting_on": aldo, "skipped": []}),
        (ClockJob, job.pk, {"state": "done", "waiting_on": None, "skipped": [{"e": 1}]}),
    ]
    for model, pk, values in cases:
        _update_sql(model, pk, values, using)  # compiled, and kept
        again = {**values, **({"version": 9} if "version" in values else {})}
        assert _plain(_update_sql(model, pk, again, using)) == _plain(
            _by_django(partial(_update_sql, model, pk, again, using))
        )
    # the same columns, one NULL more: another text, not the one kept
    nulls = _update_sql(
        Character, aldo.pk, {"sheet": {}, "version": 1, "pending_choice": {}}, using
    )
    assert "NULL" not in nulls[0]


def test_an_expression_is_compiled_by_django_every_time(campaign):
    using = connection.alias
    statements._TEXTS.clear()
    values = {"clock": F("clock") + 30, "dice_counter": 5}
    text, params = _update_sql(Campaign, campaign.pk, values, using)
    assert statements._TEXTS == {}
    assert (text, params) == _by_django(lambda: _update_sql(Campaign, campaign.pk, values, using))
    Campaign.objects.filter(pk=campaign.pk).update(clock=0)
    with connection.cursor() as cursor:
        cursor.execute(text, params)
    assert Campaign.objects.values_list("clock", "dice_counter").get(pk=campaign.pk) == (30, 5)


def test_the_clock_that_moves_if_nothing_is_due_is_compiled_once(campaign):
    """An action's clock as raw SQL (as rules.clock.services.clock_quiet_value makes it):
    its text is kept, its own parameters put in their place, as Django compiles it."""
    using = connection.alias
    moves = [
        RawSQL('CASE WHEN "clock" = %s THEN %s ELSE "clock" END', (0, minutes))
        for minutes in (30, 90)
    ]
    first = _update_sql(Campaign, campaign.pk, {"dice_counter": 4, "clock": moves[0]}, using)
    assert list(statements._TEXTS.values()).count(first[0]) == 1
    values = {"dice_counter": 5, "clock": moves[1]}
    kept = _update_sql(Campaign, campaign.pk, values, using)
    assert kept == _by_django(lambda: _update_sql(Campaign, campaign.pk, values, using))
    assert kept[0] == first[0] and kept[1] != first[1]
    with connection.cursor() as cursor:
        cursor.execute(*kept)
    assert Campaign.objects.values_list("clock", "dice_counter").get(pk=campaign.pk) == (90, 5)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="psycopg's JSON: PostgreSQL")
def test_json_is_encoded_by_orjson_and_stored_as_the_same_value(campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3})
    sheet = {"hp": 2, "notes": "é\N{EM DASH}", "wounds": [{"d": 1.5}], "k": None}
    using = connection.alias
    for _ in range(2):  # compiled by Django, then from the kept text
        text, params = _update_sql(
            Character, aldo.pk, {"sheet": sheet, "pending_choice": {1: "a"}}, using
        )
        assert [p.dumps for p in params if hasattr(p, "obj")] == [json_bytes, json_bytes]
        with connection.cursor() as cursor:
            cursor.execute(text, params)
        aldo.refresh_from_db()
        # a key json.dumps writes as a string: encoded by it (core.cleaning.json_text)
        assert (aldo.sheet, aldo.pending_choice) == (sheet, {"1": "a"})


def test_insert_row_stores_what_save_stores(campaign, player):
    """An action's clock job inserted by ``insert_row`` (compiled once, on PostgreSQL)
    is the row ``save(force_insert=True)`` makes: every column but the id and the time
    stamps set on save, and its id given back."""

    beat = timezone.now()  # its default is the time it is made at

    def job() -> ClockJob:
        return ClockJob(
            campaign=campaign, requested_by=player, kind="action", minutes=480, heartbeat_at=beat
        )

    saved, inserted, again = job(), job(), job()
    saved.save(force_insert=True)
    statements.insert_row(inserted)
    statements.insert_row(again)  # from the compiled text
    assert not inserted._state.adding and inserted.pk not in (None, saved.pk)
    columns = [
        f.attname
        for f in ClockJob._meta.concrete_fields
        if not f.primary_key
        and not getattr(f, "auto_now", False)
        and not getattr(f, "auto_now_add", False)
    ]
    rows = ClockJob.objects.filter(pk__in=[saved.pk, inserted.pk, again.pk]).order_by("pk")
    stored = [tuple(row) for row in rows.values_list(*columns)]
    assert stored[0] == stored[1] == stored[2]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="server-side binding: PostgreSQL")
def test_statements_share_one_cursor_per_connection_and_a_new_connection_gets_its_own():
    """run_bound keeps one psycopg cursor per connection (making one cost a third of a
    short statement's client side); a reconnected wrapper never reuses the old one, and
    two wrappers (two threads) never share one."""
    db = connections[connection.alias]
    assert statements.run_bound(db, "SELECT %s::int", [1])[0] == [(1,)]
    first = statements._bound_cursor(db)
    assert statements.run_bound(db, "SELECT %s::int + 1", [1])[0] == [(2,)]
    assert statements._bound_cursor(db) is first
    # a statement that returns no rows answers none, and how many rows it changed
    assert statements.run_bound(db, "SET LOCAL statement_timeout = 0", []) == ([], -1)
    other = connections.create_connection(connection.alias)  # another thread's
    try:
        assert statements.run_bound(other, "SELECT %s::int", [3])[0] == [(3,)]
        theirs = statements._bound_cursor(other)
        assert theirs is not first and theirs.connection is other.connection
        other.close()  # then a new connection: a new cursor on it
        assert statements.run_bound(other, "SELECT %s::int", [4])[0] == [(4,)]
        again = statements._bound_cursor(other)
        assert again is not theirs and again.connection is other.connection
    finally:
        other.close()


def _by_django_cursor(sql: str, params: list[Any]) -> Any:
    """The first row of ``sql`` run through a Django cursor, closed and let go."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements: PostgreSQL")
def test_only_our_statements_are_prepared_and_no_statement_s_text_is_kept():
    """run_bound prepares its statement on the connection; Django's statements, bound on
    the client, are neither prepared nor kept. With psycopg's threshold set for the
    connection (stop 56's fix), psycopg counted each of Django's by its text with the
    values in it and kept the last hundred: an import's 500-row ``INSERT`` s held 36 MiB
    (bench/logbook_scale.py)."""
    db = connections[connection.alias]
    ours = "SELECT %s::int * 2 AS prepared_by_run_bound"
    assert statements.run_bound(db, ours, [21])[0] == [(42,)]
    assert statements.run_bound(db, ours, [2])[0] == [(4,)]
    big = "x" * 2**20  # each of Django's statements below is a MiB of text
    tracemalloc.start()
    try:
        held = tracemalloc.get_traced_memory()[0]
        for n in range(4):
            assert _by_django_cursor("SELECT length(%s) + %s", [big, n]) == (2**20 + n,)
        kept = tracemalloc.get_traced_memory()[0] - held
    finally:
        tracemalloc.stop()
    assert kept < 2**20, f"{kept} bytes kept of Django's statements"
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("prepared_by_run_bound" in text for text in prepared)
    assert not any("length(" in text for text in prepared)
    assert db.connection.prepare_threshold is None  # put back after each statement


SAMPLES: list[Any] = [None, 0, 7, 2**40, "x", "", True, False, uuid.uuid4()]


@pytest.mark.parametrize("model", [Resolution, ClockJob, ClockReport, Campaign, Character])
def test_a_plain_value_is_made_as_its_field_makes_it(model: type[Any]) -> None:
    # every column of the rows the statements write, with a value of each plain type
    db = connections[connection.alias]
    samples = [*SAMPLES, timezone.now()]
    taken = 0
    for field in model._meta.concrete_fields:
        for value in samples:
            try:
                by_field = field.get_db_prep_save(value, db)
            except (TypeError, ValueError, ValidationError):
                continue  # not a value of this column's
            made = prepared_value(field, value, db)
            if hasattr(by_field, "obj"):  # psycopg's Jsonb has no equality
                assert (type(made), made.obj) == (type(by_field), by_field.obj)
                continue
            # the same value of the same type: psycopg binds an Int4 and an int apart
            assert (type(made), made) == (type(by_field), by_field), (field, value)
            taken += statements._WAYS[(field, db.vendor)](value) is not statements._SLOW
    # on PostgreSQL the plain values are made without the field
    assert (taken > 0) == (connection.vendor == "postgresql")


ARRAYS: list[tuple[str, list[Any]]] = [
    ("bigint", [1, None, 2**40, Int4(7), Int8(-3)]),
    ("bigint", []),
    ("bigint", [None, None]),
    ("text", ["done", EffectState.CANCELLED, "", "NULL", 'a "quoted" \\ back', "{,} sp ace", "é"]),
    ("varchar(16)", ["pending", None]),
]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="server-side binding: PostgreSQL")
@pytest.mark.parametrize(("kind", "values"), ARRAYS)
def test_a_list_is_sent_as_an_array_s_text_and_read_back_the_same(kind: str, values: list[Any]):
    """run_bound sends a list of ints, strings and None as the text of an array
    (array_text): cast, and in ``= ANY(%s)`` without a cast, the server reads the array
    psycopg would have sent, element for element (and one psycopg refuses, of ints of
    three types: ``Int4`` and ``Int8`` from prepared_value beside plain ints)."""
    db = connections[connection.alias]
    text = statements.array_text(values)
    assert isinstance(text, str)
    [(got,)] = statements.run_bound(db, f"SELECT %s::{kind}[]", [values])[0]
    plain = [None if v is None else (str(v) if kind != "bigint" else int(v)) for v in values]
    assert got == plain
    # psycopg's own (which wants one type: an Int4 and an int are two to it)
    [(by_psycopg,)] = statements.run_bound(db, f"SELECT %s::{kind}[]", [psycopg_list(plain)])[0]
    assert got == by_psycopg
    if kind == "bigint":  # the type from the context, as for the characters' lock
        sql = "SELECT n FROM generate_series(-5::bigint, 8) AS n WHERE n = ANY(%s) ORDER BY n"
        rows = statements.run_bound(db, sql, [values])[0]
        assert [n for (n,) in rows] == sorted(v for v in values if v is not None and -5 <= v <= 8)


def psycopg_list(values: list[Any]) -> Any:
    """``values`` as psycopg sends a list itself (not through array_text)."""

    class Listed(list[Any]):  # not ``type(p) is list``: run_bound leaves it to psycopg
        pass

    return Listed(values)


def test_an_array_s_text_quotes_every_string_and_writes_none_as_null() -> None:
    assert statements.array_text([1, None, Int4(2), 'a"b\\c', "NULL", ""]) == (
        '{1,NULL,2,"a\\"b\\\\c","NULL",""}'
    )


@pytest.mark.parametrize(
    "values", [[True, False], [uuid.uuid4()], [1, 2.5], [[1], [2]], [timezone.now()]]
)
def test_any_other_list_is_left_to_psycopg(values: list[Any]) -> None:
    assert statements.array_text(values) is values
