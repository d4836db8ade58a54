"""POST characters/{id}/odds/: the exact odds of an action; changes nothing, rolls nothing."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.log.models import Resolution
from rules.play.services import character_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def aldo(campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    return character_create(
        membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 5}
    )


def odds(client, character, body):
    return client.post(
        reverse("api-odds", kwargs={"character_id": character.pk}), body, format="json"
    )


def world(character) -> tuple:
    character.refresh_from_db()
    campaign = Campaign.objects.get(pk=character.campaign_id)
    return (
        character.sheet,
        character.version,
        campaign.dice_counter,
        Resolution.objects.filter(character=character).count(),
    )


def test_the_odds_of_an_overflow(client_for, player, aldo):
    before = world(aldo)

    response = odds(client_for(player), aldo, {"action": "damage", "params": {"amount": 8}})

    assert response.status_code == 200
    body = response.json()
    assert body["action"] == "damage"
    assert [o["key"] for o in body["outcomes"]] == [
        "strength:pass,will:pass",
        "strength:pass,will:fail",
        "strength:fail,will:pass",
        "strength:fail,will:fail",
    ]
    assert [o["fraction"] for o in body["outcomes"]] == ["4/25", "6/25", "6/25", "9/25"]
    assert sum(Fraction(o["fraction"]) for o in body["outcomes"]) == 1
    assert body["notes"]
    assert world(aldo) == before  # nothing changed, no die rolled


@pytest.mark.parametrize(
    "body",
    [
        {"action": "damage", "params": {"amount": 0}},
        {"action": "damage", "params": {"amount": "3"}},
        {"action": "damage", "params": {}},
        {"action": "damage", "params": {"amount": 3, "extra": 1}},
        {"action": "fly", "params": {}},
        {"action": "treat_wound", "params": {"wound": 7}},
        {"params": {"amount": 3}},
    ],
)
def test_bad_params_are_400_like_the_action(client_for, player, aldo, body):
    before = world(aldo)
    response = odds(client_for(player), aldo, body)
    assert response.status_code == 400
    assert world(aldo) == before


def test_a_player_may_not_ask_the_odds_of_a_referee_action(client_for, player, referee, aldo):
    body = {"action": "bypass", "params": {"damage": 2, "attacker_level": 1}}
    assert odds(client_for(player), aldo, body).status_code == 403
    assert odds(client_for(referee), aldo, body).status_code == 200


def test_a_dead_character_has_no_odds_to_give(client_for, player, aldo):
    Character.objects.filter(pk=aldo.pk).update(sheet={**aldo.sheet, "state": "dead"})
    response = odds(client_for(player), aldo, {"action": "damage", "params": {"amount": 3}})
    assert response.status_code == 409


def test_a_deckahedron_flip_answers_from_the_deck_composition(make_campaign, player, client_for):
    campaign = make_campaign("deckahedron")
    membership = Membership.objects.get(campaign=campaign, user=player)
    dora = character_create(membership=membership, name="Dora", sheet={})
    before = world(dora)
    response = odds(
        client_for(player), dora, {"action": "flip", "params": {"attribute": "strength"}}
    )
    assert response.status_code == 200
    # Anchor (rank 1): vv on 2 of the 20 cards, whatever their order.
    assert {o["key"]: o["fraction"] for o in response.json()["outcomes"]}["vv"] == "1/10"
    assert world(dora) == before


def test_odds_not_computed_yet_are_a_400_that_says_so(make_campaign, referee, client_for):
    campaign = make_campaign("old_school")
    membership = Membership.objects.get(campaign=campaign, user=referee)
    ossie = character_create(membership=membership, name="Ossie", sheet={})
    drug = {"save": False, "effect": {"type": "damage", "dice": "999d999"}}
    response = odds(client_for(referee), ossie, {"action": "poison", "params": drug})
    assert response.status_code == 400
    assert "not computed yet" in response.json()["detail"]


def test_the_odds_of_magical_aging(make_campaign, referee, client_for):
    """Ruling OS-5: two saves at -4 (ages 60, 61) vs paralysis 14, d20 >= 18 passes."""
    campaign = make_campaign("old_school")
    membership = Membership.objects.get(campaign=campaign, user=referee)
    ossie = character_create(membership=membership, name="Ossie", sheet={"age": 59})
    before = world(ossie)
    response = odds(client_for(referee), ossie, {"action": "magical_aging", "params": {"years": 2}})
    assert response.status_code == 200
    fractions = {o["key"]: o["fraction"] for o in response.json()["outcomes"]}
    assert fractions == {"lost:0": "9/400", "lost:1": "51/200", "lost:2": "289/400"}
    assert world(ossie) == before


def test_odds_of_death_count_a_critical_injury_that_takes_the_last_strength(
    make_campaign, referee, client_for
):
    """Project ruling OS-P19 (issue 26): Strength 1 at 3/3 wounds, 4 damage: dead 1/5."""
    campaign = make_campaign("old_school")
    membership = Membership.objects.get(campaign=campaign, user=referee)
    ossie = character_create(membership=membership, name="Ossie", sheet={"max_wounds": 3})
    Character.objects.filter(pk=ossie.pk).update(sheet={**ossie.sheet, "strength": 1})
    response = odds(client_for(referee), ossie, {"action": "damage", "params": {"amount": 4}})
    assert response.status_code == 200
    fractions = {o["key"]: o["fraction"] for o in response.json()["outcomes"]}
    assert fractions["dead"] == "1/5"
