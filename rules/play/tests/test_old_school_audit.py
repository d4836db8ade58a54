"""The old_school rules audit of issue 13, each through the engine and the API.

* OS-P15 (with OS-2, OS-P2): maximum wounds never grow above their value before a
  Constitution loss when it recovers.
* OS-6, OS-P11: disease saves go on every interval while the infection time lasts, also
  when it is not a multiple of the interval (1000 minutes at 300: 4 saves).
* OS-1: ability scores of a new character run 3-18.
"""

from __future__ import annotations

import pytest

from characters.models import Character
from rules.engine.dice import Dice, ScriptedGenerator
from rules.engine.interface import RuleError
from rules.engine.rulesets.old_school.data import ABILITIES
from rules.engine.tests.test_old_school import OS, Table, context, make_sheet

PLAGUE = {
    "Slow Pox": {
        "incubation_minutes": 0,
        "interval_minutes": 300,
        "infection_minutes": 1000,
        "effect": {"type": "none"},
    }
}


def loose(sheet, action, params):
    """Resolve with plenty of 3s for whatever the rules roll (hours out cold, 1d3...)."""
    return OS.resolve(sheet, action, params, Dice(ScriptedGenerator([3] * 20)), context()).sheet


def rest_until_constitution(sheet, score):
    for _ in range(20):
        if sheet["constitution"] >= score:
            return sheet
        sheet["rest"]["last_day_rest_at"] = None  # a day later
        sheet = loose(sheet, "day_rest", {})
    raise AssertionError("Constitution never came back")


def test_max_wounds_come_back_to_their_value_before_the_loss_not_above():
    """Level 1, Con 9, 2/2 wounds; Con to 3 and back: 2 maximum, not 4 (OS-2, OS-P2, OS-P15)."""
    sheet = make_sheet(level=1, constitution=9, max_wounds=2)
    low = loose(sheet, "ability_loss", {"ability": "constitution", "amount": 6})
    assert (low["wounds"], low["max_wounds"]) == (-1, 1)  # OS-P2: never below 1
    assert low["wounds_withheld"] == 2
    back = rest_until_constitution(loose(low, "heal", {"amount": 10}), 9)
    assert back["max_wounds"] == 2
    assert back["wounds"] <= 2
    assert back["wounds_withheld"] == 0


def test_a_loss_without_the_floor_comes_back_whole():
    sheet = make_sheet(level=3, constitution=13, max_wounds=20)
    low = loose(sheet, "ability_loss", {"ability": "constitution", "amount": 5})  # +1 -> -1
    assert (low["wounds"], low["max_wounds"]) == (14, 14)
    back = rest_until_constitution(low, 13)
    assert back["max_wounds"] == 20


def test_disease_saves_cover_the_whole_infection_time():
    """1000 minutes at one save every 300: saves at 0, 300, 600 and 900 (OS-6, OS-P11)."""
    table = Table(make_sheet(), ScriptedGenerator([20] * 4), tables={"diseases": PLAGUE})
    table.act("contract_disease", {"disease": "Slow Pox", "hidden": False})
    table.advance(5000)
    assert [due for due, _ in table.applied("disease_save")] == [0, 300, 600, 900]
    assert table.sheet["diseases"] == []


@pytest.mark.parametrize("score", [0, 1, 2, 19])
@pytest.mark.parametrize("field", ["strength", "max_charisma"])
def test_a_new_score_outside_3_to_18_is_refused(field, score):
    with pytest.raises(RuleError, match="3 to 18|greater than the maximum of 18"):
        make_sheet(**{field: score})


@pytest.mark.parametrize("score", [3, 18])
def test_scores_3_and_18_are_accepted(score):
    sheet = make_sheet(**{ability: score for ability in ABILITIES})
    assert sheet["strength"] == score


# -- through the API ------------------------------------------------------------------------


@pytest.fixture
def school(make_campaign, referee):
    campaign = make_campaign("old_school")
    return campaign


def create(client, campaign, sheet):
    return client.post(
        f"/api/v1/campaigns/{campaign.pk}/characters/",
        {"name": "Vera", "sheet": sheet},
        format="json",
    )


def action(client, character_id, name, params):
    response = client.post(
        f"/api/v1/characters/{character_id}/actions/",
        {"action": name, "params": params},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_api_strength_2_is_a_400(school, referee, client_for):
    response = create(client_for(referee), school, {"strength": 2})
    assert response.status_code == 400, response.content
    assert "3 to 18" in str(response.json())
    assert not Character.objects.filter(campaign=school).exists()


def test_api_constitution_down_and_back_keeps_max_wounds(
    school, referee, client_for, scripted_dice
):
    client = client_for(referee)
    response = create(client, school, {"constitution": 9, "max_wounds": 2})
    assert response.status_code == 201, response.content
    vera = response.json()["id"]
    scripted_dice([3])  # hours out cold
    action(client, vera, "ability_loss", {"ability": "constitution", "amount": 6})
    sheet = Character.objects.get(pk=vera).sheet
    assert (sheet["wounds"], sheet["max_wounds"]) == (-1, 1)
    action(client, vera, "heal", {"amount": 10})
    sheet = Character.objects.get(pk=vera).sheet
    assert (sheet["wounds"], sheet["max_wounds"]) == (1, 1)
    # Six days of rest, the clock advanced between them, bring Constitution back.
    for _day in range(6):
        character = Character.objects.get(pk=vera)
        character.sheet["rest"]["last_day_rest_at"] = None
        Character.objects.filter(pk=vera).update(sheet=character.sheet)
        scripted_dice([1])
        action(client, vera, "day_rest", {})
    sheet = Character.objects.get(pk=vera).sheet
    assert sheet["constitution"] == 9
    assert (sheet["wounds"], sheet["max_wounds"]) == (2, 2)


def test_api_disease_at_1000_minutes_every_300_makes_4_saves(
    school, referee, client_for, scripted_dice
):
    client = client_for(referee)
    put = client.put(
        f"/api/v1/campaigns/{school.pk}/tables/diseases/", {"data": PLAGUE}, format="json"
    )
    assert put.status_code == 200, put.content
    vera = create(client, school, {}).json()["id"]
    body = action(client, vera, "contract_disease", {"disease": "Slow Pox", "hidden": False})
    assert "4 saves" in body["summary"]
    sheet = Character.objects.get(pk=vera).sheet
    assert sheet["diseases"][0]["saves_total"] == 4
