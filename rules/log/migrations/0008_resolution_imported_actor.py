# Issue 36: who made an imported entry as the export named them, and campaign tables
# stored with whole numbers written 1.0 (before requests read them as whole numbers).

from typing import Any

from django.db import migrations, models

from core.cleaning import whole_numbers


def tables_in_whole_numbers(apps: Any, _editor: Any) -> None:
    tables = apps.get_model("rules", "CampaignTable")
    for table in tables.objects.all().iterator():
        whole = whole_numbers(table.data)
        if repr(whole) != repr(table.data):  # 1.0 == 1: compare how they are written
            table.data = whole
            table.save(update_fields=["data"])


class Migration(migrations.Migration):
    dependencies = [
        ("rules", "0007_effect_cancelled_by"),
    ]

    operations = [
        migrations.AddField(
            model_name="resolution",
            name="imported_actor",
            field=models.CharField(blank=True, default="", max_length=150),
        ),
        migrations.RunPython(tables_in_whole_numbers, migrations.RunPython.noop),
    ]
