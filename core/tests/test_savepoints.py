"""A savepoint left to the transaction's end (core.savepoints): a block that succeeds
sends no RELEASE and keeps its rows; one that fails is rolled back to its savepoint, as
``transaction.atomic()`` does, and the transaction goes on."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from core.savepoints import savepoint_left_to_commit

pytestmark = pytest.mark.django_db


def _statements(queries: CaptureQueriesContext, word: str) -> int:
    return sum(query["sql"].startswith(word) for query in queries.captured_queries)


def _names(queries: CaptureQueriesContext, word: str) -> list[str]:
    """The savepoints named by the statements that start with ``word``."""
    return [q["sql"].split()[-1] for q in queries.captured_queries if q["sql"].startswith(word)]


def test_a_block_that_succeeds_keeps_its_rows_and_sends_no_release() -> None:
    with CaptureQueriesContext(connection) as queries:
        with savepoint_left_to_commit():
            Group.objects.create(name="kept")
        # a later savepoint nests in the one left open, and is rolled back alone
        with pytest.raises(ValueError), transaction.atomic():
            Group.objects.create(name="undone")
            raise ValueError("boom")
    assert set(Group.objects.values_list("name", flat=True)) == {"kept"}
    made, released = _names(queries, "SAVEPOINT"), _names(queries, "RELEASE SAVEPOINT")
    assert len(made) == 2
    assert released == [made[1]]  # the later atomic's, after its rollback; ours is left
    assert _statements(queries, "ROLLBACK TO SAVEPOINT") == 1


def test_a_block_that_fails_is_rolled_back_and_its_callbacks_dropped(
    django_capture_on_commit_callbacks: Any,
) -> None:
    Group.objects.create(name="before")
    ran: list[str] = []
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(ValueError), savepoint_left_to_commit():
            Group.objects.create(name="undone")
            transaction.on_commit(lambda: ran.append("undone"))
            raise ValueError("boom")
        transaction.on_commit(lambda: ran.append("after"))
        Group.objects.create(name="after")  # the transaction goes on
    assert set(Group.objects.values_list("name", flat=True)) == {"before", "after"}
    assert len(callbacks) == 1 and ran == ["after"]


def test_a_database_error_swallowed_inside_undoes_the_block_as_atomic_does() -> None:
    Group.objects.create(name="taken")
    with savepoint_left_to_commit():
        Group.objects.create(name="inside")
        try:  # no savepoint of its own: the error marks the block for rollback
            with transaction.atomic(savepoint=False):
                Group.objects.create(name="taken")
        except IntegrityError:
            pass
    assert set(Group.objects.values_list("name", flat=True)) == {"taken"}
    assert not connection.needs_rollback


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_block_is_one() -> None:
    with savepoint_left_to_commit():
        Group.objects.create(name="committed")
    with pytest.raises(ValueError), savepoint_left_to_commit():
        Group.objects.create(name="undone")
        raise ValueError("boom")
    assert set(Group.objects.values_list("name", flat=True)) == {"committed"}
    assert connection.get_autocommit() and not connection.in_atomic_block
