"""A report's events compressed with lz4 rather than pglz on PostgreSQL (issue 39).

A long catch-up's report is large JSON (about 500 bytes an event, 7 MB for the
benchmark's 14,000), written once per batch as a part and once whole when the job stops:
PostgreSQL compressed every byte with pglz, about 45 ms of its CPU for the whole report,
where lz4 took a seventh of that and stored it smaller (docs/clock.md, "Goal 3: the
batch's own work"). Only where the server was built with lz4; elsewhere nothing changes.
"""

from typing import Any

from django.db import migrations

# (app label, model) whose ``characters`` column holds a report's events
REPORTS = (("clock", "ClockReport"), ("clock", "ClockReportPart"))


def _compression(method: str) -> Any:
    def run(apps: Any, schema_editor: Any) -> None:
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            return
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT 'lz4' = ANY(enumvals) FROM pg_settings"
                " WHERE name = 'default_toast_compression'"
            )
            row = cursor.fetchone()
        if not row or not row[0]:
            return  # built without lz4
        quote = connection.ops.quote_name
        for label, name in REPORTS:
            model = apps.get_model(label, name)
            column = model._meta.get_field("characters").column
            schema_editor.execute(
                f"ALTER TABLE {quote(model._meta.db_table)} "
                f"ALTER COLUMN {quote(column)} SET COMPRESSION {method}"
            )

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("clock", "0006_clock_report_parts"),
    ]

    operations = [
        migrations.RunPython(_compression("lz4"), _compression("default")),
    ]
