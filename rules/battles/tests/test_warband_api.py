"""warband over the API: actions with bad input, the Scars table, and battles (WB-1..WB-6).

Battles: start, phase by phase through whole turns of a three-warband battle with the
recoveries logged as each unit's resolutions, rout thresholds, the end with the units
due a Scars roll; 404 on other rulesets and when no battle runs; 400/409 on bad calls,
each leaving everything as it was.
"""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.battles.models import Battle
from rules.log.models import CampaignTable, Resolution, ResolutionKind
from rules.play.services import character_create


@pytest.fixture
def skirmish(make_campaign):
    return make_campaign("warband")


def unit(campaign, user, name, warband, **fields):
    membership = Membership.objects.get(campaign=campaign, user=user)
    return character_create(membership=membership, name=name, sheet={"warband": warband, **fields})


@pytest.fixture
def bands(skirmish, referee, player, other_player, make_unit):
    """Red (the player's: a hero and two), Blue (the other player's: three), Grey (NPCs)."""
    unit = make_unit
    return {
        "red": [
            unit(skirmish, player, "Red Hero", "Red", max_wounds=3),
            unit(skirmish, player, "Red Archer", "Red"),
            unit(skirmish, player, "Red Spear", "Red"),
        ],
        "blue": [unit(skirmish, other_player, f"Blue {n}", "Blue") for n in range(1, 4)],
        "grey": [unit(skirmish, referee, f"Grey {n}", "Grey") for n in range(1, 3)],
    }


def url(campaign, tail=""):
    return f"/api/v1/campaigns/{campaign.pk}/battle/{tail}"


def act(client, character, action, params):
    return client.post(
        f"/api/v1/characters/{character.pk}/actions/",
        {"action": action, "params": params},
        format="json",
    )


def world() -> tuple[Any, ...]:
    """Everything a battle call or an action could change."""
    return (
        list(Character.objects.order_by("pk").values_list("pk", "sheet", "version")),
        list(Resolution.objects.order_by("pk").values_list("pk", flat=True)),
        list(
            Battle.objects.order_by("pk").values_list("pk", "turn", "active", "phase", "ended_at")
        ),
        list(Campaign.objects.order_by("pk").values_list("pk", "options", "dice_counter")),
        list(CampaignTable.objects.order_by("pk").values_list("pk", "data")),
    )


def injuries(characters):
    return [Character.objects.get(pk=c.pk).sheet["injury"] for c in characters]


def hurt(client, character, attack_roll, attack="melee"):
    response = act(
        client, character, "injury_check", {"attack_roll": attack_roll, "attack": attack}
    )
    assert response.status_code == 201, response.content
    return response.json()


# -- actions -----------------------------------------------------------------------------------


def test_injury_check_takes_the_tables_d20_and_rolls_nothing(skirmish, bands, player, client_for):
    archer = bands["red"][1]
    counter = Campaign.objects.get(pk=skirmish.pk).dice_counter
    body = hurt(client_for(player), archer, 16, "ranged")
    assert body["rolls"] == []
    assert body["params"] == {"attack_roll": 16, "attack": "ranged"}
    assert body["sheet"]["injury"] == "stunned"
    assert body["sheet"]["injury_means"].startswith("Stunned")
    assert body["summary"].startswith("Red Archer: Ranged injury check on 16: stunned")
    assert Campaign.objects.get(pk=skirmish.pk).dice_counter == counter


@pytest.mark.parametrize(
    ("action", "params", "field"),
    [
        ("injury_check", {"attack_roll": 0, "attack": "melee"}, "attack_roll"),
        ("injury_check", {"attack_roll": 21, "attack": "melee"}, "attack_roll"),
        ("injury_check", {"attack_roll": 10, "attack": "thrown"}, "attack"),
        ("injury_check", {"attack_roll": "ten", "attack": "melee"}, "attack_roll"),
        ("injury_check", {"attack": "melee"}, "attack_roll"),
        ("fall", {"height_inches": -1}, "height_inches"),
        ("fall", {"height_inches": "high"}, "height_inches"),
        ("ledge_check", {"drop_inches": 1}, "drop_inches"),
        ("injury_roll", {"modifiers": 1.5}, "modifiers"),
    ],
)
def test_bad_action_input_is_a_400_and_changes_nothing(
    skirmish, bands, referee, client_for, action, params, field
):
    before = world()
    response = act(client_for(referee), bands["red"][0], action, params)
    assert response.status_code == 400, response.content
    assert field in response.json()["detail"]
    assert world() == before


def test_ledge_check_for_a_unit_that_is_not_dazed_or_stunned_is_a_409(
    skirmish, bands, player, client_for
):
    before = world()
    response = act(client_for(player), bands["red"][1], "ledge_check", {"drop_inches": 3})
    assert response.status_code == 409
    assert "Only a dazed or stunned unit" in response.json()["detail"]
    assert world() == before


def test_a_ledge_check_that_fails_falls_in_one_resolution(
    skirmish, bands, player, client_for, scripted_dice
):
    client = client_for(player)
    archer = bands["red"][1]
    hurt(client, archer, 3)  # dazed
    scripted_dice([9, 16])  # agility 9 vs 10 fails; the 4" fall rolls 16 + 4
    response = act(client, archer, "ledge_check", {"drop_inches": 4})
    assert response.status_code == 201, response.content
    body = response.json()
    assert [(r["expression"], r["dice"]) for r in body["rolls"]] == [
        ("1d20", [9]),
        ("1d20+4", [16]),
    ]
    assert body["sheet"]["injury"] == "incapacitated"


def test_the_scars_table_ships_empty_and_rolling_on_it_is_a_409(
    skirmish, bands, referee, client_for
):
    client = client_for(referee)
    spear = bands["red"][2]
    hurt(client, spear, 19)  # incapacitated
    tables = client.get(f"/api/v1/campaigns/{skirmish.pk}/tables/").json()
    assert [(t["key"], t["data"]) for t in tables] == [("scars", {"dice": "1d20", "rows": []})]
    before = world()
    response = act(client, spear, "roll_scars", {})
    assert response.status_code == 409
    assert "Scars table is empty: the referee must fill it in" in response.json()["detail"]
    assert world() == before


def test_an_edited_scars_table_is_rolled_on(skirmish, bands, referee, player, client_for):
    client = client_for(referee)
    table_url = f"/api/v1/campaigns/{skirmish.pk}/tables/scars/"
    bad = {"dice": "1d6", "rows": [{"min": 1, "max": 5, "scar": "Scar"}]}
    before = world()
    refused = client.put(table_url, {"data": bad}, format="json")
    assert refused.status_code == 400
    assert "can roll 6, which no row covers" in refused.json()["detail"]
    assert world() == before
    good = {"dice": "1d6", "rows": [{"min": 1, "max": 6, "scar": "Lost an ear"}]}
    assert client.put(table_url, {"data": good}, format="json").status_code == 200
    spear = bands["red"][2]
    hurt(client, spear, 20)
    assert act(client_for(player), spear, "roll_scars", {}).status_code == 403  # referee's
    response = act(client, spear, "roll_scars", {})
    assert response.status_code == 201, response.content
    assert response.json()["sheet"]["scars"] == ["Lost an ear"]
    assert response.json()["sheet"]["injury"] == "none"


# -- battles -----------------------------------------------------------------------------------


def test_a_battle_starts_on_turn_one_in_the_first_warbands_upkeep(
    skirmish, bands, referee, client_for
):
    response = client_for(referee).post(url(skirmish), {"warbands": ["Blue", "Red"]}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["turn"], body["active"], body["active_index"], body["phase"]) == (
        1,
        "Blue",
        0,
        "upkeep",
    )
    assert body["phases"] == ["upkeep", "move", "ranged", "melee", "end"]
    assert [
        (w["name"], w["units"], w["incapacitated"], w["rout_threshold"], w["rout_checks_due"])
        for w in body["warbands"]
    ] == [("Blue", 3, 0, 2, False), ("Red", 3, 0, 2, False)]
    assert body["ended_at"] is None


def test_players_see_the_battle_and_their_own_units_wounds_only(
    skirmish, bands, referee, player, client_for
):
    client_for(referee).post(url(skirmish), {"warbands": ["Red", "Blue"]}, format="json")
    response = client_for(player).get(url(skirmish))
    assert response.status_code == 200
    red, blue = response.json()["warbands"]
    assert [(m["name"], m["wounds"], m["max_wounds"]) for m in red["members"]] == [
        ("Red Hero", 3, 3),
        ("Red Archer", 1, 1),
        ("Red Spear", 1, 1),
    ]
    assert {(m["injury"], m["wounds"]) for m in blue["members"]} == {("none", None)}
    referee_view = client_for(referee).get(url(skirmish)).json()
    assert referee_view["warbands"][1]["members"][0]["wounds"] == 1


def test_recovery_across_whole_turns_of_a_three_warband_battle(
    skirmish, bands, referee, client_for
):
    client = client_for(referee)
    assert (
        client.post(url(skirmish), {"warbands": ["Red", "Blue", "Grey"]}, format="json").status_code
        == 201
    )
    red_archer, blue_one, grey_one = bands["red"][1], bands["blue"][0], bands["grey"][0]
    hurt(client, red_archer, 16)  # stunned, in Red's own upkeep
    hurt(client, blue_one, 15)  # stunned
    hurt(client, grey_one, 3)  # dazed
    seen = []
    for _ in range(3 * 5 * 2):  # two whole turns of three warbands with five phases
        body = client.post(url(skirmish, "next/")).json()
        seen.append(
            (
                body["turn"],
                body["active"],
                body["phase"],
                *injuries([red_archer, blue_one, grey_one]),
            )
        )
    assert seen[3] == (1, "Red", "end", "stunned", "stunned", "dazed")
    # Leaving Red's end recovers Red's staggered (none); Blue's upkeep recovers Blue.
    assert seen[4] == (1, "Blue", "upkeep", "stunned", "dazed", "dazed")
    assert seen[9] == (1, "Grey", "upkeep", "stunned", "dazed", "staggered")
    assert seen[13] == (1, "Grey", "end", "stunned", "dazed", "staggered")
    assert seen[14] == (2, "Red", "upkeep", "dazed", "dazed", "none")
    assert seen[19] == (2, "Blue", "upkeep", "dazed", "staggered", "none")
    assert seen[24] == (2, "Grey", "upkeep", "dazed", "none", "none")
    assert seen[29] == (3, "Red", "upkeep", "staggered", "none", "none")
    # Each recovery is a resolution of that unit, so its log tells its battle.
    log = Resolution.objects.filter(character=blue_one, kind=ResolutionKind.BATTLE)
    assert [(r.action, r.summary) for r in log.order_by("version")] == [
        ("battle_upkeep", "Blue 1: Recovers at its warband's upkeep: stunned -> dazed."),
        ("battle_upkeep", "Blue 1: Recovers at its warband's upkeep: dazed -> staggered."),
        ("battle_end", "Blue 1: Recovers at the end of its turn: staggered -> unhurt."),
    ]
    assert all(r.actor_id == referee.pk and r.rolls == [] for r in log)
    # units with nothing to recover got no resolution
    assert not Resolution.objects.filter(character=bands["red"][0], kind="battle").exists()


def test_rout_checks_fall_due_at_the_threshold(skirmish, bands, referee, client_for):
    client = client_for(referee)
    client.post(url(skirmish), {"warbands": ["Red", "Blue"]}, format="json")
    hurt(client, bands["blue"][0], 18)
    blue = client.get(url(skirmish)).json()["warbands"][1]
    assert (blue["incapacitated"], blue["rout_threshold"], blue["rout_checks_due"]) == (1, 2, False)
    hurt(client, bands["blue"][1], 20)
    blue = client.get(url(skirmish)).json()["warbands"][1]
    assert (blue["incapacitated"], blue["rout_checks_due"]) == (2, True)


def test_the_rout_threshold_and_phases_are_campaign_options(skirmish, bands, referee, client_for):
    client = client_for(referee)
    options = {"rout_threshold_percent": 100, "phases": ["upkeep", "fight", "end"]}
    patched = client.patch(
        f"/api/v1/campaigns/{skirmish.pk}/",
        {"ruleset": "warband", "options": options},
        format="json",
    )
    assert patched.status_code == 200, patched.content
    client.post(url(skirmish), {"warbands": ["Red", "Blue"]}, format="json")
    body = client.post(url(skirmish, "next/")).json()
    assert (body["phase"], body["phases"]) == ("fight", ["upkeep", "fight", "end"])
    assert [w["rout_threshold"] for w in body["warbands"]] == [3, 3]


@pytest.mark.parametrize(
    "options",
    [
        {"phases": ["move", "end"]},
        {"phases": ["upkeep", "move"]},
        {"phases": ["upkeep", "end", "end"]},
        {"phases": "upkeep, end"},
        {"rout_threshold_percent": 0},
        {"rout_threshold_percent": 150},
    ],
)
def test_bad_battle_options_are_a_400_and_change_nothing(skirmish, referee, client_for, options):
    before = world()
    response = client_for(referee).patch(
        f"/api/v1/campaigns/{skirmish.pk}/",
        {"ruleset": "warband", "options": options},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert "options" in response.json()
    assert world() == before


def test_ending_a_battle_lists_the_units_due_a_scars_roll(skirmish, bands, referee, client_for):
    client = client_for(referee)
    client.post(url(skirmish), {"warbands": ["Red", "Blue"]}, format="json")
    hurt(client, bands["blue"][2], 19)
    hurt(client, bands["red"][1], 18)
    response = client.post(url(skirmish, "end/"))
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ended_at"] is not None
    assert body["scars_due"] == [
        {"id": bands["red"][1].pk, "name": "Red Archer", "warband": "Red"},
        {"id": bands["blue"][2].pk, "name": "Blue 3", "warband": "Blue"},
    ]
    # no battle runs now: 404 everywhere, and a new one may start
    assert client.get(url(skirmish)).status_code == 404
    assert client.post(url(skirmish, "next/")).status_code == 404
    assert client.post(url(skirmish, "end/")).status_code == 404
    again = client.post(url(skirmish), {"warbands": ["Red", "Blue"]}, format="json")
    assert again.status_code == 201


def test_no_battle_is_a_404(skirmish, bands, referee, player, client_for):
    before = world()
    for user in (referee, player):
        assert client_for(user).get(url(skirmish)).status_code == 404
    assert client_for(referee).post(url(skirmish, "next/")).status_code == 404
    assert client_for(referee).post(url(skirmish, "end/")).status_code == 404
    assert world() == before


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"warbands": ["Red", "Green"]}, 400, "no unit of this campaign belongs to 'Green'"),
        ({"warbands": ["Red", "Red"]}, 400, "a name appears twice"),
        ({"warbands": ["Red"]}, 400, "warbands"),
        ({"warbands": "Red, Blue"}, 400, "warbands"),
        ({"warbands": [1, ["Blue"]]}, 400, "warbands"),
        ({}, 400, "warbands"),
        ([], 400, ""),
    ],
)
def test_bad_battle_starts_are_refused_and_change_nothing(
    skirmish, bands, referee, client_for, body, status, message
):
    before = world()
    response = client_for(referee).post(url(skirmish), body, format="json")
    assert response.status_code == status, response.content
    assert message in str(response.json())
    assert world() == before


def test_a_second_battle_while_one_runs_is_a_409(skirmish, bands, referee, client_for):
    client = client_for(referee)
    client.post(url(skirmish), {"warbands": ["Red", "Blue"]}, format="json")
    before = world()
    response = client.post(url(skirmish), {"warbands": ["Grey", "Blue"]}, format="json")
    assert response.status_code == 409
    assert "already under way" in response.json()["detail"]
    assert world() == before


def test_players_may_not_run_battles(skirmish, bands, referee, player, client_for):
    client_for(referee).post(url(skirmish), {"warbands": ["Red", "Blue"]}, format="json")
    before = world()
    client = client_for(player)
    assert (
        client.post(url(skirmish), {"warbands": ["Red", "Blue"]}, format="json").status_code == 403
    )
    assert client.post(url(skirmish, "next/")).status_code == 403
    assert client.post(url(skirmish, "end/")).status_code == 403
    assert world() == before


def test_battle_calls_on_a_hit_dice_campaign_are_404_and_change_nothing(
    campaign, referee, player, client_for
):
    before = world()
    for user in (referee, player):
        client = client_for(user)
        assert client.get(url(campaign)).status_code == 404
        assert (
            client.post(url(campaign), {"warbands": ["A", "B"]}, format="json").status_code == 404
        )
        assert client.post(url(campaign, "next/")).status_code == 404
        assert client.post(url(campaign, "end/")).status_code == 404
    assert world() == before
