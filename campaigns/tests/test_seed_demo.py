"""``seed_demo`` (make run): every ruleset gets its demo campaign and party; the
condition monitor party shows every state the ruleset has (CM-4, CM-5); the warband one
has two warbands of five, each led by a hero with 3 wounds, and a battle under way."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings

from campaigns.models import Campaign
from characters.models import Character
from rules.battles.models import Battle
from rules.engine.registry import ruleset_keys
from rules.engine.rulesets.condition_monitor import STATES
from rules.log.models import Resolution, ResolutionKind, ScheduledEffect

pytestmark = pytest.mark.django_db


def seed() -> str:
    out = StringIO()
    with override_settings(SAWBONES_EMBEDDED=True):
        call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_a_demo_campaign_per_ruleset_and_the_logins():
    printed = seed()
    assert sorted(Campaign.objects.values_list("ruleset", flat=True)) == sorted(ruleset_keys())
    assert "log in as referee" in printed and "log in as player2" in printed


def test_the_warband_demo_has_two_warbands_of_five_and_a_battle_under_way():
    seed()
    campaign = Campaign.objects.get(ruleset="warband")
    units = list(Character.objects.filter(campaign=campaign).order_by("pk"))
    bands: dict[str, list[Character]] = {}
    for unit in units:
        bands.setdefault(unit.sheet["warband"], []).append(unit)
    assert {name: len(members) for name, members in bands.items()} == {
        "Red Hand": 5,
        "Grey Crows": 5,
    }
    for members in bands.values():
        assert [u.sheet["max_wounds"] for u in members] == [3, 1, 1, 1, 1]
        assert len({u.owner_id for u in members}) == 1  # one player runs each warband
    battle = Battle.objects.get(campaign=campaign, ended_at__isnull=True)
    assert (battle.warbands, battle.turn, battle.active, battle.phase) == (
        ["Red Hand", "Grey Crows"],
        1,
        0,
        "melee",
    )
    states = {u.name: (u.sheet["injury"], u.sheet["wounds"]) for u in units}
    assert states["Hookbill"] == ("stunned", 0)
    assert states["Crow Captain"] == ("none", 2)
    assert states["Tallow"] == ("incapacitated", 0)
    assert Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.ACTION).count() == 4


def test_seeding_again_adds_nothing():
    seed()
    counts = (Campaign.objects.count(), Character.objects.count(), Battle.objects.count())
    seed()
    assert (Campaign.objects.count(), Character.objects.count(), Battle.objects.count()) == counts


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
