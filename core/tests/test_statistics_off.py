"""The large JSON and text columns that nothing filters on are left out of ANALYZE on
PostgreSQL (core.migration_ops.statistics_off, issue 39), and only those: the columns
queries filter and sort on keep their statistics."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from campaigns.models import Membership
from rules.play.services import character_create

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="ANALYZE's targets: PostgreSQL"),
]

NOT_ANALYZED = {
    "rules_resolution": {"params", "rolls", "said", "outcome"}  # what it did
    | {"sheet_before", "sheet_after", "pending_choice"},  # and the sheets
    "rules_scheduledeffect": {"payload"},
    "characters_character": {"sheet", "pending_choice"},
    "clock_clockreport": {"characters"},
    "clock_clockreportpart": {"characters"},
    "webhooks_webhookevent": {"body"},
}


def _targets(table: str) -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, attstattarget FROM pg_attribute WHERE attrelid = %s::regclass"
            " AND attnum > 0 AND NOT attisdropped",
            [table],
        )
        return {name: target for name, target in cursor.fetchall()}


@pytest.mark.parametrize("table", sorted(NOT_ANALYZED))
def test_large_columns_are_left_out_of_analyze_and_the_rest_kept(table: str) -> None:
    targets = _targets(table)
    assert {name for name, target in targets.items() if target == 0} == NOT_ANALYZED[table]
    assert all(target == -1 for name, target in targets.items() if name not in NOT_ANALYZED[table])


def test_analyze_of_the_log_keeps_statistics_of_what_queries_filter_on(
    campaign: Any, player: Any
) -> None:
    membership = Membership.objects.get(campaign=campaign, user=player)
    for name in ("Aldo", "Bo", "Cid"):
        character_create(membership=membership, name=name)  # each with its first entry
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE rules_resolution")
        cursor.execute(
            "SELECT attname FROM pg_stats WHERE tablename = 'rules_resolution'"
            " AND schemaname = current_schema()"
        )
        analyzed = {name for (name,) in cursor.fetchall()}
    assert {"campaign_id", "character_id", "clock", "kind", "summary"} <= analyzed
    assert not analyzed & NOT_ANALYZED["rules_resolution"]
