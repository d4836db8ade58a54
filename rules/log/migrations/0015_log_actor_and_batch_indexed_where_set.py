"""The log's actor and batch indexed only where set (issue 39).

An entry the clock writes for an effect has no actor and no batch, and each of the two
indexes took an entry of nothing for it: a catch-up's thousands, and 2 of the 7 index
entries of each effect an action's time crosses. A search for one actor (a user deleted:
their entries' actor set to null) or one batch (a party action undone) reads the partial
index all the same.

Django would drop and add again the actor's foreign key to change its index (a check of
every entry, under lock, on a long log): only the indexes change here.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

OLD_INDEXES = {
    "rules_resolution_actor_id_5e9048d9": "actor_id",
    "rules_resolution_batch_e5d01193": "batch",
}


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0010_player_invitations"),
        ("characters", "0003_sheet_not_analyzed"),
        ("rules", "0014_log_columns_not_analyzed"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="resolution",
                    name="actor",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                migrations.AlterField(
                    model_name="resolution",
                    name="batch",
                    field=models.UUIDField(blank=True, null=True),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    sql=[f'DROP INDEX IF EXISTS "{name}"' for name in OLD_INDEXES],
                    reverse_sql=[
                        f'CREATE INDEX "{name}" ON "rules_resolution" ("{column}")'
                        for name, column in OLD_INDEXES.items()
                    ],
                )
            ],
        ),
        *(
            migrations.AddIndex(
                model_name="resolution",
                index=models.Index(
                    condition=models.Q((f"{field}__isnull", False)), fields=[field], name=name
                ),
            )
            for field, name in (("actor", "log_actor_when_set"), ("batch", "log_batch_when_set"))
        ),
    ]
