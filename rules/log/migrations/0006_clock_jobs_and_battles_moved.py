"""Clock jobs and battles now belong to their own apps (rules.clock, rules.battles):
forget them here, in Django's state only; their tables and rows stay (see
``clock 0001`` and ``battles 0001``)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('rules', '0005_clock_job_heartbeat'),
        ('clock', '0001_initial'),
        ('battles', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
                migrations.RemoveField(
                    model_name='clockjob',
                    name='campaign',
                ),
                migrations.RemoveField(
                    model_name='clockjob',
                    name='requested_by',
                ),
                migrations.RemoveField(
                    model_name='clockjob',
                    name='waiting_on',
                ),
                migrations.DeleteModel(
                    name='Battle',
                ),
                migrations.DeleteModel(
                    name='ClockJob',
                ),
        ], database_operations=[]),
    ]
