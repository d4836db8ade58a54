"""A savepoint that the transaction's end releases (rules.clock.services: an action's
inline clock job)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction


@contextmanager
def savepoint_left_to_commit(using: str | None = None) -> Iterator[None]:
    """``transaction.atomic()`` inside a transaction, but a block that succeeds leaves its
    savepoint to the transaction's end: ``COMMIT`` (or a rollback) ends it with the
    transaction, so no ``RELEASE SAVEPOINT`` is sent (a round trip fewer: issue 39, 2% of
    an action whose time crosses effects). A block that raises is rolled back to its
    savepoint as ``atomic`` does, and the exception goes on.

    Django's ``Atomic`` releases a savepoint when its block succeeds only if its id is on
    the connection's stack: once the block succeeded, the id is taken off (``None`` there
    is Django's own mark for "no savepoint at this level"). Later savepoints of the
    transaction nest inside this one, which changes nothing they do. Outside a
    transaction the block is one, as ``atomic`` makes it.
    """
    connection = transaction.get_connection(using)
    with transaction.atomic(using=using):
        depth = len(connection.savepoint_ids)  # 0: no transaction around, this block is one
        yield
        # Here only when the block succeeded: the stack is as the block entered it.
        if depth and len(connection.savepoint_ids) == depth and not connection.needs_rollback:
            connection.savepoint_ids[-1] = None
