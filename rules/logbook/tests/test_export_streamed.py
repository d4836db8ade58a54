"""The export is streamed (issue 39): its bytes are those the API's JSON renderer writes
of the whole export, a chunk of the log at a time."""

from __future__ import annotations

import json
from functools import partial

import pytest
from rest_framework.renderers import JSONRenderer

from campaigns.models import Membership
from rules.log.models import Resolution
from rules.logbook import export
from rules.logbook.export import campaign_export
from rules.play.editing import character_rename
from rules.play.services import character_create, resolution_create_action


@pytest.fixture
def campaign(make_campaign, referee):
    """Two characters, a few entries each, and names the renderer escapes."""
    school = make_campaign("old_school")
    ref = Membership.objects.get(campaign=school, user=referee)
    act = partial(resolution_create_action, actor=referee, by_referee=True)
    for name in ("Dorn", "Pell"):
        character = character_create(membership=ref, name=name)
        for action, params in (("drink", {"hours": 6}), ("damage", {"amount": 1})):
            act(character_id=character.pk, action=action, params=params)
        character_rename(character_id=character.pk, actor=referee, name=f"{name}\u2028é “x”")
    # as the database gives it back (PostgreSQL's jsonb orders the options' keys its way)
    school.refresh_from_db()
    return school


@pytest.mark.parametrize("chunk", [1, 2, 3])
def test_the_streamed_export_is_the_whole_export_as_rendered(
    campaign, referee, client_for, monkeypatch, chunk
):
    monkeypatch.setattr(export, "CHUNK", chunk)
    response = client_for(referee).get(f"/api/v1/campaigns/{campaign.pk}/export/")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "application/json"
    body = b"".join(response.streaming_content)
    assert body == JSONRenderer().render(campaign_export(campaign))
    assert len(json.loads(body)["resolutions"]) == Resolution.objects.count() > chunk


def test_an_indented_export_is_rendered_whole(campaign, referee, client_for):
    response = client_for(referee).get(
        f"/api/v1/campaigns/{campaign.pk}/export/", HTTP_ACCEPT="application/json; indent=2"
    )
    assert response.status_code == 200
    assert not response.streaming
    assert response.content == JSONRenderer().render(
        campaign_export(campaign), "application/json; indent=2"
    )
