"""The live clock's next tick stored (issue 39): beat finds the campaigns due a tick by an
index instead of reading every live one. Written for the clocks running now."""

from datetime import timedelta
from decimal import ROUND_CEILING, Decimal
from typing import Any

from django.db import migrations, models


def next_ticks(apps: Any, schema_editor: Any) -> None:
    # campaigns.models.live_next_tick as it is today (a migration keeps its own copy)
    campaign = apps.get_model("campaigns", "Campaign")
    running = campaign.objects.filter(live_ratio__gt=0, live_last_tick__isnull=False)
    for row in running.only("pk", "live_ratio", "live_last_tick"):
        wait = (Decimal(60_000_000) / row.live_ratio).to_integral_value(ROUND_CEILING)
        row.live_next_tick = row.live_last_tick + timedelta(microseconds=int(wait))
        row.save(update_fields=["live_next_tick"])


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0010_player_invitations"),
    ]

    operations = [
        migrations.AddField(
            model_name="campaign",
            name="live_next_tick",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(next_ticks, migrations.RunPython.noop, elidable=True),
        migrations.AddIndex(
            model_name="campaign",
            index=models.Index(
                condition=models.Q(("live_next_tick__isnull", False)),
                fields=["live_next_tick", "id"],
                name="campaign_live_due",
            ),
        ),
        migrations.AddConstraint(
            model_name="campaign",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("live_next_tick__isnull", True), ("live_ratio", 0)),
                    models.Q(("live_last_tick__isnull", True), ("live_next_tick__isnull", True)),
                    models.Q(
                        ("live_last_tick__isnull", False),
                        ("live_next_tick__isnull", False),
                        ("live_ratio__gt", 0),
                    ),
                    _connector="OR",
                ),
                name="campaign_live_next_tick_while_running",
            ),
        ),
    ]
