"""old_school over the API: the campaign's editable tables drive the rules (OS-4, OS-6)."""

from __future__ import annotations

import pytest

from characters.models import Character
from rules.log.models import CampaignTable, Resolution


@pytest.fixture
def school(make_campaign):
    return make_campaign("old_school")


@pytest.fixture
def dorn(school, referee, player, client_for):
    response = client_for(referee).post(
        f"/api/v1/campaigns/{school.pk}/characters/",
        {"name": "Dorn", "owner": player.pk, "sheet": {"race": "dwarf", "age": 60, "level": 2}},
        format="json",
    )
    assert response.status_code == 201, response.content
    return Character.objects.get(pk=response.json()["id"])


def act(client, character, action, params):
    return client.post(
        f"/api/v1/characters/{character.pk}/actions/",
        {"action": action, "params": params},
        format="json",
    )


def test_referee_sees_the_project_tables_and_players_may_not(school, referee, player, client_for):
    url = f"/api/v1/campaigns/{school.pk}/tables/"
    tables = {t["key"]: t for t in client_for(referee).get(url).json()}
    assert set(tables) == {"critical_injuries", "diseases"}
    assert "Green River Fever" in tables["diseases"]["data"]
    assert tables["critical_injuries"]["edited"] is False
    assert client_for(player).get(url).status_code == 403


def test_an_edited_critical_table_is_the_one_rolled_on(school, dorn, referee, client_for):
    client = client_for(referee)
    table = [{"min": -1000, "max": None, "description": "Custom doom", "effect": None}]
    put = client.put(
        f"/api/v1/campaigns/{school.pk}/tables/critical_injuries/",
        {"data": table},
        format="json",
    )
    assert put.status_code == 200, put.content
    assert put.json()["edited"] is True
    response = act(client, dorn, "damage", {"amount": dorn.sheet["wounds"] + 2})
    assert response.status_code == 201, response.content
    body = response.json()
    assert "Custom doom" in body["summary"]
    assert any(r["expression"].startswith("1d10") for r in body["rolls"])  # OS-4

    reset = client.delete(f"/api/v1/campaigns/{school.pk}/tables/critical_injuries/")
    assert reset.json()["edited"] is False
    assert not CampaignTable.objects.filter(campaign=school).exists()


@pytest.mark.parametrize(
    "key,data",
    [
        ("critical_injuries", {"not": "a list"}),
        ("critical_injuries", [{"min": 5, "max": 2, "description": "backwards"}]),
        ("diseases", {"Pox": {"interval_minutes": 0}}),
        ("diseases", []),
    ],
)
def test_a_bad_table_is_a_400_and_changes_nothing(school, referee, client_for, key, data):
    response = client_for(referee).put(
        f"/api/v1/campaigns/{school.pk}/tables/{key}/", {"data": data}, format="json"
    )
    assert response.status_code == 400, response.content
    assert not CampaignTable.objects.filter(campaign=school).exists()


def test_unknown_table_is_404(school, referee, client_for):
    url = f"/api/v1/campaigns/{school.pk}/tables/scars/"
    assert client_for(referee).get(url).status_code == 404
    assert client_for(referee).put(url, {"data": []}, format="json").status_code == 404


def test_a_disease_from_the_campaign_library_can_be_contracted(school, dorn, referee, client_for):
    client = client_for(referee)
    diseases = client.get(f"/api/v1/campaigns/{school.pk}/tables/diseases/").json()["data"]
    diseases["Swamp Itch"] = {
        "incubation_minutes": 60,
        "interval_minutes": 60,
        "infection_minutes": 180,
        "effect": {"type": "ability_loss", "abilities": {"dexterity": 1}, "permanent": False},
    }
    assert (
        client.put(
            f"/api/v1/campaigns/{school.pk}/tables/diseases/", {"data": diseases}, format="json"
        ).status_code
        == 200
    )
    response = act(client, dorn, "contract_disease", {"disease": "Swamp Itch"})
    assert response.status_code == 201, response.content
    unknown = act(client, dorn, "contract_disease", {"disease": "Moon Rot"})
    assert unknown.status_code == 400
    assert Resolution.objects.filter(character=dorn).count() == 2


def test_player_cannot_take_referee_only_old_school_actions(dorn, player, client_for):
    response = act(client_for(player), dorn, "contract_disease", {"disease": "Green River Fever"})
    assert response.status_code == 403
    assert Resolution.objects.filter(character=dorn).count() == 1
