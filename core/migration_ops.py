"""Operations migrations share. Kept stable: migrations written with them import them."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def move_content_type(model: str, *, from_label: str, to_label: str) -> migrations.RunPython:
    """A model moved between apps keeps its content type (and the permissions on it)
    under the same id, relabelled; reversed, it goes back. A database that already has
    one under the new label (made by Django after a migrate back and forth) keeps both."""

    def move(apps: Any, source: str, target: str) -> None:
        content_type = apps.get_model("contenttypes", "ContentType")
        if not content_type.objects.filter(app_label=target, model=model).exists():
            content_type.objects.filter(app_label=source, model=model).update(app_label=target)

    return migrations.RunPython(
        lambda apps, _editor: move(apps, from_label, to_label),
        lambda apps, _editor: move(apps, to_label, from_label),
    )


def statistics_off(model: str, *fields: str) -> migrations.RunPython:
    """On PostgreSQL, ANALYZE keeps no statistics of these columns (statistics target 0);
    reversed, they get the server's default again. Elsewhere nothing changes.

    For the large JSON or text a row carries and no query filters or sorts on (a sheet, a
    log entry's rolls): autovacuum's ANALYZE of a table that grows with every action read
    and compared a sample of 30,000 of them, one column after another. On the log it cost
    1.6 to 1.9 s of CPU each time the table had grown a tenth (issue 39, docs/performance.md
    "ANALYZE of the log"); the planner never used what it found. ``model`` is
    ``"app_label.ModelName"``.
    """
    label, name = model.split(".")

    def target(value: int) -> Any:
        def run(apps: Any, schema_editor: Any) -> None:
            connection = schema_editor.connection
            if connection.vendor != "postgresql":
                return
            meta = apps.get_model(label, name)._meta
            quote = connection.ops.quote_name
            for field in fields:
                schema_editor.execute(
                    f"ALTER TABLE {quote(meta.db_table)} ALTER COLUMN "
                    f"{quote(meta.get_field(field).column)} SET STATISTICS {value}"
                )

        return run

    return migrations.RunPython(target(0), target(-1))
