"""rules.log.statements.write_action, on its own: an action's rows (the sheet, the dice
counter, the log row, the clock or its job) written as the models' ``save()`` writes
them, in one statement on PostgreSQL and in separate saves elsewhere. Both
configurations run these (the suite runs on SQLite and on PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.clock.models import ClockJob
from rules.engine.interface import Result
from rules.log.models import Resolution
from rules.log.services import build_resolution
from rules.log.statements import _insert_sql, _update_sql, write_action
from rules.play.services import character_create

pytestmark = pytest.mark.django_db


def _unsaved(campaign: Campaign, player: Any) -> tuple[Campaign, Character, Resolution]:
    """A character, its campaign and the unsaved log row of a change to its sheet, the
    character and the campaign changed in memory as the play changes them."""
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    campaign = Campaign.objects.get(pk=campaign.pk)
    character = Character.objects.get(pk=aldo.pk)
    sheet = {**character.sheet, "hp": 2}
    resolution = build_resolution(
        campaign=campaign,
        character=character,
        result=Result(sheet=sheet, summary="hurt.", elapsed_minutes=30),
        kind="action",
        action="attack",
        params={"damage": 3},
        actor=player,
        counter_start=campaign.dice_counter,
        counter_end=campaign.dice_counter + 2,
        clock=campaign.clock,
        pending_choice=None,
    )
    character.sheet, character.version = sheet, resolution.version
    campaign.dice_counter += 2
    return campaign, character, resolution


def _statements(captured: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in captured if "SAVEPOINT" not in q["sql"]]


def test_an_action_without_time_writes_the_sheet_the_counter_and_the_log_row(campaign, player):
    campaign, character, resolution = _unsaved(campaign, player)
    with CaptureQueriesContext(connection) as captured:
        clock = write_action(campaign, character, resolution, dice_rolled=True)
    assert clock is None
    # one statement on PostgreSQL; the sheet, the campaign and the log row elsewhere
    assert len(_statements(captured)) == (1 if connection.vendor == "postgresql" else 3)
    row = Resolution.objects.get(pk=resolution.pk)
    assert not resolution._state.adding and row.params == {"damage": 3}
    assert row.sheet_after == {**row.sheet_before, "hp": 2} and row.created_at is not None
    saved = Character.objects.get(pk=character.pk)
    assert (saved.sheet, saved.version) == (character.sheet, row.version)
    assert Campaign.objects.get(pk=campaign.pk).dice_counter == row.dice_counter_end


def test_the_clock_is_set_in_the_same_write_and_read_back(campaign, player):
    campaign, character, resolution = _unsaved(campaign, player)
    before = campaign.clock
    clock = write_action(campaign, character, resolution, dice_rolled=False, clock=F("clock") + 30)
    assert clock == campaign.clock == before + 30
    assert Campaign.objects.get(pk=campaign.pk).clock == before + 30


def test_a_job_is_inserted_with_the_log_row_and_numbered(campaign, player):
    campaign, character, resolution = _unsaved(campaign, player)
    job = ClockJob(campaign_id=campaign.pk, kind="action", minutes=30, requested_by=player)
    write_action(campaign, character, resolution, dice_rolled=False, job=job)
    assert job.pk is not None and not job._state.adding
    saved = ClockJob.objects.get(pk=job.pk)
    assert (saved.kind, saved.minutes, saved.requested_by_id) == ("action", 30, player.pk)
    assert saved.created_at is not None
    assert Resolution.objects.filter(pk=resolution.pk).exists()


def test_the_compiled_statements_are_djangos_and_not_run(campaign, player):
    campaign, character, resolution = _unsaved(campaign, player)
    with CaptureQueriesContext(connection) as captured:
        insert, insert_params = _insert_sql(resolution, connection.alias)
        update, update_params = _update_sql(Campaign, campaign.pk, {"clock": 5}, connection.alias)
    assert _statements(captured) == []
    assert insert.startswith('INSERT INTO "rules_resolution"') and "RETURNING" in insert
    assert len(insert_params) == insert.count("%s")
    assert update.startswith('UPDATE "campaigns_campaign" SET "clock" = %s')
    assert update_params == (5, campaign.pk)
