"""Ruling G-4: hidden rolls are the referee's until the referee reveals them."""

from __future__ import annotations

from characters.models import Character
from rules.log.models import Resolution


def test_referee_reveals_hidden_rolls_to_the_player(make_campaign, player, referee, client_for):
    campaign = make_campaign("deckahedron")
    created = client_for(player).post(
        f"/api/v1/campaigns/{campaign.pk}/characters/", {"name": "Cael"}, format="json"
    )
    character = Character.objects.get(pk=created.json()["id"])
    resolution = Resolution.objects.get(character=character)
    log_url = f"/api/v1/characters/{character.pk}/resolutions/"
    reveal_url = f"/api/v1/characters/{character.pk}/resolutions/{resolution.pk}/reveal/"
    assert client_for(player).get(log_url).json()["results"][0]["rolls"] == []

    assert client_for(player).post(reveal_url).status_code == 403
    assert client_for(player).get(log_url).json()["results"][0]["rolls"] == []

    revealed = client_for(referee).post(reveal_url)
    assert revealed.status_code == 200
    rolls = client_for(player).get(log_url).json()["results"][0]["rolls"]
    assert [r["expression"] for r in rolls] == ["shuffle(20)"]
    assert Resolution.objects.get(pk=resolution.pk).sheet_after == resolution.sheet_after


def test_reveal_of_another_characters_resolution_is_404(make_campaign, referee, client_for):
    campaign = make_campaign("deckahedron")
    client = client_for(referee)
    a = client.post(f"/api/v1/campaigns/{campaign.pk}/characters/", {"name": "A"}, format="json")
    b = client.post(f"/api/v1/campaigns/{campaign.pk}/characters/", {"name": "B"}, format="json")
    b_resolution = Resolution.objects.get(character_id=b.json()["id"])
    url = f"/api/v1/characters/{a.json()['id']}/resolutions/{b_resolution.pk}/reveal/"
    assert client.post(url).status_code == 404
    assert Resolution.objects.get(pk=b_resolution.pk).revealed is False
