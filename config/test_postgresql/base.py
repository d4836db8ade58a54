"""PostgreSQL for the test suite only (config/settings/test.py): the same backend, but a
test that commits (``transaction=True``, a live server, a real worker) is cleaned up by
deleting the rows instead of truncating the tables.

Django empties every table after such a test with one ``TRUNCATE`` of all of them, which
makes new files for every table, index and TOAST table: about 100 ms on a quiet machine
and half a second on a busy one, after each of hundreds of tests. A test leaves a few
rows, and deleting them takes about 3 ms. The foreign keys Django makes are
``DEFERRABLE INITIALLY DEFERRED``, so the order of the deletes does not matter inside
the flush's transaction. A flush that must restart the sequences (``reset_sequences``)
still truncates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.backends.postgresql import base, operations


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(
        self,
        style: Any,
        tables: Sequence[str],
        *,
        reset_sequences: bool = False,
        allow_cascade: bool = False,
    ) -> list[str]:
        if not tables or reset_sequences:
            return list(
                super().sql_flush(
                    style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
                )
            )
        return ["SET CONSTRAINTS ALL DEFERRED"] + [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))}"
            for table in tables
        ]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
