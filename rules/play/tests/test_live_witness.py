"""The live polls' one query (rules.log.selectors.live_witness, sheet_witness) is written in
SQL to spare the ORM's compile on every poll (docs/performance.md): here it is held to
what the ORM reads."""

from __future__ import annotations

import pytest
from django.db.models import Sum

from campaigns.models import Membership
from characters.models import Character
from rules.battles.models import Battle
from rules.battles.selectors import LATEST_BATTLE
from rules.battles.services import battle_begin
from rules.clock.models import ClockJob
from rules.clock.selectors import LATEST_CLOCK_JOB
from rules.log.selectors import live_witness, sheet_witness
from rules.play.services import character_create, resolution_create_action

pytestmark = pytest.mark.django_db


def role(campaign_id, user_id):
    row = live_witness(campaign_id, viewer=user_id)
    assert row is not None
    return row["role"]


def test_the_campaign_witness_is_what_the_orm_reads(
    make_campaign, make_unit, referee, player, other_player, outsider
):
    skirmish = make_campaign("warband")
    assert live_witness(skirmish.pk, latest=(LATEST_CLOCK_JOB, LATEST_BATTLE)) == {
        "clock": 0,
        "ruleset": "warband",
        "count": 0,
        "versions": 0,
        "job_pk": None,
        "job_state": None,
        **dict.fromkeys(("battle_pk", "battle_turn", "battle_active"), None),
        **dict.fromkeys(("battle_phase", "battle_ended_at"), None),
    }
    make_unit(skirmish, player, "Red Hero", "Red")
    make_unit(skirmish, other_player, "Blue Blade", "Blue")
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    battle = Battle.objects.filter(campaign=skirmish).latest("id")
    party = Character.objects.filter(campaign=skirmish)
    row = live_witness(skirmish.pk, latest=(LATEST_BATTLE,), viewer=player.pk)
    assert row == {
        "clock": skirmish.clock,
        "ruleset": "warband",
        "count": 2,
        "versions": party.aggregate(s=Sum("version"))["s"],
        "battle_pk": battle.pk,
        "battle_turn": battle.turn,
        "battle_active": battle.active,
        "battle_phase": battle.phase,
        "battle_ended_at": None,
        "role": "player",
    }
    assert role(skirmish.pk, referee.pk) == "referee"
    assert role(skirmish.pk, outsider.pk) is None
    assert live_witness(10**9, latest=(LATEST_CLOCK_JOB, LATEST_BATTLE), viewer=player.pk) is None


def test_the_latest_clock_job_and_the_sheet(campaign, referee, player, outsider):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    for _ in range(2):
        resolution_create_action(
            character_id=aldo.pk, actor=player, by_referee=False, action="long_rest", params={}
        )
    # the rests crossed nothing: the clock moved at once (docs/clock.md); two jobs queued
    for _ in range(2):
        ClockJob.objects.create(campaign=campaign, minutes=60)
    job = ClockJob.objects.filter(campaign=campaign).latest("id")
    row = live_witness(campaign.pk, latest=(LATEST_CLOCK_JOB,))
    assert row is not None
    assert (row["job_pk"], row["job_state"]) == (job.pk, job.state)
    assert "role" not in row
    aldo.refresh_from_db()
    campaign.refresh_from_db()
    expected = {
        "version": aldo.version,
        "owner_id": player.pk,
        "campaign_id": campaign.pk,
        "clock": campaign.clock,
    }
    assert sheet_witness(aldo.pk, player.pk) == expected | {"role": "player"}
    assert sheet_witness(aldo.pk, referee.pk) == expected | {"role": "referee"}
    assert sheet_witness(aldo.pk, outsider.pk) == expected | {"role": None}
    assert sheet_witness(10**9, player.pk) is None
