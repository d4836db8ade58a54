"""ANALYZE skips the log's and the effects' large JSON on PostgreSQL (issue 39).

Autovacuum analyzes the log each time it has grown by a tenth: it read a sample of
30,000 entries and built statistics of each of their JSON columns (the sheets before and
after, the message, the rolls...), 1.6 to 1.9 s of CPU each time on the benchmark, where
no query filters or sorts on them. The summary keeps its statistics (the log's text
search filters on it); a filter on ``params -> 'scheduled_effect'`` reads the statistics
of its own index's expression, which stay.
"""

from django.db import migrations

from core.migration_ops import statistics_off


class Migration(migrations.Migration):
    dependencies = [
        ("rules", "0013_effect_index_in_due_order"),
    ]

    operations = [
        statistics_off(
            "rules.Resolution",
            "params",
            "rolls",
            "said",
            "outcome",
            "sheet_before",
            "sheet_after",
            "pending_choice",
        ),
        statistics_off("rules.ScheduledEffect", "payload"),
    ]
