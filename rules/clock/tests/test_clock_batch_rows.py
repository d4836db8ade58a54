"""A clock batch holds its log rows and the effects it loads and schedules as plain rows
(rules.log.rows), not Django model instances (issue 39: ``Model.__init__`` cost the
catch-up more than the rows' own ``COPY``). That the rows written are the same, column
for column, is held by rules/log/tests/test_sql_writes.py and the clock's other tests.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.db import connection
from django.db.models.signals import post_init

from rules.clock.tests.clock_helpers import run_job, wounded
from rules.log.models import Resolution, ResolutionKind, ScheduledEffect

pytestmark = [
    pytest.mark.django_db,
    # SQLite has no COPY: there the batch's rows are written as models (bulk_create)
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's COPY"),
]


def test_a_batch_builds_no_resolution_or_effect_model_instances(campaign, player):
    # given two characters whose wounds worsen every hour (each worsening schedules the next)
    wounded(campaign, player, "Aldo", every=60)
    wounded(campaign, player, "Bice", every=60)
    built: Counter[str] = Counter()

    def count(sender: type[Any], **kwargs: Any) -> None:
        built[sender.__name__] += 1

    # when the clock applies them, counting the log's and the effects' model instances made
    post_init.connect(count, sender=Resolution)
    post_init.connect(count, sender=ScheduledEffect)
    try:
        job = run_job(campaign, 5 * 60)
    finally:
        post_init.disconnect(count, sender=Resolution)
        post_init.disconnect(count, sender=ScheduledEffect)

    # then it wrote ten resolutions and scheduled ten effects without making one
    assert job.done == 10
    assert Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.EFFECT).count() == 10
    assert ScheduledEffect.objects.filter(campaign=campaign, state="pending").count() == 2
    assert built == Counter()
