"""condition_monitor over the API: creation, actions, the soak roll in the log, the clocks'
choice, and bad input (a 400 that changes nothing, never a 500).

Rulings CM-1..CM-7 as docs/rulesets/condition_monitor.md reads them; the dice are
scripted through the whole stack (``scripted_dice``) where a value matters, and the
campaign's own HMAC dice elsewhere, verified afterwards from its seed (G-2).
"""

from __future__ import annotations

import pytest

from campaigns.models import Campaign
from characters.models import Character
from rules.clock.tests.clock_helpers import run_job
from rules.log.models import Resolution, ScheduledEffect
from rules.log.selectors import verify_resolution_rolls

pytestmark = pytest.mark.django_db

LETH = "/\\"


@pytest.fixture
def monitor(make_campaign):
    return make_campaign("condition_monitor")


def create(client, campaign: Campaign, owner, sheet: dict, name: str = "Vex"):
    return client.post(
        f"/api/v1/campaigns/{campaign.pk}/characters/",
        {"name": name, "owner": owner.pk, "sheet": sheet},
        format="json",
    )


@pytest.fixture
def vex(monitor, referee, player, client_for):
    response = create(client_for(referee), monitor, player, {"strength": 4, "willpower": 3})
    assert response.status_code == 201, response.content
    return Character.objects.get(pk=response.json()["id"])


def act(client, character, action, params, **extra):
    return client.post(
        f"/api/v1/characters/{character.pk}/actions/",
        {"action": action, "params": params, **extra},
        format="json",
    )


def snapshot(character: Character) -> tuple[object, ...]:
    character.refresh_from_db()
    return (
        character.version,
        character.sheet,
        character.pending_choice,
        Resolution.objects.filter(character=character).count(),
        ScheduledEffect.objects.filter(character=character).count(),
    )


def test_a_new_character_gets_ten_empty_boxes(vex):
    assert vex.sheet == {
        "strength": 4,
        "willpower": 3,
        "indomitable": False,
        "boxes": [""] * 10,
        "state": "ok",
        "penalty": 0,
        "terminal_until": None,
        "dying_until": None,
    }


def test_a_character_may_start_wounded_with_the_boxes_put_in_order(
    monitor, referee, player, client_for
):
    sheet = {"boxes": ["", "/", "", "/\\-", "", "", "", "", "", ""]}
    response = create(client_for(referee), monitor, player, sheet)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["sheet"]["boxes"] == ["/\\-", "/"] + [""] * 8
    assert body["sheet"]["penalty"] == 2


@pytest.mark.parametrize(
    ("sheet", "words"),
    [
        ({"boxes": [""] * 11}, "too long"),
        ({"boxes": ["/"] * 9}, "too short"),
        ({"boxes": ["X"] + [""] * 9}, "is not one of"),
        ({"state": "dead"}, "kept by the rules"),
        ({"strength": -1}, "minimum"),
        ({"indomitable": "yes"}, "boolean"),
        ({"boxes": [LETH] * 10}, "back slash in every box"),
    ],
)
def test_a_bad_sheet_at_creation_is_a_400_and_creates_nothing(
    monitor, referee, player, client_for, sheet, words
):
    response = create(client_for(referee), monitor, player, sheet)
    assert response.status_code == 400, response.content
    assert words in str(response.json())
    assert not Character.objects.filter(campaign=monitor).exists()
    assert not Resolution.objects.filter(campaign=monitor).exists()


def test_damage_rolls_the_soak_pool_and_logs_its_hits(vex, player, client_for, scripted_dice):
    scripted_dice([5, 1, 2, 6])  # 2 hits of 4 dice: net 4 - 2 = 2, an ordinary wound
    response = act(client_for(player), vex, "damage", {"amount": 4, "kind": "lethal"})
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["rolls"] == [
        {
            "label": "Soak test (4 dice)",
            "expression": "4d6>=5",
            "dice": [5, 1, 2, 6],
            "kept": [5, 6],
            "total": 2,
            "hidden": False,
            "kind": "pool",
            "sizes": [6, 6, 6, 6],
        }
    ]
    assert body["outcome"]["hits"] == 2
    assert body["outcome"]["wound"] == "ordinary"
    vex.refresh_from_db()
    assert vex.sheet["boxes"] == [LETH] * 3 + [""] * 7
    assert vex.sheet["penalty"] == 2  # 3 boxes, one ignored for willpower 3 (CM-6)
    assert body["summary"].startswith("Vex: Takes 4 lethal damage; soak test 4d6 rolls")


def test_the_soak_roll_is_drawn_from_the_campaign_dice_and_verifiable(
    monitor, vex, referee, client_for
):
    response = act(client_for(referee), vex, "damage", {"amount": 3, "kind": "normal"})
    assert response.status_code == 201, response.content
    resolution = Resolution.objects.get(pk=response.json()["id"])
    (roll,) = resolution.rolls
    assert roll["expression"] == "4d6>=5"
    assert roll["total"] == sum(1 for face in roll["dice"] if face >= 5)
    monitor.refresh_from_db()
    assert verify_resolution_rolls(resolution, monitor)


def test_campaign_options_change_the_soak_dice(make_campaign, referee, player, client_for):
    campaign = make_campaign("condition_monitor", soak_die_size=10, soak_hit_threshold=8)
    created = create(client_for(referee), campaign, player, {"strength": 2})
    vex = Character.objects.get(pk=created.json()["id"])
    response = act(client_for(referee), vex, "damage", {"amount": 1, "kind": "normal"})
    assert response.json()["rolls"][0]["expression"] == "2d10>=8"


@pytest.mark.parametrize(
    ("action", "params"),
    [
        ("damage", {"amount": -1, "kind": "normal"}),
        ("damage", {"amount": 3, "kind": "fire"}),
        ("damage", {"amount": 3}),
        ("damage", {"amount": 3, "kind": "normal", "soak_dice": -2}),
        ("damage", {"amount": 3, "kind": "normal", "soak_dice": 51}),
        ("damage", {"amount": 1.5, "kind": "normal"}),
        ("damage", {"amount": 3, "kind": "normal", "hits": 3}),
        ("heal", {"line": "x", "boxes": 1}),
        ("heal", {"line": "/", "boxes": 0}),
        ("heal", {"line": "/", "boxes": 11}),
        ("heal", {"line": "/", "boxes": 1}),  # no box holds one
        ("medical_care", {"means": "prayer"}),
        ("medical_care", {}),  # not incapacitated
        ("stabilize", {}),  # neither dying nor terminal
        ("bleed", {}),
    ],
)
def test_bad_input_is_a_400_and_changes_nothing(vex, referee, client_for, action, params):
    before = snapshot(vex)
    response = act(client_for(referee), vex, action, params)
    assert response.status_code == 400, response.content
    assert snapshot(vex) == before


def test_a_player_may_damage_and_stabilize_but_not_heal(vex, player, client_for):
    client = client_for(player)
    assert (
        act(client, vex, "damage", {"amount": 5, "kind": "normal", "soak_dice": 0}).status_code
        == 201
    )
    before = snapshot(vex)
    for action, params in (("heal", {"line": "/", "boxes": 1}), ("medical_care", {})):
        assert act(client, vex, action, params).status_code == 403
    assert snapshot(vex) == before
    stabilized = act(client, vex, "stabilize", {})
    assert stabilized.status_code == 201, stabilized.content
    assert stabilized.json()["outcome"]["state"] == "incapacitated"


def test_an_outsider_gets_404(vex, outsider, client_for):
    before = snapshot(vex)
    response = act(client_for(outsider), vex, "damage", {"amount": 1, "kind": "normal"})
    assert response.status_code == 404
    assert snapshot(vex) == before


def test_the_dead_cannot_act_409(vex, referee, client_for):
    client = client_for(referee)
    assert (
        act(client, vex, "damage", {"amount": 9, "kind": "normal", "soak_dice": 0}).status_code
        == 201
    )
    before = snapshot(vex)
    response = act(client, vex, "stabilize", {})
    assert response.status_code == 409
    assert "dead" in response.json()["detail"]
    assert snapshot(vex) == before


def test_the_dying_hour_ends_on_a_choice_only_the_referee_answers(
    monitor, vex, referee, player, client_for
):
    # given Vex takes an incapacitating lethal wound: every box lethal, dying (CM-4)
    referee_client = client_for(referee)
    response = act(referee_client, vex, "damage", {"amount": 4, "kind": "lethal", "soak_dice": 0})
    assert response.json()["outcome"]["state"] == "dying"
    effects = referee_client.get(f"/api/v1/campaigns/{monitor.pk}/effects/").json()
    assert [(e["kind"], e["due_at"]) for e in effects] == [("dying_hour", 60)]

    # when the hour passes on the campaign clock
    job = run_job(monitor, 90)
    assert job.state == "waiting"
    vex.refresh_from_db()
    choice = vex.pending_choice
    assert choice["kind"] == "dying_hour"

    # then nothing else may be resolved for Vex until it is answered (G-3) ...
    blocked = act(referee_client, vex, "stabilize", {})
    assert blocked.status_code == 409
    # ... and only the referee may answer it
    url = f"/api/v1/characters/{vex.pk}/choices/"
    answer = {"choice_id": choice["id"], "option": "stabilizes"}
    assert client_for(player).post(url, answer, format="json").status_code == 403
    bad = referee_client.post(url, {**answer, "option": "miracle"}, format="json")
    assert bad.status_code == 400
    done = referee_client.post(url, answer, format="json")
    assert done.status_code == 201, done.content
    vex.refresh_from_db()
    assert vex.sheet["state"] == "incapacitated"
    assert vex.pending_choice is None


def test_the_odds_of_a_wound_before_the_soak_roll(vex, player, client_for):
    # 4 soak dice hitting on 5-6 against 5 damage: 0 hits (16/81) leave net 5, terminal.
    before = snapshot(vex)
    response = client_for(player).post(
        f"/api/v1/characters/{vex.pk}/odds/",
        {"action": "damage", "params": {"amount": 5, "kind": "lethal"}},
        format="json",
    )
    assert response.status_code == 200, response.content
    outcomes = {o["key"]: o["fraction"] for o in response.json()["outcomes"]}
    assert outcomes == {
        "terminal": "16/81",
        "incapacitating": "32/81",
        "serious": "8/27",
        "ordinary": "8/81",
        "petty": "1/81",
    }
    assert snapshot(vex) == before  # nothing rolled, nothing changed
