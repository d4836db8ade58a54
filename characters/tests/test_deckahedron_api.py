"""The deckahedron ruleset over the REST API: hidden deck order, actions, bad input."""

from __future__ import annotations

import pytest

from characters.models import Character
from rules.log.models import Resolution

STAMINA = {str(n) for n in range(11, 21)}


@pytest.fixture
def deck_campaign(make_campaign):
    return make_campaign("deckahedron")


@pytest.fixture
def cael(deck_campaign, player, client_for):
    response = client_for(player).post(
        f"/api/v1/campaigns/{deck_campaign.pk}/characters/",
        {"name": "Cael", "sheet": {"strength": 3, "dexterity": 2, "intelligence": 1}},
        format="json",
    )
    assert response.status_code == 201, response.content
    return Character.objects.get(pk=response.json()["id"])


def test_a_new_character_starts_with_twenty_shuffled_cards_and_the_order_stays_hidden(
    cael, player, client_for
):
    stored = cael.sheet["deck"]
    assert sorted(stored, key=int) == [str(n) for n in range(1, 21)]
    body = client_for(player).get(f"/api/v1/characters/{cael.pk}/").json()
    assert body["sheet"]["deck"] == [str(n) for n in range(1, 21)]  # sorted, not as stored
    assert body["sheet"]["deck_size"] == 20
    assert body["sheet"]["discard"] == [] and body["sheet"]["exhaustion"] == []
    (created,) = Resolution.objects.filter(character=cael)
    assert created.rolls[0]["expression"] == "shuffle(20)"  # recorded like any roll


def test_players_never_see_the_shuffle_draws_but_the_referee_does(
    cael, player, referee, client_for
):
    url = f"/api/v1/characters/{cael.pk}/resolutions/"
    assert client_for(player).get(url).json()["results"][0]["rolls"] == []
    referee_rolls = client_for(referee).get(url).json()["results"][0]["rolls"]
    assert [r["expression"] for r in referee_rolls] == ["shuffle(20)"]


def test_flip_reads_the_top_cards_at_the_attribute_rank(cael, player, client_for):
    top_two = cael.sheet["deck"][:2]
    response = client_for(player).post(
        f"/api/v1/characters/{cael.pk}/actions/",
        {"action": "flip", "params": {"attribute": "strength", "count": 2}},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert [card["card"] for card in body["outcome"]["cards"]] == top_two
    assert body["sheet"]["deck_size"] == 18
    assert body["sheet"]["deck"] == sorted(body["sheet"]["deck"], key=int)
    cael.refresh_from_db()
    assert cael.sheet["discard"][: len(top_two)] in (top_two, top_two[::-1])


def test_lose_stamina_moves_stamina_cards_to_exhaustion(cael, player, client_for):
    response = client_for(player).post(
        f"/api/v1/characters/{cael.pk}/actions/",
        {"action": "lose_stamina", "params": {"amount": 3}},
        format="json",
    )
    assert response.status_code == 201, response.content
    exhaustion = response.json()["sheet"]["exhaustion"]
    assert len(exhaustion) == 3 and set(exhaustion) <= STAMINA


@pytest.mark.parametrize(
    "body",
    [
        {"action": "flip", "params": {"attribute": "charm"}},
        {"action": "flip", "params": {"attribute": "strength", "count": 0}},
        {"action": "flip", "params": {"attribute": "strength", "count": "two"}},
        {"action": "flip", "params": {}},
        {"action": "lose_stamina", "params": {"amount": -1}},
        {"action": "lose_stamina", "params": {"amount": 10**9}},
        {"action": "take_breather", "params": {"attribute": "strength"}},
        {"action": "shuffle_everything", "params": {}},
        {"action": "rest", "params": {"hours": 8}},
        {"action": "flip", "params": ["strength"]},
    ],
)
def test_bad_input_is_a_400_and_changes_nothing(cael, player, client_for, body):
    before = Character.objects.get(pk=cael.pk)
    response = client_for(player).post(
        f"/api/v1/characters/{cael.pk}/actions/", body, format="json"
    )
    assert response.status_code == 400, response.content
    after = Character.objects.get(pk=cael.pk)
    assert (after.sheet, after.version) == (before.sheet, before.version)
    assert Resolution.objects.filter(character=cael).count() == 1


def test_an_incapacitated_character_gets_409_for_other_actions(cael, player, referee, client_for):
    # Three wounds: the third incapacitates (DK-7); lose every stamina card first is not needed.
    client = client_for(player)
    url = f"/api/v1/characters/{cael.pk}/actions/"
    for _ in range(3):
        response = client.post(url, {"action": "take_wound", "params": {}}, format="json")
        assert response.status_code == 201, response.content
        pending = response.json()["pending_choice"]
        assert pending is None
    cael.refresh_from_db()
    assert cael.sheet["incapacitated"] is True
    version = cael.version
    blocked = client.post(
        url, {"action": "flip", "params": {"attribute": "strength"}}, format="json"
    )
    assert blocked.status_code == 409
    assert "incapacitated" in blocked.json()["detail"]
    cael.refresh_from_db()
    assert cael.version == version
    # Only the referee may clear it (DK-9).
    denied = client.post(url, {"action": "clear_incapacitation", "params": {}}, format="json")
    assert denied.status_code == 403
    cleared = client_for(referee).post(
        url, {"action": "clear_incapacitation", "params": {}}, format="json"
    )
    assert cleared.status_code == 201, cleared.content
    assert cleared.json()["sheet"]["incapacitated"] is False
