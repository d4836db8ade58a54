"""ANALYZE skips a character's sheet and pending choice on PostgreSQL (issue 39): no
query filters or sorts on them, and every action rewrites them, so autovacuum analyzes
the table often (core.migration_ops.statistics_off)."""

from django.db import migrations

from core.migration_ops import statistics_off


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0002_retired"),
    ]

    operations = [statistics_off("characters.Character", "sheet", "pending_choice")]
