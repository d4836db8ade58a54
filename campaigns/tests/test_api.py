"""The campaigns API (API.md): list, create, detail, options, invites, joining."""

from __future__ import annotations

import hashlib

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Invite, Membership, Role
from characters.models import Character
from rules.engine.interface import OPTION_INT_LIMIT
from rules.engine.registry import get_ruleset, ruleset_keys

pytestmark = pytest.mark.django_db

CAMPAIGN_FIELDS = {
    "id",
    "name",
    "ruleset",
    "actions_move_clock",
    "clock",
    "clock_display",
    "date",
    "my_role",
    "options",
    "dice_commitment",
    "archived_at",
}


def detail_url(campaign: Campaign) -> str:
    return reverse("api-campaign", kwargs={"campaign_id": campaign.pk})


def create(client, **body):
    return client.post(reverse("api-campaigns"), body, format="json")


# -- create and list -------------------------------------------------------------------
@pytest.mark.parametrize("ruleset", ruleset_keys())
def test_the_creator_becomes_referee(client_for, outsider, ruleset: str) -> None:
    response = create(client_for(outsider), name="  Fresh  ", ruleset=ruleset)
    assert response.status_code == 201
    body = response.json()
    campaign = Campaign.objects.get()
    assert body == {
        "id": campaign.pk,
        "name": "Fresh",
        "ruleset": ruleset,
        "clock": 0,
        "clock_display": "Day 1, 00:00",
        "date": {
            "year": None,
            "month": None,
            "month_name": None,
            "day": 1,
            "weekday": None,
            "hour": 0,
            "minute": 0,
            "text": "Day 1, 00:00",
        },
        "my_role": "referee",
        "options": dict(get_ruleset(ruleset).options),
        "actions_move_clock": True,
        "dice_commitment": hashlib.sha256(bytes.fromhex(campaign.dice_seed)).hexdigest(),
        "archived_at": None,
    }
    assert Membership.objects.get(campaign=campaign, user=outsider).role == Role.REFEREE


def test_create_with_options_overrides_only_those(client_for, outsider) -> None:
    response = create(
        client_for(outsider),
        name="Options",
        ruleset="hit_dice",
        options={"bypass_hp_per_level": 5},
    )
    assert response.status_code == 201
    assert response.json()["options"] == {"bypass_hp_per_level": 5}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "x", "ruleset": "no_such_rules"}, "ruleset"),
        ({"name": "x"}, "ruleset"),
        ({"ruleset": "hit_dice"}, "name"),
        ({"name": "   ", "ruleset": "hit_dice"}, "name"),
        ({"name": "x" * 121, "ruleset": "hit_dice"}, "name"),
        ({"name": "x", "ruleset": "hit_dice", "options": {"no_such_option": 1}}, "options"),
        (
            {"name": "x", "ruleset": "hit_dice", "options": {"bypass_hp_per_level": "ten"}},
            "options",
        ),
        ({"name": "x", "ruleset": "hit_dice", "options": {"bypass_hp_per_level": True}}, "options"),
        ({"name": "x", "ruleset": "hit_dice", "options": {"bypass_hp_per_level": -5}}, "options"),
        (
            {"name": "x", "ruleset": "hit_dice", "options": {"bypass_hp_per_level": 10**9}},
            "options",
        ),
        ({"name": "x", "ruleset": "hit_dice", "options": [1]}, "options"),
    ],
    ids=[
        "unknown-ruleset",
        "no-ruleset",
        "no-name",
        "blank-name",
        "long-name",
        "unknown-option",
        "option-type",
        "bool-for-int",
        "negative-option",
        "absurd-option",
        "options-list",
    ],
)
def test_bad_campaign_input_is_400_and_creates_nothing(client_for, outsider, body, field) -> None:
    response = create(client_for(outsider), **body)
    assert response.status_code == 400
    assert field in response.json()
    assert not Campaign.objects.exists()
    assert not Membership.objects.exists()


def test_list_shows_only_my_campaigns_with_my_role(
    client_for, make_campaign, player, outsider
) -> None:
    first = make_campaign("hit_dice")
    second = make_campaign("deckahedron")
    create(client_for(outsider), name="Not theirs", ruleset="hit_dice")

    response = client_for(player).get(reverse("api-campaigns"))
    assert response.status_code == 200
    body = response.json()
    assert [c["id"] for c in body] == [second.pk, first.pk]  # newest first
    assert {c["my_role"] for c in body} == {"player"}
    assert all(set(c) == CAMPAIGN_FIELDS for c in body)


def test_list_is_empty_for_someone_in_no_campaign(client_for, outsider) -> None:
    response = client_for(outsider).get(reverse("api-campaigns"))
    assert response.status_code == 200
    assert response.json() == []


# -- detail ----------------------------------------------------------------------------
def test_detail_as_referee_and_as_player(client_for, campaign, referee, player) -> None:
    as_referee = client_for(referee).get(detail_url(campaign)).json()
    as_player = client_for(player).get(detail_url(campaign)).json()
    assert as_referee == {
        "id": campaign.pk,
        "name": campaign.name,
        "ruleset": "hit_dice",
        "clock": 0,
        "clock_display": "Day 1, 00:00",
        "date": {
            "year": None,
            "month": None,
            "month_name": None,
            "day": 1,
            "weekday": None,
            "hour": 0,
            "minute": 0,
            "text": "Day 1, 00:00",
        },
        "my_role": "referee",
        "options": {"bypass_hp_per_level": 10},
        "actions_move_clock": True,
        "dice_commitment": hashlib.sha256(bytes.fromhex(campaign.dice_seed)).hexdigest(),
        "archived_at": None,
    }
    assert as_player == {**as_referee, "my_role": "player"}


@pytest.mark.parametrize(
    ("minutes", "shown"),
    [(0, "Day 1, 00:00"), (59, "Day 1, 00:59"), (1439, "Day 1, 23:59"), (1530, "Day 2, 01:30")],
)
def test_clock_display_follows_ruling_g1(client_for, campaign, player, minutes, shown) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(clock=minutes)
    body = client_for(player).get(detail_url(campaign)).json()
    assert body["clock"] == minutes
    assert body["clock_display"] == shown


# -- PATCH -----------------------------------------------------------------------------
def test_referee_renames_and_sets_options(client_for, campaign, referee) -> None:
    response = client_for(referee).patch(
        detail_url(campaign),
        {"ruleset": "hit_dice", "name": "Renamed", "options": {"bypass_hp_per_level": 3}},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["name"] == "Renamed"
    assert response.json()["options"] == {"bypass_hp_per_level": 3}
    campaign.refresh_from_db()
    assert (campaign.name, campaign.options) == ("Renamed", {"bypass_hp_per_level": 3})


def test_ruleset_can_change_while_no_character_exists(client_for, campaign, referee) -> None:
    response = client_for(referee).patch(
        detail_url(campaign), {"ruleset": "deckahedron"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["ruleset"] == "deckahedron"
    assert response.json()["options"] == dict(get_ruleset("deckahedron").options)


def test_ruleset_is_fixed_once_characters_exist(client_for, campaign, referee, player) -> None:
    created = client_for(player).post(
        reverse("api-campaign-characters", kwargs={"campaign_id": campaign.pk}),
        {"name": "Aldo"},
        format="json",
    )
    assert created.status_code == 201
    response = client_for(referee).patch(
        detail_url(campaign), {"ruleset": "deckahedron", "name": "Changed"}, format="json"
    )
    assert response.status_code == 409
    assert "ruleset" in response.json()["detail"]
    campaign.refresh_from_db()
    assert campaign.ruleset == "hit_dice"
    assert campaign.name == "A hit_dice campaign"
    assert campaign.options == {"bypass_hp_per_level": 10}


def test_patch_with_the_same_ruleset_is_fine_with_characters(client_for, campaign, referee) -> None:
    client_for(referee).post(
        reverse("api-campaign-characters", kwargs={"campaign_id": campaign.pk}),
        {"name": "Npc"},
        format="json",
    )
    response = client_for(referee).patch(
        detail_url(campaign), {"ruleset": "hit_dice"}, format="json"
    )
    assert response.status_code == 200


def test_patch_without_ruleset_is_for_the_campaigns_ruleset(
    client_for, campaign, referee, player
) -> None:
    """A bot renaming a campaign need not name its ruleset; options sent without one are
    read as the campaign's ruleset's (issue 27)."""
    client_for(player).post(
        reverse("api-campaign-characters", kwargs={"campaign_id": campaign.pk}),
        {"name": "Aldo"},
        format="json",
    )
    renamed = client_for(referee).patch(detail_url(campaign), {"name": "x"}, format="json")
    assert renamed.status_code == 200, renamed.content
    assert (renamed.json()["name"], renamed.json()["ruleset"]) == ("x", "hit_dice")
    optioned = client_for(referee).patch(
        detail_url(campaign), {"options": {"bypass_hp_per_level": 3}}, format="json"
    )
    assert optioned.status_code == 200, optioned.content
    assert optioned.json()["options"] == {"bypass_hp_per_level": 3}
    campaign.refresh_from_db()
    assert (campaign.name, campaign.ruleset, campaign.options) == (
        "x",
        "hit_dice",
        {"bypass_hp_per_level": 3},
    )


@pytest.mark.parametrize(
    "body",
    [
        {"ruleset": "no_such_rules"},
        {"ruleset": "hit_dice", "options": {"no_such_option": 1}},
        {"ruleset": "hit_dice", "options": {"bypass_hp_per_level": "x"}},
        {"ruleset": "hit_dice", "options": {"bypass_hp_per_level": -1}},
        {"ruleset": "hit_dice", "options": {"bypass_hp_per_level": OPTION_INT_LIMIT + 1}},
        {"ruleset": "hit_dice", "name": ""},
        {"options": {"heal_minutes": 30}},  # deckahedron's: not this campaign's
        {"options": {"bypass_hp_per_level": -1}},
        {"name": ""},
    ],
    ids=[
        "ruleset",
        "unknown-option",
        "option-type",
        "negative",
        "absurd",
        "blank-name",
        "another-rulesets-options",
        "negative-without-ruleset",
        "blank-name-without-ruleset",
    ],
)
def test_bad_patch_is_400_and_changes_nothing(client_for, campaign, referee, body) -> None:
    response = client_for(referee).patch(detail_url(campaign), body, format="json")
    assert response.status_code == 400
    fresh = Campaign.objects.get(pk=campaign.pk)
    assert (fresh.name, fresh.ruleset, fresh.options) == (
        campaign.name,
        campaign.ruleset,
        campaign.options,
    )


def test_player_cannot_patch(client_for, campaign, player) -> None:
    response = client_for(player).patch(
        detail_url(campaign), {"ruleset": "hit_dice", "name": "Mine"}, format="json"
    )
    assert response.status_code == 403
    campaign.refresh_from_db()
    assert campaign.name == "A hit_dice campaign"


# -- invites and joining ---------------------------------------------------------------
def test_referee_creates_invites(client_for, campaign, referee) -> None:
    url = reverse("api-invites", kwargs={"campaign_id": campaign.pk})
    first = client_for(referee).post(url)
    second = client_for(referee).post(url)
    assert first.status_code == second.status_code == 201
    assert {"code", "id", "expires_at", "single_use", "revoked", "usable"} <= set(first.json())
    assert first.json()["code"] != second.json()["code"]
    assert set(Invite.objects.filter(campaign=campaign).values_list("code", flat=True)) == {
        first.json()["code"],
        second.json()["code"],
    }


def test_join_makes_a_player(client_for, campaign, referee, outsider) -> None:
    code = (
        client_for(referee)
        .post(reverse("api-invites", kwargs={"campaign_id": campaign.pk}))
        .json()["code"]
    )
    response = client_for(outsider).post(
        reverse("api-campaign-join"), {"code": code}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["id"] == campaign.pk
    assert response.json()["my_role"] == "player"
    assert Membership.objects.get(campaign=campaign, user=outsider).role == Role.PLAYER
    # now a member: the campaign is visible
    assert client_for(outsider).get(detail_url(campaign)).status_code == 200


def test_joining_twice_keeps_one_membership(client_for, campaign, referee, outsider) -> None:
    code = (
        client_for(referee)
        .post(reverse("api-invites", kwargs={"campaign_id": campaign.pk}))
        .json()["code"]
    )
    for _ in range(2):
        response = client_for(outsider).post(
            reverse("api-campaign-join"), {"code": f"  {code} "}, format="json"
        )
        assert response.status_code == 200
    assert Membership.objects.filter(campaign=campaign, user=outsider).count() == 1


def test_a_referee_who_joins_stays_referee(client_for, campaign, referee) -> None:
    code = (
        client_for(referee)
        .post(reverse("api-invites", kwargs={"campaign_id": campaign.pk}))
        .json()["code"]
    )
    response = client_for(referee).post(reverse("api-campaign-join"), {"code": code}, format="json")
    assert response.status_code == 200
    assert response.json()["my_role"] == "referee"
    assert Membership.objects.get(campaign=campaign, user=referee).role == Role.REFEREE


@pytest.mark.parametrize(
    "body",
    [{"code": "not-a-code"}, {"code": ""}, {}, {"code": "x" * 33}, {"code": ["a"]}],
    ids=["unknown", "blank", "missing", "too-long", "list"],
)
def test_bad_code_is_400(client_for, campaign, outsider, body) -> None:
    before = Membership.objects.count()
    response = client_for(outsider).post(reverse("api-campaign-join"), body, format="json")
    assert response.status_code == 400
    assert "code" in response.json()
    assert Membership.objects.count() == before


def test_no_character_is_created_by_joining(client_for, campaign, referee, outsider) -> None:
    code = (
        client_for(referee)
        .post(reverse("api-invites", kwargs={"campaign_id": campaign.pk}))
        .json()["code"]
    )
    client_for(outsider).post(reverse("api-campaign-join"), {"code": code}, format="json")
    assert not Character.objects.exists()
