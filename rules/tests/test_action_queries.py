"""What one action costs in queries (issue 16, P2; bench/actions.py measures the time):
no row fetched twice under the lock, the campaign's tables only read by an action that
uses them, the locks kept (rules/tests/test_concurrency.py holds them)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaigns.models import Membership
from rules.models import ClockJob
from rules.services import character_create

pytestmark = pytest.mark.django_db


def test_one_action_costs_eleven_statements(web, campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    client = web(player)
    url = f"/api/v1/characters/{aldo.pk}/actions/"
    with CaptureQueriesContext(connection) as captured:
        response = client.post(url, {"action": "long_rest"}, content_type="application/json")
    assert response.status_code == 201, response.content
    sql = [q["sql"] for q in captured if "SAVEPOINT" not in q["sql"]]
    # the session, the user, the access check (the character, the membership); under
    # the locks: the campaign, the character; the sheet, the dice counter, the log row;
    # the campaign's webhooks; the clock job of the night's 8 hours (docs/clock.md).
    # It was 13: the character's campaign id looked up again, the campaign locked twice.
    assert len(sql) == 11, "\n".join(sql)
    locks = [q for q in sql if q.endswith("FOR UPDATE")]
    assert [q.split(" FROM ")[1].split()[0] for q in locks] == [
        '"campaigns_campaign"',
        '"characters_character"',
    ]
    assert not any("campaigns_campaigntable" in q for q in sql)  # long_rest reads no table
    assert ClockJob.objects.filter(campaign=campaign, minutes=480).count() == 1
