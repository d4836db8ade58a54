"""Issue 4's long advance: a year on an old_school party with every condition at once.

Every periodic rule (disease saves OS-6, birthdays and aging saves OS-5, starvation and
thirst OS-7, sleep windows OS-8, waking up OS-4, sobering OS-9) is a scheduled effect,
so one advance of a year applies them in time order, each once, and gives exactly what
the same year advanced in uneven steps gives.
"""

from __future__ import annotations

from collections import Counter

import pytest

from campaigns.models import Membership
from characters.models import Character
from rules.clock.tests.clock_helpers import FIXED_SEED, run_job, twin_campaign
from rules.engine.registry import get_ruleset
from rules.log.models import EffectState, Resolution, ResolutionKind, ScheduledEffect
from rules.play.services import character_create, resolution_create_action

YEAR = 365 * 24 * 60


def _party_with_every_condition(campaign, referee, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    sheets = {
        "Old Human": {"race": "human", "age": 59, "level": 3, "constitution": 16},
        "Halfling": {"race": "halfling", "age": 79, "level": 2, "constitution": 14},
        "Dwarf": {"race": "dwarf", "age": 249, "level": 2},
        "Elf": {"race": "elf", "age": 400, "level": 1},
        # Only sleepless: survives the year and turns 50, an aging save at -2 (OS-5).
        "Survivor": {"race": "human", "age": 49, "level": 1},
    }
    characters = [
        character_create(membership=membership, name=name, sheet=sheet)
        for name, sheet in sheets.items()
    ]

    def act(character, action, params, *, by_referee=True):
        resolution_create_action(
            character_id=character.pk,
            actor=referee,
            by_referee=by_referee,
            action=action,
            params=params,
        )

    human, halfling, dwarf, elf, _survivor = characters
    act(human, "contract_disease", {"disease": "Green River Fever"})  # OS-6
    act(human, "drink", {})  # OS-9: drunk until sober
    act(halfling, "set_supplies", {"food": False, "water": True})  # OS-7 starving
    act(halfling, "contract_disease", {"disease": "Green River Fever", "hidden": True})
    act(dwarf, "set_supplies", {"food": True, "water": False})  # OS-7 thirst
    wounds = Character.objects.get(pk=elf.pk).sheet["wounds"]
    act(elf, "damage", {"amount": wounds})  # OS-4: down at 0, wakes after 1d6 hours
    act(elf, "set_supplies", {"food": False, "water": False})
    return characters


def _advance_a_year(campaign, steps):
    for minutes in steps:
        job = run_job(campaign, minutes)
        assert job.state == "done", (job.state, getattr(job, "reason", ""))


def _fingerprint(campaign):
    return [
        (r.character.name, r.action, r.clock, r.rolls, r.sheet_after, r.version)
        for r in Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.EFFECT)
        .select_related("character")
        .order_by("id")
    ]


@pytest.mark.slow
def test_a_year_on_a_party_with_every_condition(make_campaign, referee, player):
    campaign = make_campaign("old_school")
    campaign.dice_seed = FIXED_SEED
    campaign.save(update_fields=["dice_seed"])
    twin = twin_campaign(campaign)
    party = _party_with_every_condition(campaign, referee, player)
    twin_party = _party_with_every_condition(twin, referee, player)

    _advance_a_year(campaign, [YEAR])
    # The same year in uneven steps, one of them cutting through the incubation.
    _advance_a_year(twin, [1, 59, 7 * 24 * 60, 3 * 24 * 60 + 7, YEAR - 10 * 24 * 60 - 67])

    campaign.refresh_from_db()
    twin.refresh_from_db()
    assert campaign.clock == twin.clock == YEAR
    assert _fingerprint(campaign) == _fingerprint(twin)
    assert [Character.objects.get(pk=c.pk).sheet for c in party] == [
        Character.objects.get(pk=c.pk).sheet for c in twin_party
    ]

    # Nothing due is left behind, and each effect produced exactly one resolution.
    assert not ScheduledEffect.objects.filter(
        campaign=campaign, state=EffectState.PENDING, due_at__lte=YEAR
    ).exists()
    done = ScheduledEffect.objects.filter(campaign=campaign, state=EffectState.DONE)
    assert (
        done.count()
        == Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.EFFECT).count()
    )
    assert len({e.resolution_id for e in done}) == done.count()

    # Applied in time order across the party, each at its own in-game minute.
    applied = list(
        Resolution.objects.filter(campaign=campaign, kind=ResolutionKind.EFFECT).order_by("id")
    )
    assert [r.clock for r in applied] == sorted(r.clock for r in applied)
    kinds = Counter(r.action for r in applied)
    for kind in (
        "disease_save",
        "wake_up",
        "sober_up",
        "starvation_check",
        "thirst_check",
        "sleep_window",
        "birthday",
    ):
        assert kinds[kind] > 0, kind

    survivor = Character.objects.get(pk=party[-1].pk)
    assert survivor.sheet["state"] != "dead" and survivor.sheet["age"] == 50
    (birthday,) = [r for r in applied if r.character_id == survivor.pk and r.action == "birthday"]
    assert birthday.clock == YEAR
    assert any("paralysis" in roll["label"] for roll in birthday.rolls)

    ruleset = get_ruleset("old_school")
    for character in party:
        sheet = Character.objects.get(pk=character.pk).sheet
        ruleset.validate_sheet(sheet)
        for ability in (
            "strength",
            "dexterity",
            "constitution",
            "intelligence",
            "wisdom",
            "charisma",
        ):
            assert sheet[ability] <= sheet[f"max_{ability}"]
        assert sheet["wounds"] <= sheet["max_wounds"]
        # dead stays dead: nothing applied after a death changes the sheet
        deaths = [
            r
            for r in applied
            if r.character_id == character.pk and r.sheet_after["state"] == "dead"
        ]
        if deaths:
            later = [r for r in applied if r.character_id == character.pk and r.id > deaths[0].id]
            assert all(r.sheet_after == deaths[0].sheet_after for r in later)
