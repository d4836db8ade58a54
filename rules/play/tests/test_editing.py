"""Editing characters after creation (issue 13): each edit a logged resolution.

Access per role is in tests/test_access_matrix.py; here, what each edit does.
"""

from __future__ import annotations

import pytest

from campaigns.models import Membership
from characters.models import Character
from rules.play.models import Resolution, ResolutionKind
from rules.play.services import character_create


@pytest.fixture
def aldo(campaign, player) -> Character:
    membership = Membership.objects.get(campaign=campaign, user=player)
    return character_create(
        membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )


def url(character, what=""):
    return f"/api/v1/characters/{character.pk}/{what}"


def last_edit(character):
    return Resolution.objects.filter(character=character).order_by("-version").first()


def test_rename_is_logged_and_the_name_changes(aldo, player, client_for):
    response = client_for(player).patch(url(aldo), {"name": "  Aldo the Bold "}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["character"]["name"] == "Aldo the Bold"
    edit = last_edit(aldo)
    assert (edit.kind, edit.action, edit.params) == (
        ResolutionKind.EDIT,
        "rename",
        {"from": "Aldo", "to": "Aldo the Bold"},
    )
    assert edit.summary == "Aldo the Bold: renamed from Aldo."
    again = client_for(player).patch(url(aldo), {"name": "Aldo the Bold"}, format="json")
    assert again.status_code == 409
    assert client_for(player).patch(url(aldo), {"name": "   "}, format="json").status_code == 400


def test_hit_dice_follow_level_for_player_characters_not_npcs(campaign, aldo, referee, client_for):
    client = client_for(referee)
    response = client.post(url(aldo, "level-up/"))
    assert response.status_code == 200, response.content
    sheet = response.json()["character"]["sheet"]
    assert (sheet["level"], sheet["hit_dice"]) == (3, 3)  # ruling HD-1
    npc = character_create(
        membership=Membership.objects.get(campaign=campaign, user=referee),
        name="Ogre",
        sheet={"level": 2, "hit_dice": 6, "hp": 20},
    )
    sheet = client.post(url(npc, "level-up/")).json()["character"]["sheet"]
    assert (sheet["level"], sheet["hit_dice"]) == (3, 6)
    assert last_edit(npc).action == "level_up"


def test_old_school_level_up_brings_wounds(make_campaign, referee, client_for, scripted_dice):
    school = make_campaign("old_school")
    pell = character_create(
        membership=Membership.objects.get(campaign=school, user=referee),
        name="Pell",
        sheet={"constitution": 13, "max_wounds": 6},
    )
    scripted_dice([4])
    response = client_for(referee).post(url(pell, "level-up/"))
    assert response.status_code == 200, response.content
    sheet = response.json()["character"]["sheet"]
    assert (sheet["level"], sheet["wounds"], sheet["max_wounds"]) == (2, 11, 11)  # 4 + 1
    edit = last_edit(pell)
    assert edit.action == "level_up", edit.summary
    assert edit.rolls[0]["label"] == "wounds for the new level"  # OS-P18


def test_a_ruleset_without_levels_is_a_400(make_campaign, referee, client_for):
    deck = make_campaign("deckahedron")
    someone = character_create(
        membership=Membership.objects.get(campaign=deck, user=referee), name="Vex", sheet={}
    )
    response = client_for(referee).post(url(someone, "level-up/"))
    assert response.status_code == 400
    assert "no levels" in str(response.json())


def test_referee_correction_with_a_reason(aldo, referee, client_for):
    client = client_for(referee)
    ok = client.post(
        url(aldo, "correct/"), {"changes": {"hp": 7}, "reason": "miscounted"}, format="json"
    )
    assert ok.status_code == 200, ok.content
    aldo.refresh_from_db()
    assert aldo.sheet["hp"] == 7
    edit = last_edit(aldo)
    assert edit.params == {"changes": {"hp": 7}, "reason": "miscounted"}
    assert edit.summary == "Aldo: the referee corrected hp: miscounted"
    version = aldo.version
    for body in (
        {"changes": {"hp": -3}, "reason": "x"},  # the schema refuses it
        {"changes": {"nonsense": 1}, "reason": "x"},
        {"changes": {"hp": 3}, "reason": "  "},
        {"changes": {}, "reason": "x"},
    ):
        response = client.post(url(aldo, "correct/"), body, format="json")
        assert response.status_code == 400, body
    aldo.refresh_from_db()
    assert (aldo.version, aldo.sheet["hp"]) == (version, 7)


def test_a_retired_character_takes_no_actions_until_it_returns(aldo, player, client_for):
    client = client_for(player)
    assert client.post(url(aldo, "retire/"), {}, format="json").status_code == 200
    assert client.get(url(aldo)).json()["retired"] is True
    action = {"action": "damage", "params": {"amount": 1}}
    response = client.post(url(aldo, "actions/"), action, format="json")
    assert response.status_code == 409
    assert "retired" in response.json()["detail"]
    assert client.post(url(aldo, "retire/"), {}, format="json").status_code == 409
    back = client.post(url(aldo, "retire/"), {"retired": False}, format="json")
    assert back.status_code == 200
    assert client.post(url(aldo, "actions/"), action, format="json").status_code == 201
    assert [r.action for r in Resolution.objects.filter(character=aldo, kind="edit")] == [
        "return",
        "retire",
    ]


def test_delete_needs_the_name_and_removes_the_log(aldo, player, referee, client_for):
    client = client_for(referee)
    client_for(player).post(
        url(aldo, "actions/"), {"action": "damage", "params": {"amount": 1}}, format="json"
    )
    client.post(url(aldo, "undo/"))
    wrong = client.delete(url(aldo), {"confirm": "Ald"}, format="json")
    assert wrong.status_code == 400
    assert Character.objects.filter(pk=aldo.pk).exists()
    assert client.delete(url(aldo), {"confirm": "Aldo"}, format="json").status_code == 204
    assert not Character.objects.filter(pk=aldo.pk).exists()
    assert not Resolution.objects.filter(character_id=aldo.pk).exists()
