"""Editing characters after creation (issue 13): each edit a logged resolution.

Access per role is in tests/test_access_matrix.py; here, what each edit does.
"""

from __future__ import annotations

import pytest

from campaigns.models import Membership
from characters.models import Character
from rules.log.models import Resolution, ResolutionKind
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
    assert edit.outcome == {"changed": {"hp": {"from": 10, "to": 7}}}
    assert edit.summary == "Aldo: the referee corrected hp 10 -> 7: miscounted"
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


def test_a_correction_past_the_maximum_is_refused_and_changes_nothing(aldo, referee, client_for):
    """Issue 24: hp 999 for 2 hit dice (at most 12, ruling HD-P14) is a plain 400."""
    client = client_for(referee)
    version = aldo.version
    response = client.post(
        url(aldo, "correct/"), {"changes": {"hp": 999}, "reason": "typo"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"changes": ["hp 999 is above 12, the most 2 hit dice can roll"]}
    aldo.refresh_from_db()
    assert (aldo.version, aldo.sheet["hp"]) == (version, 10)
    # lowering the hit dice under the hp is out of bounds too
    response = client.post(
        url(aldo, "correct/"), {"changes": {"hit_dice": 1}, "reason": "npc"}, format="json"
    )
    assert response.status_code == 400 and "hp 10 is above 6" in str(response.json())


@pytest.mark.parametrize(
    ("ruleset", "sheet", "changes", "why"),
    [
        ("old_school", {"max_wounds": 8}, {"wounds": 9}, "wounds 9 is above the maximum 8"),
        ("old_school", {"max_wounds": 8}, {"state": "down"}, "the character is not down"),
        ("old_school", {}, {"strength": 17}, "strength 17 is above its maximum 10"),
        (
            "warband",
            {"warband": "Crows", "max_wounds": 2},
            {"wounds": 3},
            "wounds 3 is above the maximum 2",
        ),
        ("condition_monitor", {}, {"state": "dying"}, "dying_until is set exactly while"),
    ],
)
def test_every_ruleset_keeps_corrections_in_its_bounds(
    make_campaign, referee, player, client_for, ruleset, sheet, changes, why
):
    campaign = make_campaign(ruleset)
    membership = Membership.objects.get(campaign=campaign, user=player)
    character = character_create(membership=membership, name="Vel", sheet=sheet)
    before = (character.version, dict(character.sheet))
    response = client_for(referee).post(
        url(character, "correct/"), {"changes": changes, "reason": "test"}, format="json"
    )
    assert response.status_code == 400, response.content
    assert why in " ".join(response.json()["changes"])
    character.refresh_from_db()
    assert (character.version, character.sheet) == before


def test_a_correction_names_each_field_with_its_old_and_new_value(
    make_campaign, referee, player, client_for
):
    school = make_campaign("old_school")
    membership = Membership.objects.get(campaign=school, user=player)
    pell = character_create(membership=membership, name="Pell", sheet={"max_wounds": 8})
    response = client_for(referee).post(
        url(pell, "correct/"),
        {"changes": {"wounds": 1, "max_wounds": 6}, "reason": "old notes"},
        format="json",
    )
    assert response.status_code == 200, response.content
    entry = response.json()["resolution"]
    log = client_for(referee).get(url(pell, "resolutions/")).json()["results"]
    (body,) = [r for r in log if r["id"] == entry]
    assert body["summary"] == (
        "Pell: the referee corrected max_wounds 8 -> 6, wounds 8 -> 1: old notes"
    )
    assert body["outcome"]["changed"] == {
        "max_wounds": {"from": 8, "to": 6},
        "wounds": {"from": 8, "to": 1},
    }
    assert body["params"] == {"changes": {"wounds": 1, "max_wounds": 6}, "reason": "old notes"}
