"""The test suite's PostgreSQL backend (config/test_postgresql): a test that commits is
cleaned up by deleting every row, related rows included, not by truncating."""

from __future__ import annotations

import pytest
from django.core.management.color import no_style
from django.db import connection

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.log.models import Resolution
from rules.play.services import character_create, resolution_create_action

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the PostgreSQL configuration's backend"
)


@pytest.mark.django_db(transaction=True)
def test_the_flush_deletes_every_row_and_truncates_nothing(campaign, referee, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    character = character_create(membership=membership, name="Aldo", sheet={"hp": 10})
    resolution_create_action(
        character_id=character.pk, actor=referee, by_referee=True, action="long_rest", params={}
    )
    tables = connection.introspection.django_table_names(only_existing=True)
    flush = connection.ops.sql_flush(no_style(), tables, allow_cascade=True)
    assert not any("TRUNCATE" in statement for statement in flush), flush
    connection.ops.execute_sql_flush(flush)
    assert not Resolution.objects.exists()
    assert not Character.objects.exists()
    assert not Campaign.objects.exists()
    # a flush that restarts the sequences still truncates (RESTART IDENTITY)
    assert (
        "RESTART IDENTITY" in connection.ops.sql_flush(no_style(), tables, reset_sequences=True)[0]
    )
