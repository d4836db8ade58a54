"""A report part's entries as JSON text rather than ``jsonb`` (issue 39): the database
never looks inside a part, and a long catch-up's parts (7 MB of JSON) cost PostgreSQL
0.4 s to parse (docs/clock.md, "Goal 3 on a slower machine"). The column keeps lz4
compression where the server has it (migration 0007).
"""

from typing import Any

from django.db import migrations, models


def _lz4(apps: Any, schema_editor: Any) -> None:
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"
        )
        row = cursor.fetchone()
    if not row or not row[0]:
        return  # built without lz4
    model = apps.get_model("clock", "ClockReportPart")
    quote = connection.ops.quote_name
    schema_editor.execute(
        f"ALTER TABLE {quote(model._meta.db_table)} "
        f"ALTER COLUMN {quote(model._meta.get_field('characters').column)} SET COMPRESSION lz4"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("clock", "0008_job_started_in_action"),
    ]

    operations = [
        migrations.AlterField(
            model_name="clockreportpart",
            name="characters",
            field=models.TextField(default="[]"),
        ),
        migrations.RunPython(_lz4, migrations.RunPython.noop),
    ]
