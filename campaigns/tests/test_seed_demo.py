"""``seed_demo`` (make run): every ruleset gets its demo campaign and party; the
condition monitor party shows every state the ruleset has (CM-4, CM-5)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from campaigns.models import Campaign
from rules.engine.registry import ruleset_keys
from rules.engine.rulesets.condition_monitor import STATES
from rules.models import ScheduledEffect

pytestmark = pytest.mark.django_db


def test_seed_demo_builds_a_condition_monitor_party_in_every_state(settings):
    settings.SAWBONES_EMBEDDED = True
    call_command("seed_demo", stdout=None)
    assert sorted(Campaign.objects.values_list("ruleset", flat=True)) == sorted(ruleset_keys())
    campaign = Campaign.objects.get(ruleset="condition_monitor")
    states = {c.name: c.sheet["state"] for c in campaign.characters.all()}
    assert states == {
        "Ines Vale": "ok",
        "Brannoc": "incapacitated",
        "Sister Oda": "dying",
        "Courier Pim (NPC)": "terminal",
        "Old Garret (NPC)": "dead",
    }
    assert set(states.values()) == set(STATES)
    clocks = ScheduledEffect.objects.filter(campaign=campaign, state="pending")
    assert sorted((e.character.name, e.kind, e.due_at) for e in clocks) == [
        ("Courier Pim (NPC)", "terminal_wound", 5),
        ("Sister Oda", "dying_hour", 60),
    ]
    # Run again: the demo is left as it is, not doubled.
    call_command("seed_demo", stdout=None)
    assert Campaign.objects.filter(ruleset="condition_monitor").count() == 1
