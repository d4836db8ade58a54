"""The clock job moves here from the play's app (label ``rules``) without touching the
database: its table keeps its name (``rules_clockjob``) and its rows; the content type
follows. ``rules 0006`` removes it from the old app's state after this.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import move_content_type


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('rules', '0005_clock_job_heartbeat'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('campaigns', '0006_campaign_archived_at'),
        ('characters', '0002_retired'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            # the table stays where it is, with its rows: only Django's state moves
            state_operations=[
                migrations.CreateModel(
                    name='ClockJob',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('advance', 'Advanced by the referee'), ('live', 'Live clock'), ('action', 'Time an action took')], default='advance', max_length=16)),
                        ('request_id', models.CharField(blank=True, default='', max_length=64)),
                        ('minutes', models.PositiveBigIntegerField()),
                        ('state', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('waiting', 'Waiting on a choice'), ('done', 'Done'), ('failed', 'Failed')], default='queued', max_length=16)),
                        ('clock_start', models.PositiveBigIntegerField(blank=True, null=True)),
                        ('target', models.PositiveBigIntegerField(blank=True, null=True)),
                        ('clock_reached', models.PositiveBigIntegerField(blank=True, null=True)),
                        ('done', models.PositiveIntegerField(default=0)),
                        ('total', models.PositiveIntegerField(default=0)),
                        ('reason', models.TextField(blank=True, default='')),
                        ('skipped', models.JSONField(blank=True, default=list)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('heartbeat_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='clock_jobs', to='campaigns.campaign')),
                        ('requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('waiting_on', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='characters.character')),
                    ],
                    options={
                        'db_table': 'rules_clockjob',
                        'ordering': ['-id'],
                        'indexes': [models.Index(fields=['campaign', 'state'], name='rules_clock_campaig_901b6f_idx'), models.Index(condition=models.Q(('state__in', ['queued', 'running'])), fields=['heartbeat_at'], name='clock_job_unfinished_heartbeat')],
                        'constraints': [models.UniqueConstraint(condition=models.Q(('request_id', ''), _negated=True), fields=('campaign', 'request_id'), name='one_clock_job_per_request_id'), models.CheckConstraint(condition=models.Q(('minutes__gte', 1)), name='clock_job_moves_the_clock'), models.CheckConstraint(condition=models.Q(('done__lte', models.F('total'))), name='clock_job_done_le_total')],
                    },
                ),
            ],
            database_operations=[],
        ),
        move_content_type("clockjob", from_label="rules", to_label="clock"),
    ]
