"""An undo's entry is deleted with its undo in one cascade (a character's or a campaign's
deletion) without untying them first: RESTRICT, not PROTECT (issue 35). Django's state
only: no SQL (``sqlmigrate rules 0009`` says no-op), no row changes."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rules', '0008_resolution_imported_actor'),
    ]

    operations = [
        migrations.AlterField(
            model_name='resolution',
            name='undoes',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='undone_by', to='rules.resolution'),
        ),
    ]
