"""Archiving a campaign (issues 13 and 14): the referee archives it, play stops with a
clear 409 while reads still work, and the dice seed is revealed in the same transaction
(docs/dice.md: "rotation also happens when a campaign is archived")."""

from __future__ import annotations

import hashlib

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Membership, RevealedSeed
from characters.models import Character
from core.errors import ResolutionConflict
from rules.clock.models import UNFINISHED_JOB_STATES, ClockJob, ClockJobState
from rules.clock.services import clock_advance_start
from rules.log.models import Resolution
from rules.play.dice_rotation import campaign_archive
from rules.play.services import character_create, resolution_create_action

pytestmark = pytest.mark.django_db


def url(campaign: Campaign, rest: str = "") -> str:
    return f"/api/v1/campaigns/{campaign.pk}/{rest}"


@pytest.fixture
def played(make_campaign, referee, player):
    campaign = make_campaign("hit_dice")
    # Rests take game time; here they leave no clock job behind (docs/clock.md).
    Campaign.objects.filter(pk=campaign.pk).update(actions_move_clock=False)
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(
        membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 8}
    )
    resolution_create_action(
        character_id=aldo.pk, actor=player, by_referee=False, action="long_rest", params={}
    )
    campaign.refresh_from_db()
    return campaign, aldo


def world(campaign: Campaign) -> tuple:
    campaign.refresh_from_db()
    return (
        campaign.clock,
        campaign.dice_counter,
        campaign.dice_seed,
        list(Character.objects.filter(campaign=campaign).values_list("pk", "version", "sheet")),
        Resolution.objects.filter(campaign=campaign).count(),
        ClockJob.objects.filter(campaign=campaign).count(),
    )


def test_archiving_reveals_the_seed_in_use_and_says_so(played, client_for, referee):
    campaign, _ = played
    secret = campaign.dice_seed

    response = client_for(referee).post(url(campaign, "archive/"))

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["campaign"]["archived_at"] is not None
    revealed = body["revealed"]
    assert revealed["seed"] == secret
    assert revealed["commitment"] == hashlib.sha256(bytes.fromhex(secret)).hexdigest()
    assert revealed["last_counter"] == campaign.dice_counter - 1
    campaign.refresh_from_db()
    assert campaign.archived_at is not None
    assert campaign.dice_seed != secret  # a new seed, committed to
    assert body["campaign"]["dice_commitment"] != revealed["commitment"]
    seeds = client_for(referee).get(url(campaign, "dice/seeds/")).json()
    assert [p["seed"] for p in seeds] == [secret, None]


def test_an_archived_campaign_refuses_play_with_a_409_and_changes_nothing(
    played, client_for, referee, player
):
    campaign, aldo = played
    client_for(referee).post(url(campaign, "archive/"))
    before = world(campaign)
    attempts = [
        (player, f"/api/v1/characters/{aldo.pk}/actions/", {"action": "long_rest"}),
        (referee, f"/api/v1/characters/{aldo.pk}/actions/", {"action": "short_rest"}),
        (player, url(campaign, "characters/"), {"name": "Bea"}),
        (referee, url(campaign, "clock/advance/"), {"minutes": 60}),
        (referee, url(campaign, "party-actions/"), {"action": "long_rest", "params": {}}),
    ]
    for user, path, body in attempts:
        response = client_for(user).post(path, body, format="json")
        assert response.status_code == 409, (path, response.content)
        assert "archived" in response.json()["detail"]
    live = client_for(referee).put(url(campaign, "clock/live/"), {"ratio": "1"}, format="json")
    assert live.status_code == 409
    undo = client_for(referee).post(f"/api/v1/characters/{aldo.pk}/undo/")
    assert undo.status_code == 409
    assert world(campaign) == before


def test_an_archived_campaign_can_still_be_read(played, client_for, referee, player):
    campaign, aldo = played
    client_for(referee).post(url(campaign, "archive/"))
    for user in (referee, player):
        client = client_for(user)
        for path in (
            url(campaign),
            url(campaign, "characters/"),
            url(campaign, "dice/seeds/"),
            url(campaign, "dice/export/"),
            f"/api/v1/characters/{aldo.pk}/",
            f"/api/v1/characters/{aldo.pk}/resolutions/",
        ):
            assert client.get(path).status_code == 200, path
    assert client_for(player).get(url(campaign)).json()["archived_at"] is not None
    odds = client_for(player).post(
        f"/api/v1/characters/{aldo.pk}/odds/", {"action": "long_rest", "params": {}}, format="json"
    )
    assert odds.status_code == 200  # a read: what could have come of it


def test_archiving_twice_is_a_409_and_unarchiving_brings_play_back(played, client_for, referee):
    campaign, aldo = played
    client = client_for(referee)
    assert client.post(url(campaign, "archive/")).status_code == 200
    again = client.post(url(campaign, "archive/"))
    assert again.status_code == 409
    assert "already archived" in again.json()["detail"]
    assert RevealedSeed.objects.filter(campaign=campaign).count() == 1

    back = client.post(url(campaign, "unarchive/"))
    assert back.status_code == 200
    assert back.json()["archived_at"] is None
    assert client.post(url(campaign, "unarchive/")).status_code == 409
    action = client.post(
        f"/api/v1/characters/{aldo.pk}/actions/",
        {"action": "damage", "params": {"amount": 1}},
        format="json",
    )
    assert action.status_code == 201


def test_players_may_not_archive(played, client_for, player, outsider):
    campaign, _ = played
    assert client_for(player).post(url(campaign, "archive/")).status_code == 403
    assert client_for(outsider).post(url(campaign, "archive/")).status_code == 404
    campaign.refresh_from_db()
    assert campaign.archived_at is None
    assert not RevealedSeed.objects.filter(campaign=campaign).exists()


@pytest.mark.parametrize("state", sorted(UNFINISHED_JOB_STATES))
def test_archiving_waits_for_the_clock_to_finish(played, client_for, referee, state):
    campaign, _ = played
    job = clock_advance_start(campaign_id=campaign.pk, minutes=30, requested_by=referee)
    ClockJob.objects.filter(pk=job.pk).update(state=state)
    before = world(campaign)

    response = client_for(referee).post(url(campaign, "archive/"))

    assert response.status_code == 409
    assert "clock is still advancing" in response.json()["detail"]
    assert world(campaign) == before
    assert Campaign.objects.get(pk=campaign.pk).archived_at is None


def test_archiving_stops_a_live_clock_and_a_failed_job_cannot_resume(played, client_for, referee):
    campaign, _ = played
    client = client_for(referee)
    live = client.put(url(campaign, "clock/live/"), {"ratio": "1"}, format="json")
    assert live.status_code == 200
    job = clock_advance_start(campaign_id=campaign.pk, minutes=30, requested_by=referee)
    ClockJob.objects.filter(pk=job.pk).update(state=ClockJobState.FAILED, reason="test")

    assert client.post(url(campaign, "archive/")).status_code == 200

    campaign.refresh_from_db()
    assert campaign.live_ratio == 0
    assert campaign.live_last_tick is None
    resume = client.post(url(campaign, f"clock/jobs/{job.pk}/resume/"))
    assert resume.status_code == 409
    assert ClockJob.objects.get(pk=job.pk).state == ClockJobState.FAILED


def test_the_service_refuses_an_archived_campaign_under_its_lock(played, referee):
    campaign, aldo = played
    campaign_archive(campaign_id=campaign.pk)
    with pytest.raises(ResolutionConflict, match="archived"):
        resolution_create_action(
            character_id=aldo.pk, actor=referee, by_referee=True, action="long_rest", params={}
        )


def test_the_archive_endpoints_are_in_the_schema(client_for, referee):
    schema = client_for(referee).get(reverse("api-schema"), {"format": "json"}).json()
    for name in ("archive", "unarchive"):
        operation = schema["paths"][f"/api/v1/campaigns/{{campaign_id}}/{name}/"]["post"]
        assert operation["description"]


# -- the campaign page -------------------------------------------------------------------------
def test_the_referee_archives_from_the_campaign_page(played, referee, player):
    campaign, _ = played
    secret = campaign.dice_seed
    client = Client()
    client.force_login(referee)
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert "Archive this campaign" in page
    assert "archived-notice" not in page

    response = client.post(reverse("campaign-archive", args=[campaign.pk]))

    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "This campaign is archived" in page
    assert "Bring it back into play" in page
    assert secret in page  # the dice seed, revealed
    client.force_login(player)
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert "This campaign is archived" in page
    assert "Bring it back into play" not in page
    assert client.post(reverse("campaign-unarchive", args=[campaign.pk])).status_code == 403
    assert Campaign.objects.get(pk=campaign.pk).archived_at is not None


def test_archiving_from_the_page_twice_says_why_in_words(played, referee):
    campaign, _ = played
    client = Client()
    client.force_login(referee)
    client.post(reverse("campaign-archive", args=[campaign.pk]))
    response = client.post(reverse("campaign-archive", args=[campaign.pk]), follow=True)
    assert "is already archived" in response.content.decode()
    assert RevealedSeed.objects.filter(campaign=campaign).count() == 1


def test_an_action_from_the_character_page_of_an_archived_campaign_says_why(played, player):
    campaign, aldo = played
    campaign_archive(campaign_id=campaign.pk)
    aldo.refresh_from_db()
    client = Client()
    client.force_login(player)
    response = client.post(
        reverse("character-action", args=[aldo.pk, "long_rest"]),
        {"expected_version": aldo.version},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 409
    assert "archived" in response.content.decode()
    assert Character.objects.get(pk=aldo.pk).version == aldo.version
    page = client.get(reverse("character", args=[aldo.pk])).content.decode()
    assert "This campaign is archived" in page
