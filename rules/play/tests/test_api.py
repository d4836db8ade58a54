"""The rules API (API.md): rulesets, actions, choices, undo, the resolution log.

Bad input is a 400, a conflict a 409, and neither changes anything: not the sheet,
not the version, not the log, not the campaign's dice counter. Nothing is ever a 500,
whatever JSON arrives (``test_random_bodies_never_break_the_server``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import jsonschema
import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.engine.registry import all_rulesets, get_ruleset, ruleset_keys
from rules.log.models import Resolution, ScheduledEffect
from rules.play.services import character_create

pytestmark = pytest.mark.django_db

RESOLUTION_FIELDS = {
    "id",
    "character",
    "kind",
    "ruleset",  # tells the outcome's and the sheet's shape (HitDiceOutcome...)
    "action",
    "params",
    "rolls",
    "summary",
    "outcome",
    "sheet",
    "version",
    "pending_choice",
    "clock",
    "elapsed_minutes",
    "batch",
    "actor",
    "imported_actor",  # someone of an imported campaign, as its export named them (issue 36)
    "undoes",
    "created_at",
    "dice_counter_start",
    "dice_counter_end",
}
ROLL_FIELDS = {"label", "expression", "dice", "kept", "total", "hidden", "kind", "sizes"}


@pytest.fixture
def aldo(campaign, player) -> Character:
    membership = Membership.objects.get(campaign=campaign, user=player)
    return character_create(
        membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )


def actions_url(character: Character) -> str:
    return reverse("api-actions", kwargs={"character_id": character.pk})


def choices_url(character: Character) -> str:
    return reverse("api-choices", kwargs={"character_id": character.pk})


def log_url(character: Character) -> str:
    return reverse("api-resolutions", kwargs={"character_id": character.pk})


def state(character: Character) -> tuple[Any, ...]:
    """Everything an action could change."""
    fresh = Character.objects.get(pk=character.pk)
    campaign = Campaign.objects.get(pk=fresh.campaign_id)
    return (
        fresh.sheet,
        fresh.version,
        fresh.pending_choice,
        list(Resolution.objects.filter(character=fresh).values_list("pk", flat=True)),
        list(ScheduledEffect.objects.filter(character=fresh).values_list("pk", "state")),
        campaign.dice_counter,
        campaign.clock,
    )


def act(client, character, action, params=None, **extra):
    body: dict[str, Any] = {"action": action, **extra}
    if params is not None:
        body["params"] = params
    return client.post(actions_url(character), body, format="json")


def into_choice(client, character, scripted_dice):
    """12 damage on 10 hp: overflow 2, DC 22; strength save 1+10 fails, will save 20+10
    passes: the owner chooses death or a major wound (rulings HD-4, G-3)."""
    scripted_dice([1, 20])
    response = act(client, character, "damage", {"amount": 12})
    assert response.status_code == 201
    return response.json()


# -- rulesets --------------------------------------------------------------------------
def test_rulesets_list_every_registered_ruleset(client_for, player) -> None:
    response = client_for(player).get(reverse("api-rulesets"))
    assert response.status_code == 200
    body = response.json()
    assert [r["key"] for r in body] == list(ruleset_keys())
    for described in body:
        ruleset = get_ruleset(described["key"])
        assert set(described) == {"key", "name", "actions", "sheet_schema", "options", "tables"}
        assert described["name"] == ruleset.name
        assert described["options"] == dict(ruleset.options)
        assert described["tables"] == sorted(ruleset.tables)
        jsonschema.Draft202012Validator.check_schema(described["sheet_schema"])
        fresh = {**ruleset.default_sheet(), **ruleset.example_initial}
        jsonschema.validate(fresh, described["sheet_schema"])
        assert [a["key"] for a in described["actions"]] == [s.key for s in ruleset.actions]
        for action in described["actions"]:
            assert set(action) == {"key", "label", "params", "who", "description"}
            assert action["who"] in {"owner", "referee"}
            assert action["label"]
            jsonschema.Draft202012Validator.check_schema(action["params"])
            assert action["params"]["type"] == "object"
            assert action["params"]["additionalProperties"] is False


# -- actions ---------------------------------------------------------------------------
def test_action_answers_201_with_the_resolution(client_for, aldo, player, campaign) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(clock=125)
    response = act(client_for(player), aldo, "damage", {"amount": 3}, expected_version=1)
    assert response.status_code == 201
    body = response.json()
    resolution = Resolution.objects.get(character=aldo, version=2)
    assert set(body) == RESOLUTION_FIELDS
    assert body["id"] == resolution.pk
    assert body["character"] == aldo.pk
    assert body["kind"] == "action"
    assert body["action"] == "damage"
    assert body["params"] == {"amount": 3}
    assert body["rolls"] == []  # hit points absorb it all: no save
    assert body["sheet"]["hp"] == 7
    assert body["version"] == 2
    assert body["pending_choice"] is None
    assert body["clock"] == 125
    assert body["actor"] == player.pk
    assert body["undoes"] is None
    assert isinstance(body["summary"], str) and "3 damage" in body["summary"]
    assert datetime.fromisoformat(body["created_at"]) == resolution.created_at
    aldo.refresh_from_db()
    assert (aldo.sheet["hp"], aldo.version) == (7, 2)


def test_rolls_are_listed_with_every_die(client_for, aldo, player, scripted_dice) -> None:
    body = into_choice(client_for(player), aldo, scripted_dice)
    assert [set(roll) for roll in body["rolls"]] == [ROLL_FIELDS, ROLL_FIELDS]
    assert body["rolls"] == [
        {
            "label": "Strength injury save vs DC 22",
            "expression": "1d20+10",
            "dice": [1],
            "kept": [1],
            "total": 11,
            "hidden": False,
            "kind": "dice",
            "sizes": [20],
        },
        {
            "label": "Will injury save vs DC 22",
            "expression": "1d20+10",
            "dice": [20],
            "kept": [20],
            "total": 30,
            "hidden": False,
            "kind": "dice",
            "sizes": [20],
        },
    ]
    choice = body["pending_choice"]
    assert set(choice) == {"id", "kind", "prompt", "options", "who"}
    assert [o["key"] for o in choice["options"]] == ["major_wound", "death"]
    assert choice["who"] == "owner"


def test_referee_acts_for_a_players_character(client_for, aldo, referee) -> None:
    response = act(client_for(referee), aldo, "damage", {"amount": 1})
    assert response.status_code == 201
    assert response.json()["actor"] == referee.pk


def test_whole_number_floats_count_as_integers(client_for, aldo, player) -> None:
    response = act(client_for(player), aldo, "damage", {"amount": 3.0}, expected_version=1.0)
    assert response.status_code == 201
    assert response.json()["params"] == {"amount": 3}
    aldo.refresh_from_db()
    assert aldo.sheet["hp"] == 7 and isinstance(aldo.sheet["hp"], int)


BAD_ACTIONS = [
    ({"action": "damage", "params": {"amount": "ten"}}, "amount-string"),
    ({"action": "damage", "params": {"amount": "3"}}, "amount-numeric-string"),
    ({"action": "damage", "params": {"amount": 3.5}}, "amount-fraction"),
    ({"action": "damage", "params": {"amount": True}}, "amount-bool"),
    ({"action": "damage", "params": {"amount": None}}, "amount-null"),
    ({"action": "damage", "params": {"amount": [3]}}, "amount-list"),
    ({"action": "damage", "params": {"amount": -5}}, "amount-negative"),
    ({"action": "damage", "params": {"amount": 0}}, "amount-zero"),
    ({"action": "damage", "params": {"amount": 10**9}}, "amount-absurd"),
    ({"action": "damage", "params": {"amount": 10**30}}, "amount-huge"),
    ({"action": "damage", "params": {"amount": 1e300}}, "amount-huge-float"),
    ({"action": "damage", "params": [1, 2]}, "params-list"),
    ({"action": "damage", "params": "amount=3"}, "params-string"),
    ({"action": "damage", "params": None}, "params-null"),
    ({"action": "damage"}, "params-missing"),
    ({"action": "damage", "params": {}}, "params-empty"),
    ({"action": "damage", "params": {"amount": 1, "critical": True}}, "params-unknown"),
    ({"action": "damage", "params": {"amount": 1, "\x00": 1}}, "params-nul-key"),
    ({"action": "short_rest", "params": {"reroll": "yes"}}, "bool-string"),
    ({"action": "fly", "params": {}}, "unknown-action"),
    ({"action": "flip", "params": {}}, "other-rulesets-action"),
    ({"action": "", "params": {}}, "blank-action"),
    ({"action": None, "params": {}}, "null-action"),
    ({"action": ["damage"], "params": {"amount": 1}}, "list-action"),
    ({"action": "x" * 65, "params": {}}, "long-action"),
    ({"params": {"amount": 1}}, "no-action"),
    ({"action": "damage", "params": {"amount": 1}, "expected_version": 0}, "version-zero"),
    ({"action": "damage", "params": {"amount": 1}, "expected_version": -1}, "version-negative"),
    ({"action": "damage", "params": {"amount": 1}, "expected_version": "1"}, "version-string"),
    ({"action": "damage", "params": {"amount": 1}, "expected_version": "one"}, "version-word"),
    ({"action": "damage", "params": {"amount": 1}, "expected_version": 1.5}, "version-fraction"),
    ({"action": "damage", "params": {"amount": 1}, "expected_version": True}, "version-bool"),
    ({"action": "damage", "params": {"amount": 1}, "expected_version": None}, "version-null"),
    ({"action": "treat_wound", "params": {"wound": 99}}, "no-such-wound"),
    ({"action": "treat_wound", "params": {"wound": 2**70}}, "wound-id-huge"),
    ({"action": "die_of_wounds", "params": {}}, "impossible-action"),
]


@pytest.mark.parametrize(("body", "case"), BAD_ACTIONS, ids=[case for _, case in BAD_ACTIONS])
def test_bad_action_is_400_and_changes_nothing(client_for, aldo, player, body, case) -> None:
    before = state(aldo)
    response = client_for(player).post(actions_url(aldo), body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()
    assert state(aldo) == before


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        ("[]", "application/json"),
        ('"damage"', "application/json"),
        ("5", "application/json"),
        ("null", "application/json"),
        ("true", "application/json"),
        ("{", "application/json"),
        ('{"action": "damage", "params": {"amount": NaN}}', "application/json"),
        ('{"action": "damage", "params": {"amount": Infinity}}', "application/json"),
        ("[" * 50_000 + "]" * 50_000, "application/json"),
        (
            '{"action": "damage", "params": ' + '{"a": ' * 5_000 + "1" + "}" * 5_001,
            "application/json",
        ),
        ("", "application/json"),
    ],
    ids=[
        "list",
        "string",
        "number",
        "null",
        "bool",
        "broken-json",
        "nan",
        "infinity",
        "deep-list",
        "deep-params",
        "empty",
    ],
)
def test_a_body_that_is_not_an_action_object_is_400(
    client_for, aldo, referee, raw, content_type
) -> None:
    before = state(aldo)
    response = client_for(referee).post(actions_url(aldo), data=raw, content_type=content_type)
    assert response.status_code == 400, response.content
    assert state(aldo) == before


def test_a_nul_character_in_text_params_is_400(client_for, aldo, referee, player) -> None:
    """PostgreSQL cannot store U+0000: a 400 on every database, not a 500 on one."""
    referee_client = client_for(referee)
    assert act(referee_client, aldo, "damage", {"amount": 12}).status_code == 201
    aldo.refresh_from_db()
    if aldo.pending_choice:
        referee_client.post(
            choices_url(aldo),
            {"choice_id": aldo.pending_choice["id"], "option": "major_wound"},
            format="json",
        )
        aldo.refresh_from_db()
    before = state(aldo)
    wound = aldo.sheet["wounds"][0]["id"]
    response = act(
        referee_client, aldo, "describe_wound", {"wound": wound, "description": "deep\x00cut"}
    )
    assert response.status_code == 400
    assert "NUL" in response.json()["detail"]
    assert state(aldo) == before


def test_players_cannot_take_referee_actions(client_for, aldo, player) -> None:
    before = state(aldo)
    response = act(client_for(player), aldo, "bypass", {"damage": 3, "attacker_level": 1})
    assert response.status_code == 403
    assert state(aldo) == before


def test_stale_expected_version_is_409(client_for, aldo, player) -> None:
    client = client_for(player)
    assert act(client, aldo, "damage", {"amount": 1}, expected_version=1).status_code == 201
    before = state(aldo)
    response = act(client, aldo, "damage", {"amount": 1}, expected_version=1)
    assert response.status_code == 409
    assert "version 2" in response.json()["detail"]
    assert state(aldo) == before
    response = act(client, aldo, "damage", {"amount": 1}, expected_version=7)
    assert response.status_code == 409
    assert state(aldo) == before


def test_a_pending_choice_blocks_actions_with_409(client_for, aldo, player, scripted_dice) -> None:
    client = client_for(player)
    into_choice(client, aldo, scripted_dice)
    before = state(aldo)
    for body in (
        {"action": "short_rest", "params": {"reroll": False}},
        {"action": "short_rest", "params": {"reroll": False}, "expected_version": 2},
        {"action": "long_rest", "params": {}},
    ):
        response = client.post(actions_url(aldo), body, format="json")
        assert response.status_code == 409
        # ruling G-3: the choice comes first (the detail says so, in words, not by id)
        assert "Answer it first" in response.json()["detail"]
        assert state(aldo) == before


def test_a_dead_character_cannot_act_409(client_for, aldo, player, scripted_dice) -> None:
    client = client_for(player)
    choice = into_choice(client, aldo, scripted_dice)["pending_choice"]
    died = client.post(
        choices_url(aldo), {"choice_id": choice["id"], "option": "death"}, format="json"
    )
    assert died.status_code == 201
    assert died.json()["sheet"]["state"] == "dead"
    before = state(aldo)
    response = act(client, aldo, "short_rest", {"reroll": False})
    assert response.status_code == 409
    assert "dead" in response.json()["detail"]
    assert state(aldo) == before


# -- choices ---------------------------------------------------------------------------
def test_answering_the_choice_is_201(client_for, aldo, player, scripted_dice) -> None:
    client = client_for(player)
    choice = into_choice(client, aldo, scripted_dice)["pending_choice"]
    response = client.post(
        choices_url(aldo), {"choice_id": choice["id"], "option": "major_wound"}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == RESOLUTION_FIELDS
    assert body["kind"] == "choice"
    assert body["params"] == {"choice_id": choice["id"], "option": "major_wound"}
    assert body["pending_choice"] is None
    assert body["sheet"]["major_wound_marks"] == 1
    assert body["version"] == 3
    detail = client.get(reverse("api-character", kwargs={"character_id": aldo.pk})).json()
    assert detail["pending_choice"] is None
    # and actions are possible again
    assert act(client, aldo, "short_rest", {"reroll": False}).status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        {"option": "fly"},
        {"option": ""},
        {"option": None},
        {"option": ["death"]},
        {},
        {"choice_id": None, "option": "death"},
        {"choice_id": ["x"], "option": "death"},
    ],
    ids=["unknown-option", "blank", "null", "list", "missing", "null-id", "list-id"],
)
def test_bad_answer_is_400_and_changes_nothing(
    client_for, aldo, player, scripted_dice, body
) -> None:
    client = client_for(player)
    choice = into_choice(client, aldo, scripted_dice)["pending_choice"]
    before = state(aldo)
    response = client.post(choices_url(aldo), {"choice_id": choice["id"], **body}, format="json")
    assert response.status_code == 400, response.content
    assert state(aldo) == before


def test_stale_choice_id_is_409(client_for, aldo, player, scripted_dice) -> None:
    client = client_for(player)
    choice = into_choice(client, aldo, scripted_dice)["pending_choice"]
    before = state(aldo)
    response = client.post(
        choices_url(aldo), {"choice_id": "0" * 32, "option": "death"}, format="json"
    )
    assert response.status_code == 409
    assert state(aldo) == before
    # answered once, the same id is stale
    body = {"choice_id": choice["id"], "option": "major_wound"}
    assert client.post(choices_url(aldo), body, format="json").status_code == 201
    after_answer = state(aldo)
    assert client.post(choices_url(aldo), body, format="json").status_code == 409
    assert state(aldo) == after_answer


def test_answer_without_a_pending_choice_is_409(client_for, aldo, player) -> None:
    before = state(aldo)
    response = client_for(player).post(
        choices_url(aldo), {"choice_id": "abc", "option": "death"}, format="json"
    )
    assert response.status_code == 409
    assert state(aldo) == before


def test_referee_cancels_a_pending_choice(client_for, aldo, player, referee, scripted_dice):
    into_choice(client_for(player), aldo, scripted_dice)
    sheet = Character.objects.get(pk=aldo.pk).sheet
    url = reverse("api-choice-cancel", kwargs={"character_id": aldo.pk})
    response = client_for(referee).post(url)
    assert response.status_code == 201
    assert response.json()["kind"] == "cancel_choice"
    assert response.json()["pending_choice"] is None
    assert response.json()["sheet"] == sheet
    before = state(aldo)
    assert client_for(referee).post(url).status_code == 409  # nothing pending any more
    assert state(aldo) == before


# -- undo ------------------------------------------------------------------------------
def test_referee_undoes_the_latest_resolution(client_for, aldo, player, referee) -> None:
    damage = act(client_for(player), aldo, "damage", {"amount": 4}).json()
    url = reverse("api-undo", kwargs={"character_id": aldo.pk})
    response = client_for(referee).post(url)
    assert response.status_code == 201
    body = response.json()
    assert body["kind"] == "undo"
    assert body["undoes"] == damage["id"]
    assert body["sheet"]["hp"] == 10
    assert body["version"] == 3
    assert body["actor"] == referee.pk
    assert Resolution.objects.filter(character=aldo).count() == 3  # nothing deleted
    before = state(aldo)
    again = client_for(referee).post(url)
    assert again.status_code == 409
    assert state(aldo) == before


def test_nothing_to_undo_is_409(client_for, aldo, referee) -> None:
    before = state(aldo)
    response = client_for(referee).post(reverse("api-undo", kwargs={"character_id": aldo.pk}))
    assert response.status_code == 409
    assert state(aldo) == before


def test_player_cannot_undo(client_for, aldo, player) -> None:
    act(client_for(player), aldo, "damage", {"amount": 4})
    before = state(aldo)
    response = client_for(player).post(reverse("api-undo", kwargs={"character_id": aldo.pk}))
    assert response.status_code == 403
    assert state(aldo) == before


# -- the log ---------------------------------------------------------------------------
def test_log_is_newest_first_and_paginated(client_for, aldo, player) -> None:
    client = client_for(player)
    for amount in (1, 2, 3):
        assert act(client, aldo, "damage", {"amount": amount}).status_code == 201
    response = client.get(log_url(aldo))
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 4
    assert body["next"] is None and body["previous"] is None
    assert [r["version"] for r in body["results"]] == [4, 3, 2, 1]
    assert [r["kind"] for r in body["results"]] == ["action", "action", "action", "create"]
    assert [r["params"].get("amount") for r in body["results"][:3]] == [3, 2, 1]
    assert all(set(r) == RESOLUTION_FIELDS for r in body["results"])

    first = client.get(log_url(aldo), {"page_size": 3}).json()
    assert [r["version"] for r in first["results"]] == [4, 3, 2]
    assert first["count"] == 4
    assert first["next"].endswith("page=2&page_size=3")
    second = client.get(first["next"]).json()
    assert [r["version"] for r in second["results"]] == [1]
    assert second["next"] is None
    assert second["previous"] is not None


def test_log_page_size_is_capped_at_200(client_for, aldo, player) -> None:
    response = client_for(player).get(log_url(aldo), {"page_size": 10_000})
    assert response.status_code == 200
    assert response.json()["count"] == 1


@pytest.mark.parametrize("page", ["2", "99999"])
def test_a_page_that_does_not_exist_is_404(client_for, aldo, player, page) -> None:
    response = client_for(player).get(log_url(aldo), {"page": page})
    assert response.status_code == 404


@pytest.mark.parametrize("page", ["0", "abc", "-1", "last", "99999999999999999999999"])
def test_a_page_that_is_no_page_number_is_400(client_for, aldo, player, page) -> None:
    """The schema says a whole number from 1 (issue 27)."""
    response = client_for(player).get(log_url(aldo), {"page": page})
    assert response.status_code == 400
    assert "page" in response.json()


def test_hidden_rolls_are_for_the_referee_until_revealed(
    client_for, make_campaign, referee, player, scripted_dice
) -> None:
    """Ruling G-4: the referee's secret exposure save (old school, OS-6)."""
    campaign = make_campaign("old_school")
    membership = Membership.objects.get(campaign=campaign, user=player)
    hero = character_create(membership=membership, name="Hero", sheet=None)
    disease = next(iter(get_ruleset("old_school").tables["diseases"]))
    scripted_dice([1] * 20)
    response = act(client_for(referee), hero, "expose_disease", {"disease": disease})
    assert response.status_code == 201, response.content
    as_referee = response.json()
    hidden_rolls = [r for r in as_referee["rolls"] if r["hidden"]]
    assert hidden_rolls
    assert "referee_only" in as_referee["outcome"]

    as_player = client_for(player).get(log_url(hero)).json()["results"][0]
    assert as_player["id"] == as_referee["id"]
    assert [r for r in as_player["rolls"] if r["hidden"]] == []
    assert "referee_only" not in as_player["outcome"]

    reveal = reverse(
        "api-reveal", kwargs={"character_id": hero.pk, "resolution_id": as_referee["id"]}
    )
    assert client_for(referee).post(reveal).status_code == 200
    revealed = client_for(player).get(log_url(hero)).json()["results"][0]
    assert revealed["rolls"] == as_referee["rolls"]
    assert revealed["outcome"] == as_referee["outcome"]


# -- never a 500 -----------------------------------------------------------------------
def _all_action_keys() -> list[str]:
    return sorted({spec.key for ruleset in all_rulesets() for spec in ruleset.actions})


def _all_param_names() -> list[str]:
    names = set()
    for ruleset in all_rulesets():
        for spec in ruleset.actions:
            names.update(spec.params.get("properties", {}))
    return sorted(names)


JSON_LEAVES: st.SearchStrategy[Any] = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.just([])
    | st.just({})
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda children: (
        st.lists(children, min_size=1, max_size=4)
        | st.dictionaries(st.text(max_size=8), children, min_size=1, max_size=4)
    ),
    max_leaves=12,
)
PARAMS = st.dictionaries(
    st.sampled_from(_all_param_names()) | st.text(max_size=8), JSON_VALUES, max_size=4
)
ACTION_BODIES = st.fixed_dictionaries(
    {"action": st.sampled_from(_all_action_keys()) | st.text(max_size=10)},
    optional={
        "params": PARAMS | JSON_VALUES,
        "expected_version": st.integers(min_value=-3, max_value=2**70) | JSON_LEAVES,
    },
)


@pytest.mark.parametrize("ruleset", ruleset_keys())
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=ACTION_BODIES | JSON_VALUES)
def test_random_bodies_never_break_the_server(
    client_for, make_campaign, referee, player, ruleset, body
) -> None:
    campaign = Campaign.objects.filter(ruleset=ruleset).first() or make_campaign(ruleset)
    character = Character.objects.filter(campaign=campaign).first() or character_create(
        membership=Membership.objects.get(campaign=campaign, user=player),
        name="Fuzz",
        sheet=get_ruleset(ruleset).example_initial,
    )
    before = state(character)
    for user in (referee, player):
        response = client_for(user).post(actions_url(character), body, format="json")
        assert response.status_code < 500, (body, response.content)
        if response.status_code != 201:
            assert state(character) == before
        before = state(character)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sheet=st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=4) | JSON_VALUES)
def test_random_sheets_never_break_character_creation(client_for, campaign, player, sheet) -> None:
    count = Character.objects.count()
    response = client_for(player).post(
        reverse("api-campaign-characters", kwargs={"campaign_id": campaign.pk}),
        {"name": "Fuzz", "sheet": sheet},
        format="json",
    )
    assert response.status_code in {201, 400}, (sheet, response.content)
    if response.status_code == 400:
        assert Character.objects.count() == count


def _value_for(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values mostly inside an action's params schema, sometimes just outside it."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    kinds = schema.get("type", "string")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    options: list[st.SearchStrategy[Any]] = []
    for kind in kinds:
        if kind == "integer":
            low = schema.get("minimum", -5)
            high = schema.get("maximum", low + 1000)
            options.append(st.integers(min_value=low - 1, max_value=high + 1))
        elif kind == "boolean":
            options.append(st.booleans())
        elif kind == "null":
            options.append(st.none())
        elif kind == "string":
            options.append(
                st.text(
                    min_size=schema.get("minLength", 0),
                    max_size=min(schema.get("maxLength", 20), 20),
                )
            )
        elif kind == "object":
            options.append(st.dictionaries(st.from_regex(r"\A[a-z]{1,8}\Z"), st.integers(-2, 40)))
        else:
            options.append(JSON_LEAVES)
    return st.one_of(options)


def _params_for(spec: Any) -> st.SearchStrategy[dict[str, Any]]:
    properties = spec.params.get("properties", {})
    required = set(spec.params.get("required", []))
    return st.fixed_dictionaries(
        {name: _value_for(properties[name]) for name in properties if name in required},
        optional={
            name: _value_for(properties[name]) for name in properties if name not in required
        },
    )


def _plausible_actions(ruleset_key: str) -> st.SearchStrategy[dict[str, Any]]:
    ruleset = get_ruleset(ruleset_key)
    return st.one_of(
        [
            st.fixed_dictionaries({"action": st.just(spec.key), "params": _params_for(spec)})
            for spec in ruleset.actions
        ]
    )


@pytest.mark.parametrize("ruleset", ruleset_keys())
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_plausible_action_sequences_never_break_the_server(
    client_for, make_campaign, referee, player, ruleset, data
) -> None:
    """Runs of actions with params near their schemas' limits, answering any choice."""
    campaign = Campaign.objects.filter(ruleset=ruleset).first() or make_campaign(ruleset)
    character = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player),
        name="Fuzz",
        sheet=get_ruleset(ruleset).example_initial,
    )
    client = client_for(referee)
    for body in data.draw(st.lists(_plausible_actions(ruleset), min_size=1, max_size=6)):
        before = state(character)
        response = client.post(actions_url(character), body, format="json")
        assert response.status_code < 500, (body, response.content)
        if response.status_code != 201:
            assert state(character) == before, body
        choice = Character.objects.get(pk=character.pk).pending_choice
        if choice is not None:
            option = data.draw(st.sampled_from([o["key"] for o in choice["options"]]))
            answer = client.post(
                choices_url(character), {"choice_id": choice["id"], "option": option}, format="json"
            )
            assert answer.status_code < 500, (choice, option, answer.content)
