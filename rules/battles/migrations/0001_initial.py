"""The battle moves here from the play's app (label ``rules``) without touching the
database: its table keeps its name (``rules_battle``) and its rows; the content type
follows. ``rules 0006`` removes it from the old app's state after this.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import move_content_type


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('rules', '0005_clock_job_heartbeat'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('campaigns', '0006_campaign_archived_at'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # the table stays where it is, with its rows: only Django's state moves
            state_operations=[
                migrations.CreateModel(
                    name='Battle',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('warbands', models.JSONField()),
                        ('turn', models.PositiveIntegerField(default=1)),
                        ('active', models.PositiveSmallIntegerField(default=0)),
                        ('phase', models.CharField(max_length=32)),
                        ('started_at', models.DateTimeField(auto_now_add=True)),
                        ('ended_at', models.DateTimeField(blank=True, null=True)),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='battles', to='campaigns.campaign')),
                        ('started_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'rules_battle',
                        'ordering': ['-id'],
                        'constraints': [models.UniqueConstraint(condition=models.Q(('ended_at__isnull', True)), fields=('campaign',), name='one_running_battle_per_campaign'), models.CheckConstraint(condition=models.Q(('turn__gte', 1)), name='battle_turn_from_one')],
                    },
                ),
            ],
            database_operations=[],
        ),
        move_content_type("battle", from_label="rules", to_label="battles"),
    ]
