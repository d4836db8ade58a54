"""A double click acts once (issue 24): on a sheet's action and on a party action. The
page's script holds the button while the request is out; and when a form reaches the
server twice all the same, its one-time key makes the second answer the first one."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Route, expect

from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create
from characters.models import Character
from rules.log.models import Resolution, ResolutionKind
from rules.play.services import character_create
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def party(referee, player, other_player) -> tuple[Campaign, list[Character]]:
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    Campaign.objects.filter(pk=campaign.pk).update(actions_move_clock=False)
    made = []
    for user, name in ((player, "Aldo"), (other_player, "Bo")):
        membership = Membership.objects.create(campaign=campaign, user=user, role="player")
        made.append(
            character_create(
                membership=membership, name=name, sheet={"level": 3, "hit_dice": 3, "hp": 20}
            )
        )
    return campaign, made


def damage_entries(character: Character) -> int:
    return Resolution.objects.filter(
        character=character, kind=ResolutionKind.ACTION, action="damage"
    ).count()


def double_click_sheet_damage(page: Page, character: Character) -> None:
    page.goto(f"/characters/{character.pk}/")
    page.get_by_text("Take damage", exact=True).first.click()
    page.locator("#action-damage").get_by_label("Amount").fill("2")
    page.locator("#action-damage button[type=submit]").dblclick()


def double_click_party_damage(page: Page, campaign: Campaign) -> None:
    page.goto(f"/campaigns/{campaign.pk}/party/?action=damage")
    page.locator(".party-form").get_by_label("Amount").fill("1")
    page.locator(".party-form button[type=submit]").dblclick()


def test_double_clicks_with_the_pages_script_act_once(new_page, party):
    campaign, (aldo, bo) = party
    page = new_page()
    log_in(page, "referee")

    double_click_sheet_damage(page, aldo)
    expect(page.locator("#live .notice")).to_contain_text("Aldo")
    expect(page.locator("#live")).not_to_contain_text("reload the sheet")
    page.wait_for_load_state("networkidle")
    assert damage_entries(aldo) == 1

    double_click_party_damage(page, campaign)
    expect(page.get_by_role("heading", name="Done")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert [damage_entries(c) for c in (aldo, bo)] == [2, 1]


def test_a_form_that_reaches_the_server_twice_acts_once_and_shows_the_first_result(new_page, party):
    """Every form POST of the page is sent to the server twice, one after the other (a
    second click that got through, a proxy's retry), and the page shows the second
    answer: the first result again, never "reload the sheet"."""
    campaign, (aldo, bo) = party
    page = new_page()
    log_in(page, "referee")
    sent: list[str] = []

    def twice(route: Route) -> None:
        if route.request.method != "POST" or "/odds/" in route.request.url:
            route.continue_()
            return
        sent.append(route.request.url)
        route.fetch()  # the first click
        route.fulfill(response=route.fetch())  # the second, whose answer the page shows

    page.route("**/*", twice)
    double_click_sheet_damage(page, aldo)
    expect(page.locator("#live .notice")).to_contain_text("Aldo")
    expect(page.locator("#live")).not_to_contain_text("reload the sheet")
    page.wait_for_load_state("networkidle")
    assert damage_entries(aldo) == 1

    double_click_party_damage(page, campaign)
    expect(page.get_by_role("heading", name="Done")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert [damage_entries(c) for c in (aldo, bo)] == [2, 1]
    assert len(sent) >= 2  # each form went through the route
