"""ANALYZE skips a webhook event's signed body on PostgreSQL (issue 39): nothing filters
on it (core.migration_ops.statistics_off)."""

from django.db import migrations

from core.migration_ops import statistics_off


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0003_endpoint_format"),
    ]

    operations = [statistics_off("webhooks.WebhookEvent", "body")]
