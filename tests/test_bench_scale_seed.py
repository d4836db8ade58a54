"""bench/scale.py's seeding still fits the models (issue 39): it copies rows column by
column in SQL, so a new column or constraint would break it only when someone runs the
bench by hand. Seeded here at three campaigns (a second); the bench itself never runs
in the suite. PostgreSQL only, like the bench."""

from __future__ import annotations

import importlib.util
import sys
from decimal import Decimal
from pathlib import Path
from types import ModuleType

import pytest
from django.db import connection
from django.utils import timezone

from campaigns.models import Campaign, Membership, live_next_tick
from characters.models import Character
from rules.clock.models import ClockJob
from rules.log.models import Resolution, ScheduledEffect
from webhooks.models import WebhookDelivery, WebhookEndpoint

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the bench seeds PostgreSQL in SQL (generate_series)",
    ),
    pytest.mark.django_db,
]


def _bench() -> ModuleType:
    """bench/scale.py, loaded from its file: the bench modules are scripts, each run from
    its folder (they import each other by their bare names), not a package."""
    path = Path(__file__).resolve().parent.parent / "bench" / "scale.py"
    spec = importlib.util.spec_from_file_location("bench_scale", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def test_the_scale_bench_seeds_its_campaigns():
    bench = _bench()
    CHARACTERS, EFFECTS, ENTRIES = bench.CHARACTERS, bench.EFFECTS, bench.ENTRIES  # noqa: N806
    template = bench.seed(3)
    assert Campaign.objects.count() == 3
    assert Membership.objects.filter(role="player", email_digest=True).count() == 3
    assert Character.objects.count() == 3 * CHARACTERS
    assert Resolution.objects.count() == 3 * CHARACTERS * ENTRIES
    assert ScheduledEffect.objects.filter(state="pending").count() == 3 * CHARACTERS * EFFECTS
    assert WebhookEndpoint.objects.count() == 3
    assert WebhookDelivery.objects.filter(state="pending").exists()
    assert ClockJob.objects.filter(state="done").count() == 3 * 2
    assert Campaign.objects.filter(live_ratio=1).count() == 3  # every clock live
    # beat's tick finds the due ones (the newest) by their next tick, as the clock writes it
    bench.arm(1)
    newest = Campaign.objects.order_by("-id").values_list("pk", flat=True)[:1]
    assert set(Campaign.objects.filter(live_next_tick__lte=timezone.now())) == set(
        Campaign.objects.filter(pk__in=list(newest))
    )
    for campaign in Campaign.objects.all():
        assert campaign.live_next_tick == live_next_tick(Decimal(1), campaign.live_last_tick)
    # every character's log runs up to its version, each entry in the character's campaign
    for character in Character.objects.filter(campaign=template):
        log = Resolution.objects.filter(character=character)
        assert sorted(log.values_list("version", flat=True)) == list(range(1, ENTRIES + 1))
        assert set(log.values_list("campaign_id", flat=True)) == {template.pk}
        assert character.version == ENTRIES
