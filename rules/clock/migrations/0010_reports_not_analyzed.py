"""ANALYZE skips a clock report's events on PostgreSQL (issue 39): nothing filters on
them, and a long catch-up's parts hold megabytes (core.migration_ops.statistics_off)."""

from django.db import migrations

from core.migration_ops import statistics_off


class Migration(migrations.Migration):
    dependencies = [
        ("clock", "0009_report_part_text"),
    ]

    operations = [
        statistics_off("clock.ClockReport", "characters"),
        statistics_off("clock.ClockReportPart", "characters"),
    ]
