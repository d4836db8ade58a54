"""The characters API (API.md): the party list, creating characters, one sheet."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Character
from rules.engine.registry import get_ruleset, ruleset_keys
from rules.log.models import Resolution, ResolutionKind
from rules.play.services import resolution_answer_choice, resolution_create_action

pytestmark = pytest.mark.django_db

CHARACTER_FIELDS = {
    "id",
    "name",
    "campaign",
    "owner",
    "ruleset",
    "status",
    "sheet",
    "version",
    "pending_choice",
    "retired",
}
PARTY_FIELDS = {
    "id",
    "name",
    "owner",
    "owner_name",
    "status",
    "sheet",
    "version",
    "pending_choice",
    "ruleset",  # what the sheet's model is (issue 27: HitDicePartyMember...)
}


def party_url(campaign) -> str:
    return reverse("api-campaign-characters", kwargs={"campaign_id": campaign.pk})


def detail_url(character) -> str:
    return reverse("api-character", kwargs={"character_id": character.pk})


def create(client, campaign, **body):
    return client.post(party_url(campaign), body, format="json")


# -- create ----------------------------------------------------------------------------
def test_player_creates_their_own_character(client_for, campaign, player) -> None:
    response = create(
        client_for(player), campaign, name=" Aldo ", sheet={"level": 2, "hit_dice": 2, "hp": 9}
    )
    assert response.status_code == 201
    aldo = Character.objects.get()
    body = response.json()
    assert set(body) == CHARACTER_FIELDS
    assert body["id"] == aldo.pk
    assert body["name"] == "Aldo"
    assert body["campaign"] == campaign.pk
    assert body["owner"] == player.pk
    assert body["ruleset"] == "hit_dice"
    assert body["status"] == "standing"
    assert body["version"] == 1
    assert body["pending_choice"] is None
    assert body["sheet"] == {
        **get_ruleset("hit_dice").default_sheet(),
        "level": 2,
        "hit_dice": 2,
        "hp": 9,
    }
    # its creation is its first resolution
    (created,) = Resolution.objects.filter(character=aldo)
    assert created.kind == ResolutionKind.CREATE
    assert created.actor == player


def test_player_naming_themselves_as_owner_is_fine(client_for, campaign, player) -> None:
    response = create(client_for(player), campaign, name="Aldo", owner=player.pk)
    assert response.status_code == 201
    assert response.json()["owner"] == player.pk


@pytest.mark.parametrize("ruleset", ruleset_keys())
def test_a_character_with_the_default_sheet_in_every_ruleset(
    client_for, make_campaign, player, ruleset: str
) -> None:
    campaign = make_campaign(ruleset)
    initial = dict(get_ruleset(ruleset).example_initial)
    body = {"name": "Plain", **({"sheet": initial} if initial else {})}
    response = create(client_for(player), campaign, **body)
    assert response.status_code == 201, response.content
    assert response.json()["ruleset"] == ruleset
    character = Character.objects.get()
    assert response.json()["sheet"] == get_ruleset(ruleset).public_sheet(character.sheet)


def test_referee_creates_a_character_for_a_player(client_for, campaign, referee, player) -> None:
    response = create(client_for(referee), campaign, name="Given", owner=player.pk)
    assert response.status_code == 201
    assert response.json()["owner"] == player.pk
    assert Character.objects.get().owner == player
    # the player sees it in full: it is theirs
    assert client_for(player).get(detail_url(Character.objects.get())).status_code == 200


def test_referee_creates_an_npc_for_themselves(client_for, campaign, referee) -> None:
    response = create(client_for(referee), campaign, name="Goblin")
    assert response.status_code == 201
    assert response.json()["owner"] == referee.pk


def test_player_giving_someone_else_as_owner_is_400(
    client_for, campaign, player, other_player
) -> None:
    response = create(client_for(player), campaign, name="Sneaky", owner=other_player.pk)
    assert response.status_code == 400
    assert "owner" in response.json()
    assert not Character.objects.exists()
    assert not Resolution.objects.exists()


@pytest.mark.parametrize("owner", ["outsider", 999999, 2**63 - 1])
def test_referee_giving_a_non_member_as_owner_is_400(
    client_for, campaign, referee, outsider, owner
) -> None:
    owner_id = outsider.pk if owner == "outsider" else owner
    response = create(client_for(referee), campaign, name="Nobody's", owner=owner_id)
    assert response.status_code == 400
    assert "owner" in response.json()
    assert not Character.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {"name": "Aldo", "sheet": {"hp": -3}},
        {"name": "Aldo", "sheet": {"hp": "ten"}},
        {"name": "Aldo", "sheet": {"level": 10**9}},
        {"name": "Aldo", "sheet": {"no_such_field": 1}},
        {"name": "Aldo", "sheet": {"state": "flying"}},
        {"name": "Aldo", "sheet": [1, 2]},
        {"name": "Aldo", "sheet": "full"},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 121},
        {"name": "nul\x00"},
        {},
        {"name": "Aldo", "owner": 0},
        {"name": "Aldo", "owner": "me"},
        {"name": "Aldo", "owner": 2**63},
    ],
    ids=[
        "negative-hp",
        "string-hp",
        "absurd-level",
        "unknown-field",
        "bad-enum",
        "sheet-list",
        "sheet-string",
        "empty-name",
        "blank-name",
        "long-name",
        "nul-name",
        "no-name",
        "owner-zero",
        "owner-string",
        "owner-huge",
    ],
)
def test_invalid_character_is_400_and_nothing_is_created(
    client_for, campaign, player, body
) -> None:
    response = create(client_for(player), campaign, **body)
    assert response.status_code == 400
    assert not Character.objects.exists()
    assert not Resolution.objects.exists()
    campaign.refresh_from_db()
    assert campaign.dice_counter == 0


def test_a_nul_character_in_sheet_text_is_400_on_every_database(
    client_for, campaign, referee
) -> None:
    """PostgreSQL cannot store U+0000 in JSON; it must not become a 500."""
    wound = {
        "id": 1,
        "kind": "minor",
        "description": "cut\x00",
        "treated": False,
        "ability_losses": {},
        "worsens_every": None,
        "worsen_dc": 20,
        "until_long_rest": False,
        "expired": False,
        "cause": "",
        "received_at": 0,
    }
    response = create(client_for(referee), campaign, name="Nul", sheet={"wounds": [wound]})
    assert response.status_code == 400
    assert "NUL" in response.json()["detail"]
    assert not Character.objects.exists()


# -- the party list --------------------------------------------------------------------
@pytest.fixture
def party(client_for, campaign, player, other_player, referee):
    aldo = create(client_for(player), campaign, name="Aldo", sheet={"hp": 5}).json()
    bo = create(client_for(other_player), campaign, name="Bo", sheet={"hp": 6}).json()
    npc = create(client_for(referee), campaign, name="Goblin", sheet={"hp": 3}).json()
    return {"Aldo": aldo, "Bo": bo, "Goblin": npc}


def test_party_list_as_a_player_hides_other_sheets(client_for, campaign, player, party) -> None:
    response = client_for(player).get(party_url(campaign))
    assert response.status_code == 200
    rows = {row["name"]: row for row in response.json()}
    assert list(rows) == ["Aldo", "Bo", "Goblin"]  # by name
    assert all(set(row) == PARTY_FIELDS for row in rows.values())
    assert rows["Aldo"]["sheet"]["hp"] == 5
    assert rows["Aldo"]["version"] == 1
    assert rows["Aldo"]["owner_name"] == "player"
    for other in ("Bo", "Goblin"):
        assert rows[other]["sheet"] is None
        assert rows[other]["version"] is None
        assert rows[other]["pending_choice"] is None
        assert rows[other]["status"] == "standing"
    assert rows["Bo"]["owner_name"] == "other_player"


def test_party_list_as_referee_shows_every_sheet(client_for, campaign, referee, party) -> None:
    rows = {row["name"]: row for row in client_for(referee).get(party_url(campaign)).json()}
    assert {name: row["sheet"]["hp"] for name, row in rows.items()} == {
        "Aldo": 5,
        "Bo": 6,
        "Goblin": 3,
    }


def test_party_list_shows_a_dead_character_as_dead(
    client_for, campaign, player, other_player, party, scripted_dice
) -> None:
    aldo = Character.objects.get(name="Aldo")
    scripted_dice([1, 20])  # strength save fails, will save passes: the choice (HD-4)
    resolution_create_action(
        character_id=aldo.pk, actor=player, by_referee=False, action="damage", params={"amount": 7}
    )
    aldo.refresh_from_db()
    assert aldo.pending_choice is not None
    resolution_answer_choice(
        character_id=aldo.pk,
        actor=player,
        by_referee=False,
        choice_id=aldo.pending_choice["id"],
        option="death",
    )
    rows = {row["name"]: row for row in client_for(other_player).get(party_url(campaign)).json()}
    assert rows["Aldo"]["status"] == "dead"
    assert rows["Aldo"]["sheet"] is None


# -- one character ---------------------------------------------------------------------
def test_detail_of_my_character(client_for, player, party) -> None:
    aldo = Character.objects.get(name="Aldo")
    response = client_for(player).get(detail_url(aldo))
    assert response.status_code == 200
    assert response.json() == party["Aldo"]


def test_detail_with_a_pending_choice(client_for, player, party, scripted_dice) -> None:
    aldo = Character.objects.get(name="Aldo")
    # 7 damage on 5 hp: overflow 2, DC 22; strength save 1+10 fails, will save 20+10
    # passes: the player chooses death or a major wound (rulings HD-4, G-3).
    scripted_dice([1, 20])
    resolution_create_action(
        character_id=aldo.pk, actor=player, by_referee=False, action="damage", params={"amount": 7}
    )
    choice = client_for(player).get(detail_url(aldo)).json()["pending_choice"]
    aldo.refresh_from_db()
    assert aldo.pending_choice is not None
    assert choice == {
        "id": aldo.pending_choice["id"],
        "kind": aldo.pending_choice["kind"],
        "prompt": aldo.pending_choice["prompt"],
        "options": [
            {"key": "major_wound", "label": aldo.pending_choice["options"][0]["label"]},
            {
                "key": "death",
                "label": "Die outright",
                "confirm": "Die outright? Only the referee's undo brings the character back.",
            },
        ],
        "who": "owner",
    }
    assert "state" not in choice  # the engine's resume state stays on the server
    assert "DC 22" in choice["prompt"]


def test_detail_hides_the_deckahedron_deck_order(client_for, make_campaign, player) -> None:
    campaign = make_campaign("deckahedron")
    created = create(client_for(player), campaign, name="Flipper").json()
    character = Character.objects.get(pk=created["id"])
    shown = client_for(player).get(detail_url(character)).json()["sheet"]
    assert shown == get_ruleset("deckahedron").public_sheet(character.sheet)
