"""The log's actor and batch are indexed only where set (issue 39, migration 0015): an
entry the clock writes for an effect has neither, and adds nothing to those indexes; a
search for one actor or one batch still reads its index. PostgreSQL only (its plans)."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from rules.log.models import Resolution

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's indexes"),
    pytest.mark.django_db,
]


def _indexes(column: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = %s AND indexdef LIKE %s",
            [Resolution._meta.db_table, f"%({column})%"],
        )
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.parametrize("column", ["actor_id", "batch"])
def test_the_log_indexes_its_actor_and_batch_only_where_set(column: str) -> None:
    [definition] = _indexes(column)
    assert definition.endswith(f"WHERE ({column} IS NOT NULL)")


@pytest.mark.parametrize(
    ("lookup", "index"),
    [({"actor_id": 1}, "log_actor_when_set"), ({"batch": uuid.uuid4()}, "log_batch_when_set")],
)
def test_a_search_for_one_actor_or_batch_reads_its_partial_index(
    lookup: dict[str, object], index: str
) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # an empty table: ask for the index
    plan = Resolution.objects.filter(**lookup).explain()
    assert index in plan
