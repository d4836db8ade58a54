"""A log with entries written before messages and after (issue 37): both replay, export,
import and undo; the new ones read in German, the old ones keep their English.

An entry written before messages has no ``said``, no ``label_said`` on its rolls and no
``prompt_said``/``label_said`` on its pending choice: the test makes the older half of a
lived-in campaign's log so, as a database of before the change holds it.
"""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Campaign
from characters.models import Character
from core.errors import ResolutionConflict
from rules.log.models import Resolution
from rules.logbook.replay import replay_campaign
from rules.logbook.tests.test_log_export import lived_in  # noqa: F401 (a fixture)
from rules.play.undo import resolution_undo

pytestmark = pytest.mark.django_db


def _without_said(value: Any) -> Any:
    """``value`` as an entry written before messages holds it."""
    if isinstance(value, dict):
        return {k: _without_said(v) for k, v in value.items() if not k.endswith("_said")}
    if isinstance(value, list):
        return [_without_said(item) for item in value]
    return value


def _make_older(campaign: Campaign) -> set[int]:
    rows = list(Resolution.objects.filter(campaign=campaign).order_by("pk"))
    older = rows[: len(rows) // 2]
    for row in older:
        Resolution.objects.filter(pk=row.pk).update(
            said=None,
            rolls=_without_said(row.rolls),
            pending_choice=_without_said(row.pending_choice),
        )
    return {row.pk for row in older}


def test_entries_before_and_after_messages_replay_travel_and_undo(
    lived_in: Campaign,  # noqa: F811
    referee: Any,
    client_for: Any,
) -> None:
    older = _make_older(lived_in)
    newer = set(
        Resolution.objects.filter(campaign=lived_in)
        .exclude(pk__in=older)
        .values_list("pk", flat=True)
    )
    assert older and newer
    assert Resolution.objects.filter(pk__in=newer, said__isnull=False).exists()

    report = replay_campaign(Campaign.objects.get(pk=lived_in.pk))  # its seed as stored
    assert report.divergences == [], report.divergences

    client = client_for(referee)
    in_german = {
        row["id"]: row["summary"]
        for row in client.get(
            f"/api/v1/campaigns/{lived_in.pk}/resolutions/?page_size=200", HTTP_ACCEPT_LANGUAGE="de"
        ).json()["results"]
    }
    for row in Resolution.objects.filter(campaign=lived_in):
        if row.pk in older:
            assert in_german[row.pk] == row.summary  # English, as it was written
        elif row.said is not None:
            assert in_german[row.pk] != row.summary, row.summary

    data = client.get(f"/api/v1/campaigns/{lived_in.pk}/export/").json()
    assert [row["said"] is None for row in data["resolutions"]] == [
        row.said is None for row in Resolution.objects.filter(campaign=lived_in).order_by("pk")
    ]
    answer = client.post("/api/v1/campaigns/import/", {"export": data}, format="json")
    assert answer.status_code == 201, answer.content
    copy = Campaign.objects.get(pk=answer.json()["id"])
    assert [r.said for r in Resolution.objects.filter(campaign=copy).order_by("pk")] == [
        r.said for r in Resolution.objects.filter(campaign=lived_in).order_by("pk")
    ]

    # An export from before messages has no "said" at all: it imports, in English.
    for row in data["resolutions"]:
        del row["said"]
    answer = client.post("/api/v1/campaigns/import/", {"export": data}, format="json")
    assert answer.status_code == 201, answer.content
    assert not Resolution.objects.filter(
        campaign_id=answer.json()["id"], said__isnull=False
    ).exists()

    # Undo works on both: the undo of an old entry says its English inside the message.
    undone = 0
    for character in Character.objects.filter(campaign=lived_in):
        try:
            undo = resolution_undo(character_id=character.pk, actor=referee)[-1]
        except ResolutionConflict:
            continue  # nothing of theirs to undo
        assert undo.said is not None
        assert undo.summary.startswith(f"{character.name}: Referee undid: ")
        undone += 1
    assert undone >= 2
