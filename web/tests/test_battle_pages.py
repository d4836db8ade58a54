"""The battle board of a warband campaign (web/views/battles.py) through Django's
test client: who sees what, the start form, the next-phase button, quick unit forms
with bad input (400, nothing changed) and refusals (409), the live fragment, and the
after-battle list (recover, roll for scars). The browser test draws it for real."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Campaign
from characters.models import Character
from rules.battles.models import Battle
from rules.battles.services import battle_begin
from rules.log.models import Resolution

HTMX = {"HTTP_HX_REQUEST": "true"}

pytestmark = pytest.mark.django_db


@pytest.fixture
def skirmish(make_campaign):
    return make_campaign("warband")


@pytest.fixture
def units(skirmish, player, other_player, make_unit):
    unit = make_unit
    return {
        "hero": unit(skirmish, player, "Red Hero", "Red", max_wounds=3),
        "archer": unit(skirmish, player, "Red Archer", "Red"),
        "blue": unit(skirmish, other_player, "Blue Blade", "Blue"),
        "blue2": unit(skirmish, other_player, "Blue Bow", "Blue"),
    }


def board(campaign, tail="", **kwargs):
    name = {"": "battle", "live": "battle-live", "start": "battle-start"}.get(tail, tail)
    return reverse(name, kwargs={"campaign_id": campaign.pk, **kwargs})


def unit_url(campaign, character, action):
    return reverse(
        "battle-unit-action",
        kwargs={"campaign_id": campaign.pk, "character_id": character.pk, "action": action},
    )


def unit_html(html, character):
    """The board's drawing of one unit."""
    return html.split(f'id="unit-{character.pk}"')[1].split("</li>")[0]


def world():
    return (
        list(Character.objects.order_by("pk").values_list("pk", "sheet", "version")),
        list(Resolution.objects.order_by("pk").values_list("pk", flat=True)),
        list(
            Battle.objects.order_by("pk").values_list("pk", "turn", "active", "phase", "ended_at")
        ),
    )


def test_the_dashboard_links_the_battle_board_for_warband_campaigns_only(
    skirmish, campaign, web, referee, player
):
    for user in (referee, player):
        page = web(user).get(reverse("campaign", kwargs={"campaign_id": skirmish.pk}))
        assert board(skirmish) in page.content.decode()
    page = web(referee).get(reverse("campaign", kwargs={"campaign_id": campaign.pk}))
    assert "Battle board" not in page.content.decode()
    assert web(referee).get(board(campaign)).status_code == 404  # a hit_dice campaign


def test_outsiders_get_404(skirmish, units, web, outsider):
    assert web(outsider).get(board(skirmish)).status_code == 404
    assert web(outsider).post(board(skirmish, "battle-next")).status_code == 404


def test_the_referee_starts_a_battle_from_the_board(skirmish, units, web, referee):
    client = web(referee)
    page = client.get(board(skirmish)).content.decode()
    assert "No battle under way" in page
    assert 'name="slot1"' in page and 'name="slot2"' in page
    response = client.post(board(skirmish, "start"), {"slot1": "Blue", "slot2": "Red"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "The battle begins." in html
    assert "data-active>Blue<" in html
    assert "Next phase: Move" in html
    battle = Battle.objects.get()
    assert (battle.warbands, battle.turn, battle.phase) == (["Blue", "Red"], 1, "upkeep")


def test_a_start_with_one_warband_is_refused_in_words(skirmish, units, web, referee):
    before = world()
    response = web(referee).post(board(skirmish, "start"), {"slot1": "Red"}, **HTMX)
    assert response.status_code == 400
    assert "A battle has 2 to 12 warbands" in response.content.decode()
    assert world() == before


def test_the_board_draws_each_unit_with_icon_colour_word_and_pips(
    skirmish, units, web, referee, player
):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    client = web(referee)
    client.post(
        unit_url(skirmish, units["archer"], "injury_check"),
        {"p.attack_roll": "16", "p.attack": "melee"},
    )
    html = client.get(board(skirmish)).content.decode()
    archer = unit_html(html, units["archer"])
    assert f'state-stunned" id="unit-{units["archer"].pk}"' in html
    assert 'data-icon="star"' in archer and "Stunned" in archer and "cannot act" in archer
    assert "Wounds: 0 of 1" in archer
    hero = unit_html(html, units["hero"])
    assert 'data-icon="shield"' in hero and "Fighting fit" in hero
    assert hero.count("pip pip-wound on") == 3
    assert "Rout" in html and "rout checks are due at 1" in html  # Red: 2 units -> 1
    # A player sees the board without controls, and wounds of their own units only.
    mine = web(player).get(board(skirmish)).content.decode()
    assert "Next phase" not in mine and "Injury check" not in mine
    assert "Wounds: 3 of 3" in mine
    blue = unit_html(mine, units["blue"])
    assert "Wounds:" not in blue and "Fighting fit" in blue


def test_next_phase_and_recovery_through_the_board(skirmish, units, web, referee):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    client = web(referee)
    client.post(
        unit_url(skirmish, units["blue"], "injury_check"),
        {"p.attack_roll": "15", "p.attack": "ranged"},
    )
    for _ in range(5):  # Red's five phases, then Blue's upkeep
        response = client.post(board(skirmish, "battle-next"), **HTMX)
        assert response.status_code == 200
    html = response.content.decode()
    assert "data-active>Blue<" in html
    assert Character.objects.get(pk=units["blue"].pk).sheet["injury"] == "dazed"
    assert (
        "Recovers at its warband's upkeep"
        in Resolution.objects.filter(character=units["blue"]).latest("version").summary
    )


@pytest.mark.parametrize(
    ("action", "data", "status", "message"),
    [
        (
            "injury_check",
            {"p.attack_roll": "0", "p.attack": "melee"},
            400,
            "The attack&#x27;s d20 must be from 1 to 20.",
        ),
        (
            "injury_check",
            {"p.attack_roll": "21", "p.attack": "melee"},
            400,
            "The attack&#x27;s d20 must be from 1 to 20.",
        ),
        ("injury_check", {"p.attack": "melee"}, 400, "The attack&#x27;s d20 is missing."),
        ("injury_check", {"p.attack_roll": "x", "p.attack": "melee"}, 400, "enter a whole number"),
        (
            "injury_check",
            {"p.attack_roll": "5", "p.attack": "thrown"},
            400,
            "The attack must be one of: melee, ranged, spell.",
        ),
        ("fall", {"p.height_inches": "-2"}, 400, "The fall must be from 0 to 1000 inches."),
        ("ledge_check", {"p.drop_inches": "3"}, 409, "Only a dazed or stunned unit"),
    ],
)
def test_quick_forms_refuse_bad_input_and_change_nothing(
    skirmish, units, web, referee, action, data, status, message
):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    before = world()
    response = web(referee).post(unit_url(skirmish, units["archer"], action), data, **HTMX)
    assert response.status_code == status
    assert message in response.content.decode()
    assert world() == before


def test_players_cannot_use_the_boards_controls(skirmish, units, web, referee, player):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    before = world()
    client = web(player)
    assert client.post(board(skirmish, "battle-next")).status_code == 403
    assert client.post(board(skirmish, "battle-end")).status_code == 403
    data = {"p.attack_roll": "20", "p.attack": "melee"}
    assert client.post(unit_url(skirmish, units["blue"], "injury_check"), data).status_code == 403
    assert world() == before


def test_the_live_fragment_answers_304_by_etag_until_something_changes(
    skirmish, units, web, referee
):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    client = web(referee)
    html = client.get(board(skirmish)).content.decode()
    stamp = html.split("battle/live/?v=")[1].split('"')[0]
    assert f'data-etag="&quot;{stamp}&quot;"' in html
    live = board(skirmish, "live") + "?v=" + stamp
    etag = {"HTTP_IF_NONE_MATCH": f'"{stamp}"', "HTTP_HX_REQUEST": "true"}
    # the session, the user, the stamp with the membership in one query (live_witness)
    with CaptureQueriesContext(connection) as captured:
        unchanged = client.get(live, **etag)
    assert unchanged.status_code == 304 and unchanged.content == b""
    assert len(captured) <= 3, [q["sql"] for q in captured]
    client.post(board(skirmish, "battle-next"))
    fresh = client.get(live, **etag)
    assert fresh.status_code == 200 and fresh["ETag"] != f'"{stamp}"'
    assert client.get(live, HTTP_IF_NONE_MATCH=fresh["ETag"]).status_code == 304


def test_after_the_battle_the_board_offers_recovery_and_scars(skirmish, units, web, referee):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    client = web(referee)
    client.post(
        unit_url(skirmish, units["archer"], "injury_check"),
        {"p.attack_roll": "19", "p.attack": "melee"},
    )
    client.post(
        unit_url(skirmish, units["hero"], "injury_check"),
        {"p.attack_roll": "3", "p.attack": "melee"},
    )
    ended = client.post(board(skirmish, "battle-end"), **HTMX).content.decode()
    assert "The battle is over. Due a roll for scars: Red Archer." in ended
    assert "Roll for scars" in ended and "Recover" in ended
    refused = client.post(unit_url(skirmish, units["archer"], "roll_scars"), **HTMX)
    assert refused.status_code == 409
    assert "the referee must fill it in" in refused.content.decode()
    recovered = client.post(unit_url(skirmish, units["hero"], "recover"), **HTMX)
    assert recovered.status_code == 200
    assert Character.objects.get(pk=units["hero"].pk).sheet["wounds"] == 3


def test_a_warband_campaign_is_created_from_the_page_with_its_phases(web, referee):
    client = web(referee)
    form = client.get(reverse("campaign-options"), {"ruleset": "warband"}).content.decode()
    for phase in ("upkeep", "move", "ranged", "melee", "end"):  # picked, not typed (issue 29)
        assert f'<option value="{phase}" selected>' in form
    response = client.post(
        reverse("campaign-new"),
        {
            "name": "Bridge",
            "ruleset": "warband",
            "opt.phases": "upkeep, shoot, fight , end",
            "opt.rout_threshold_percent": "40",
        },
    )
    assert response.status_code == 302
    campaign = Campaign.objects.get(name="Bridge")
    assert campaign.options == {
        "phases": ["upkeep", "shoot", "fight", "end"],
        "rout_threshold_percent": 40,
    }


def test_phases_that_do_not_run_from_upkeep_to_end_are_refused_in_words(web, referee):
    response = web(referee).post(
        reverse("campaign-new"),
        {"name": "Bridge", "ruleset": "warband", "opt.phases": "move, end"},
    )
    assert response.status_code == 400
    assert "must begin with upkeep and finish with end" in response.content.decode()
    assert not Campaign.objects.exists()


def test_a_units_log_tells_its_battle(skirmish, units, web, referee):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    client = web(referee)
    data = {"p.attack_roll": "15", "p.attack": "melee"}
    client.post(unit_url(skirmish, units["blue"], "injury_check"), data)
    for _ in range(5):
        client.post(board(skirmish, "battle-next"))
    page = client.get(reverse("character", kwargs={"character_id": units["blue"].pk}))
    html = page.content.decode()
    assert "In battle: upkeep" in html
    assert "Recovers at its warband&#x27;s upkeep: stunned to dazed." in html


# -- the unit's sheet and card ------------------------------------------------------------------


def test_a_units_sheet_and_card_draw_its_state(skirmish, units, web, referee, player):
    client = web(referee)
    data = {"p.attack_roll": "16", "p.attack": "ranged"}
    client.post(unit_url(skirmish, units["blue"], "injury_check"), data)
    sheet = client.get(reverse("character", kwargs={"character_id": units["blue"].pk}))
    html = sheet.content.decode()
    assert 'class="pic pic-full state-stunned"' in html
    assert 'data-icon="star"' in html and "Stunned" in html and "cannot act" in html
    assert "Wounds: 0 of 1" in html and "No scars yet." in html
    dashboard = client.get(reverse("campaign", kwargs={"campaign_id": skirmish.pk}))
    cards = dashboard.content.decode()
    assert cards.count('class="pic pic-card state-') == 4
    assert "Wounds: 3 of 3" in cards  # the hero
    # A player sees their own units' sheets and the others' states only.
    party = web(player).get(reverse("campaign", kwargs={"campaign_id": skirmish.pk}))
    page = party.content.decode()
    assert page.count('class="pic pic-card state-') == 2
    assert ">stunned</span>" in page  # Blue Blade's state word on its card


def test_a_unit_is_created_from_the_dashboard_with_its_warband(skirmish, web, player):
    client = web(player)
    url = reverse("character-new", kwargs={"campaign_id": skirmish.pk})
    refused = client.post(url, {"name": "Nobody"})
    assert refused.status_code == 400
    assert "A unit needs the name of its warband." in refused.content.decode()
    created = client.post(url, {"name": "Vessa", "p.warband": "Red", "p.max_wounds": "3"})
    assert created.status_code == 302
    vessa = Character.objects.get(name="Vessa")
    assert (vessa.sheet["warband"], vessa.sheet["wounds"], vessa.sheet["max_wounds"]) == (
        "Red",
        3,
        3,
    )


def test_the_board_costs_the_same_queries_for_any_number_of_units(
    skirmish, units, web, referee, player, make_unit
):
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)

    def count(user: Any) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert web(user).get(board(skirmish)).status_code == 200
        return len(captured)

    before = (count(referee), count(player))
    for number in range(12):
        make_unit(skirmish, player, f"Red {number}", "Red")
    assert (count(referee), count(player)) == before


def test_the_next_upkeep_of_a_warband_ending_in_s_is_written_right(
    skirmish, player, other_player, make_unit, web, referee
):
    """Issue 29: "Grey Crows' upkeep", not "Grey Crows's upkeep"."""
    make_unit(skirmish, player, "Vessa", "Red Hand")
    make_unit(skirmish, other_player, "Crow", "Grey Crows")
    battle_begin(campaign_id=skirmish.pk, warbands=["Red Hand", "Grey Crows"], actor=referee)
    client = web(referee)
    for _ in range(4):  # Red Hand's phases up to its end
        client.post(board(skirmish, "battle-next"))
    html = client.get(board(skirmish)).content.decode()
    assert "Grey Crows&#x27; upkeep" in html
    assert "Crows&#x27;s" not in html
