"""The battle board in a real browser: the referee runs a warband battle while a player
watches it live.

Two warbands of three; the referee reports an attack's d20 in a unit's quick form, the
unit is drawn stunned (its icon, its colour and its word) for the referee and, within
a few seconds and without a reload, for the player; the next-phase button walks the
first warband's turn and the second warband's upkeep recovers the unit to dazed; the
rout meter says when rout checks are due. Screenshots at laptop and phone width go to
docs/screenshots/ (README), and the board must not scroll sideways on a phone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from rules.battles.services import battle_begin
from rules.play.services import character_create
from tests.browser.conftest import DESKTOP, PHONE, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"


def build(referee, player):
    campaign = campaign_create(user=referee, name="The Broken Bridge", ruleset="warband")
    Membership.objects.create(campaign=campaign, user=player, role="player")
    ref = Membership.objects.get(campaign=campaign, user=referee)
    units = {}
    for owner, warband, names in (
        (player, "Red Hand", ("Vessa the Red", "Oskar", "Brannoc")),
        (referee, "Grey Crows", ("Crow Captain", "Hookbill", "Tallow")),
    ):
        for index, name in enumerate(names):
            sheet = {"warband": warband, "max_wounds": 3 if index == 0 else 1}
            units[name] = character_create(
                membership=ref, name=name, sheet=sheet, owner_id=owner.pk
            )
    battle_begin(campaign_id=campaign.pk, warbands=["Red Hand", "Grey Crows"], actor=referee)
    return campaign, units


def unit_card(page: Page, character: Character):
    return page.locator(f"#unit-{character.pk}")


def injury_check(page: Page, character: Character, d20: int, attack: str = "Melee") -> None:
    card = unit_card(page, character)
    card.get_by_label("Attack d20").fill(str(d20))
    card.get_by_label("Attack", exact=True).select_option(label=attack)
    card.get_by_role("button", name="Injury check").click()


def test_the_referee_runs_a_battle_and_the_player_watches_it_live(new_page, referee, player):
    campaign, units = build(referee, player)
    board = f"/campaigns/{campaign.pk}/battle/"
    ref = new_page()
    log_in(ref, "referee")
    ref.goto(f"/campaigns/{campaign.pk}/")
    ref.get_by_role("link", name="Battle board").click()
    expect(ref.get_by_role("heading", name="Battle board")).to_be_visible()
    expect(ref.locator("[data-turn]")).to_have_text("1")
    expect(ref.locator("[data-active]")).to_have_text("Red Hand")
    expect(ref.locator(".phase.is-current")).to_have_text("Upkeep")

    watcher = new_page()
    log_in(watcher, "player")
    watcher.goto(board)
    expect(watcher.get_by_role("button", name="Next phase")).to_have_count(0)

    # The Crow Captain (3 wounds) takes two hits on its wounds, then is stunned.
    captain, hookbill = units["Crow Captain"], units["Hookbill"]
    injury_check(ref, captain, 18)
    expect(unit_card(ref, captain).locator(".unit-wounds")).to_have_attribute(
        "aria-label", "Wounds: 2 of 3"
    )
    injury_check(ref, hookbill, 16, "Ranged")
    stunned = unit_card(ref, hookbill)
    expect(stunned.locator(".state-word")).to_have_text("Stunned")
    expect(stunned.locator("svg.icon")).to_have_attribute("data-icon", "star")
    colour = stunned.locator(".state-word").evaluate("e => getComputedStyle(e).color")
    fit_colour = (
        unit_card(ref, units["Tallow"])
        .locator(".state-word")
        .evaluate("e => getComputedStyle(e).color")
    )
    assert colour != fit_colour
    expect(ref.locator(".notice")).to_contain_text("Ranged injury check on 16: stunned")

    # The player's board shows it without a reload (the board polls every 2 s; the wait
    # is long for a machine busy with the drills beside it).
    expect(unit_card(watcher, hookbill).locator(".state-word")).to_have_text(
        "Stunned", timeout=30_000
    )
    expect(unit_card(watcher, hookbill)).not_to_contain_text("Wounds")  # not theirs

    # A bad d20 is refused in words and changes nothing.
    version = Character.objects.get(pk=captain.pk).version
    card = unit_card(ref, captain)
    card.get_by_label("Attack d20").evaluate("e => e.removeAttribute('max')")
    injury_check(ref, captain, 21)
    expect(unit_card(ref, captain).locator(".form-error")).to_have_text(
        "The attack's d20 must be from 1 to 20."
    )
    assert Character.objects.get(pk=captain.pk).version == version

    # Red Hand's five phases, then the Grey Crows' upkeep: the stunned unit is dazed.
    for expected in ("Move", "Ranged", "Melee", "End"):
        ref.get_by_role("button", name="Next phase").click()
        expect(ref.locator(".phase.is-current")).to_have_text(expected)
    ref.get_by_role("button", name="Next phase").click()
    expect(ref.locator("[data-active]")).to_have_text("Grey Crows")
    expect(unit_card(ref, hookbill).locator(".state-word")).to_have_text("Dazed")

    # Two of three Crows down: their rout checks are due. The referee types Tallow's d20
    # first, then sends Hookbill's check: the board that comes back keeps what was typed.
    tallow = unit_card(ref, units["Tallow"])
    tallow.get_by_label("Attack d20").fill("19")
    injury_check(ref, hookbill, 2)  # melee on a dazed unit: incapacitated (WB-4)
    expect(unit_card(ref, hookbill).locator(".state-word")).to_have_text("Incapacitated")
    expect(unit_card(ref, units["Tallow"]).get_by_label("Attack d20")).to_have_value("19")
    unit_card(ref, units["Tallow"]).get_by_role("button", name="Injury check").click()
    expect(unit_card(ref, units["Tallow"]).locator(".state-word")).to_have_text("Incapacitated")
    crows = ref.locator(".warband", has_text="Grey Crows")
    expect(crows.locator(".rout-text")).to_have_text("Rout checks due")
    expect(unit_card(watcher, hookbill).locator(".state-word")).to_have_text(
        "Incapacitated", timeout=30_000
    )

    SHOTS.mkdir(parents=True, exist_ok=True)
    for viewport, suffix in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = new_page(viewport)
        log_in(page, "referee")
        page.goto(board)
        page.wait_for_load_state("networkidle")
        width = page.viewport_size["width"] if page.viewport_size else 0
        assert page.evaluate("document.documentElement.scrollWidth") <= width, suffix
        page.screenshot(path=str(SHOTS / f"warband-battle-board-{suffix}.png"), full_page=True)
    assert (SHOTS / "warband-battle-board-desktop.png").stat().st_size > 10_000
