"""Who may be attacked in melee and who may disengage, on the battle board and in the
API (project ruling WB-P11, issue 26): a plain refusal that says the rule, nothing
changed, and the state text that says both rules."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Character
from rules.battles.services import battle_begin
from rules.log.models import Resolution

HTMX = {"HTTP_HX_REQUEST": "true"}

pytestmark = pytest.mark.django_db


@pytest.fixture
def skirmish(make_campaign):
    return make_campaign("warband")


@pytest.fixture
def units(skirmish, player, other_player, make_unit):
    return {
        "red": make_unit(skirmish, player, "Red Spear", "Red", injury="stunned", wounds=0),
        "red2": make_unit(skirmish, player, "Red Bow", "Red", injury="dazed", wounds=0),
        "blue": make_unit(skirmish, other_player, "Blue Blade", "Blue"),
    }


def unit_url(campaign, character, action):
    return reverse(
        "battle-unit-action",
        kwargs={"campaign_id": campaign.pk, "character_id": character.pk, "action": action},
    )


def world():
    return (
        list(Character.objects.order_by("pk").values_list("pk", "sheet", "version")),
        list(Resolution.objects.order_by("pk").values_list("pk", flat=True)),
    )


def test_the_board_refuses_melee_on_a_stunned_unit_with_another_target(
    skirmish, units, web, referee
):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    client = web(referee)
    page = client.get(reverse("battle", kwargs={"campaign_id": skirmish.pk})).content.decode()
    assert "An enemy in melee may attack it only if it has no other target" in page
    assert "may use it to disengage from melee only if every enemy" in page
    assert 'name="p.attacker_has_other_target"' in page
    before = world()
    data = {"p.attack_roll": "12", "p.attack": "melee", "p.attacker_has_other_target": "on"}
    response = client.post(unit_url(skirmish, units["red"], "injury_check"), data, **HTMX)
    assert response.status_code == 409
    assert (
        "A stunned unit cannot be attacked in melee while the attacker has another target"
        in response.content.decode()
    )
    assert world() == before
    data.pop("p.attacker_has_other_target")
    response = client.post(unit_url(skirmish, units["red"], "injury_check"), data, **HTMX)
    assert response.status_code == 200
    assert Character.objects.get(pk=units["red"].pk).sheet["injury"] == "incapacitated"


def test_the_board_lets_a_dazed_unit_disengage_only_under_the_rule(skirmish, units, web, referee):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    client = web(referee)
    before = world()
    response = client.post(unit_url(skirmish, units["red2"], "disengage"), {}, **HTMX)
    assert response.status_code == 409
    assert "A dazed unit may disengage only if every enemy" in response.content.decode()
    assert world() == before
    data = {"p.enemies_have_other_targets": "on"}
    response = client.post(unit_url(skirmish, units["red2"], "disengage"), data, **HTMX)
    assert response.status_code == 200
    assert "disengage from the melee" in response.content.decode()


def test_the_api_refuses_in_words(skirmish, units, client_for, referee):
    client = client_for(referee)
    before = world()
    response = client.post(
        f"/api/v1/characters/{units['red'].pk}/actions/",
        {
            "action": "injury_check",
            "params": {"attack_roll": 9, "attack": "melee", "attacker_has_other_target": True},
        },
        format="json",
    )
    assert response.status_code == 409
    assert "A stunned unit cannot be attacked in melee" in response.json()["detail"]
    response = client.post(
        f"/api/v1/characters/{units['red2'].pk}/actions/",
        {"action": "disengage", "params": {"enemies_have_other_targets": False}},
        format="json",
    )
    assert response.status_code == 409
    assert "A dazed unit may disengage only if" in response.json()["detail"]
    assert world() == before
