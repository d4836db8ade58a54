"""The package split (issue 23) moved the clock job and the battle out of the play's app
(label ``rules``) into ``rules.clock`` and ``rules.battles`` without touching the data:
``clock 0001``, ``battles 0001`` and ``rules 0006`` change Django's state only; the tables
keep their names and rows; the two content types follow their models.

The test takes the database back to the schema before the split, fills it there (the
demo of every ruleset, plus a clock job and a battle written through the old app's
models), migrates forward, and compares every row of every table.

The demo is written by today's code: columns added after the split (``POST_SPLIT``) are
added for the fill and dropped before migrating, their migrations add them back, and
the comparison leaves them out.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Field, Model

from rules.battles.models import Battle
from rules.clock.models import ClockJob
from rules.log.models import Resolution, ScheduledEffect

BEFORE_THE_SPLIT = ("rules", "0005_clock_job_heartbeat")
AFTER_THE_SPLIT = (
    ("rules", "0006_clock_jobs_and_battles_moved"),
    ("clock", "0001_initial"),
    ("battles", "0001_initial"),
)
MOVED = {("rules", "clockjob"): "clock", ("rules", "battle"): "battles"}
# Fields a migration after the split adds (rules 0007: the resolution that cancelled an
# effect, issue 24; rules 0008: who made an imported entry, issue 36; rules 0010: the
# summary's message, issue 37), by model.
POST_SPLIT: list[tuple[type[Model], str]] = [
    (ScheduledEffect, "cancelled_by"),
    (Resolution, "imported_actor"),
    (Resolution, "said"),
]


def _field(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)
    assert isinstance(field, Field)
    return field


def _rows() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table but the migration history, in a stable order, without
    the columns added after the split."""
    tables = sorted(t for t in connection.introspection.table_names() if t != "django_migrations")
    later = {(model._meta.db_table, _field(model, name).column) for model, name in POST_SPLIT}
    quote = connection.ops.quote_name
    rows: dict[str, list[tuple[Any, ...]]] = {}
    with connection.cursor() as cursor:
        for table in tables:
            columns = sorted(  # by name: SQLite rebuilds a table with its columns reordered
                column.name
                for column in connection.introspection.get_table_description(cursor, table)
                if (table, column.name) not in later
            )
            names = ", ".join(quote(column) for column in columns)
            cursor.execute(f"SELECT {names} FROM {quote(table)}")  # noqa: S608
            rows[table] = sorted(cursor.fetchall(), key=repr)
    return rows


def _post_split_columns(add: bool) -> None:
    """Add (for the fill by today's code) or drop (before migrating) the later columns
    the old schema lacks. SQLite adds a column by remaking its table from today's model,
    so one added column can bring the others: each is looked for just before."""
    for model, name in POST_SPLIT:
        field = _field(model, name)
        table = model._meta.db_table
        with connection.cursor() as cursor:
            there = field.column in {
                column.name
                for column in connection.introspection.get_table_description(cursor, table)
            }
        with connection.schema_editor() as editor:
            if add and not there:
                editor.add_field(model, field)
                _ADDED.add((table, field.column))
            elif not add and there and (table, field.column) in _ADDED:
                editor.remove_field(model, field)
    if not add:
        _ADDED.clear()


_ADDED: set[tuple[str, str]] = set()  # the columns _post_split_columns added


def _content_types() -> dict[tuple[str, str], int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT app_label, model, id FROM django_content_type")
        return {(label, model): pk for label, model, pk in cursor.fetchall()}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_migrating_across_the_split_keeps_every_row(settings) -> None:
    settings.SAWBONES_EMBEDDED = True  # seed_demo runs in the embedded mode only
    try:
        _across_the_split()
    finally:
        # the rest of the suite runs on the latest schema, whatever happened here
        call_command("migrate", verbosity=0)
        # and on a new connection: run_bound prepared statements of tables this changed, and
        # psycopg forgets them on a DROP or ALTER only of a statement it counts, never
        # Django's (rules.log.statements.run_bound)
        connection.close()


def _across_the_split() -> None:
    # given: the schema of before the split ...
    call_command("migrate", "rules", BEFORE_THE_SPLIT[1], verbosity=0)
    call_command("migrate", "clock", "zero", verbosity=0)
    call_command("migrate", "battles", "zero", verbosity=0)
    old = MigrationExecutor(connection).loader.project_state(BEFORE_THE_SPLIT).apps
    assert {m._meta.label for m in old.get_app_config("rules").get_models()} >= {
        "rules.ClockJob",
        "rules.Battle",
    }
    # (a database of before the split knows no content type under the new apps' labels:
    # Django made them when the test database was created)
    ContentType.objects.filter(app_label__in=["clock", "battles"]).delete()
    # ... filled: the demo, and rows written through the old app's own models
    _post_split_columns(add=True)
    call_command("seed_demo", stdout=io.StringIO())
    campaign = old.get_model("campaigns", "Campaign").objects.order_by("pk").first()
    old.get_model("rules", "ClockJob").objects.create(campaign_id=campaign.pk, minutes=90)
    old.get_model("rules", "Battle").objects.create(
        campaign_id=campaign.pk, warbands=["Grey Crows", "Red Hand"], phase="upkeep"
    )
    before = _rows()
    _post_split_columns(add=False)
    types_before = _content_types()
    assert len(before["rules_clockjob"]) >= 1
    assert len(before["rules_battle"]) >= 2  # the demo's battle and ours
    assert sum(len(rows) for rows in before.values()) > 100

    # when: migrating to the new schema (as the split left it: later migrations of the
    # clock add tables and columns of their own)
    for app, name in AFTER_THE_SPLIT:
        call_command("migrate", app, name, verbosity=0)

    # then: every row of every table is as it was ...
    after = _rows()
    types_after = _content_types()
    content_types = connection.ops.quote_name("django_content_type")
    for table in before.keys() | after.keys():
        if table.strip('"') == content_types.strip('"'):
            continue
        assert after.get(table) == before.get(table), table
    # ... but for the two content types, which follow their models under the same ids
    for (label, model), pk in types_before.items():
        new_label = MOVED.get((label, model), label)
        assert types_after[(new_label, model)] == pk
    assert len(types_after) == len(types_before)
    # and the new apps' models read the same rows
    assert ClockJob.objects.count() == len(before["rules_clockjob"])
    assert Battle.objects.count() == len(before["rules_battle"])
