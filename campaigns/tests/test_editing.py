"""Editing a campaign (issue 13): invites listed, revoked, expiring, single use; a player
removed or leaving; the campaign deleted with confirmation. Access is in the matrix."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import Campaign, Invite, Membership
from characters.models import Character
from rules.play.services import character_create, resolution_create_action
from rules.play.undo import resolution_undo


def invites_url(campaign):
    return f"/api/v1/campaigns/{campaign.pk}/invites/"


def join(client, code):
    return client.post("/api/v1/campaigns/join/", {"code": code}, format="json")


@pytest.fixture
def newcomers(make_user):
    return [make_user(f"newcomer{n}") for n in range(3)]


def test_invites_are_listed_and_a_revoked_one_joins_nobody(
    campaign, referee, client_for, newcomers
):
    client = client_for(referee)
    first = client.post(invites_url(campaign), {}, format="json").json()
    second = client.post(invites_url(campaign), {}, format="json").json()
    listed = client.get(invites_url(campaign)).json()
    assert [i["id"] for i in listed] == [second["id"], first["id"]]
    assert all(i["usable"] and not i["revoked"] for i in listed)
    revoked = client.delete(f"{invites_url(campaign)}{first['id']}/")
    assert revoked.status_code == 200 and revoked.json()["revoked"] is True
    assert client.delete(f"{invites_url(campaign)}{first['id']}/").status_code == 409
    refused = join(client_for(newcomers[0]), first["code"])
    assert refused.status_code == 400
    assert "revoked" in str(refused.json())
    assert join(client_for(newcomers[0]), second["code"]).status_code == 200
    assert client.delete(f"{invites_url(campaign)}999999/").status_code == 404


def test_a_single_use_invite_joins_one_person(campaign, referee, client_for, newcomers):
    code = (
        client_for(referee)
        .post(invites_url(campaign), {"single_use": True}, format="json")
        .json()["code"]
    )
    assert join(client_for(newcomers[0]), code).status_code == 200
    assert join(client_for(newcomers[0]), code).status_code == 200  # already in: fine
    second = join(client_for(newcomers[1]), code)
    assert second.status_code == 400
    assert Invite.objects.get(code=code).uses == 1
    assert not Membership.objects.filter(user=newcomers[1]).exists()


def test_an_expired_invite_joins_nobody(campaign, referee, client_for, newcomers):
    made = client_for(referee).post(invites_url(campaign), {"expires_in_hours": 2}, format="json")
    assert made.status_code == 201
    assert made.json()["expires_at"] is not None
    Invite.objects.filter(code=made.json()["code"]).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    response = join(client_for(newcomers[0]), made.json()["code"])
    assert response.status_code == 400
    assert "expired" in str(response.json())
    bad = client_for(referee).post(invites_url(campaign), {"expires_in_hours": 0}, format="json")
    assert bad.status_code == 400


def test_a_removed_player_leaves_their_characters_to_the_referee(
    campaign, referee, player, client_for
):
    aldo = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player), name="Aldo"
    )
    response = client_for(referee).delete(f"/api/v1/campaigns/{campaign.pk}/members/{player.pk}/")
    assert response.status_code == 204
    assert not Membership.objects.filter(campaign=campaign, user=player).exists()
    assert Character.objects.get(pk=aldo.pk).owner == referee
    assert client_for(player).get(f"/api/v1/campaigns/{campaign.pk}/").status_code == 404
    again = client_for(referee).delete(f"/api/v1/campaigns/{campaign.pk}/members/{player.pk}/")
    assert again.status_code == 409
    me = client_for(referee).delete(f"/api/v1/campaigns/{campaign.pk}/members/{referee.pk}/")
    assert me.status_code == 409


def test_a_player_leaves_and_the_referee_cannot(campaign, referee, other_player, client_for):
    assert (
        client_for(other_player).post(f"/api/v1/campaigns/{campaign.pk}/leave/").status_code == 204
    )
    assert not Membership.objects.filter(campaign=campaign, user=other_player).exists()
    response = client_for(referee).post(f"/api/v1/campaigns/{campaign.pk}/leave/")
    assert response.status_code == 409


def test_delete_needs_the_name_and_takes_everything(campaign, referee, player, client_for):
    aldo = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player), name="Aldo"
    )
    resolution_create_action(
        character_id=aldo.pk, actor=player, by_referee=False, action="damage", params={"amount": 1}
    )
    resolution_undo(character_id=aldo.pk, actor=referee)
    url = f"/api/v1/campaigns/{campaign.pk}/"
    assert client_for(referee).delete(url, {"confirm": "nope"}, format="json").status_code == 400
    assert Campaign.objects.filter(pk=campaign.pk).exists()
    response = client_for(referee).delete(url, {"confirm": campaign.name}, format="json")
    assert response.status_code == 204
    assert not Campaign.objects.filter(pk=campaign.pk).exists()
    assert not Character.objects.filter(pk=aldo.pk).exists()
