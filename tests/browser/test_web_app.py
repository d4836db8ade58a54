"""The web app in a real browser: a referee and a player, each in their own context.

A referee signs up, creates a campaign and an invite link; a player signs up through
the link, joins and creates a character; the referee damages it and the player's open
sheet shows it within two seconds; the player answers the pending choice; a player
cannot open another player's sheet. The clock's buttons advance the campaign.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import Page, expect

from campaigns.models import Campaign, Membership, Role
from characters.models import Character
from rules.clock.models import ClockJob, ClockJobState
from rules.play.services import character_create, resolution_create_action
from tests.browser.conftest import PHONE, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long pass phrase 42"


def sign_up(page: Page, username: str) -> None:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()


def hp_meter(page: Page):
    return page.locator('[aria-label^="Hit points"]').first


def test_referee_and_player_play_a_campaign(new_page, scripted_dice, other_player):
    # A referee signs up and creates a campaign, choosing its ruleset and an option.
    referee = new_page()
    referee.goto("/signup/")
    sign_up(referee, "rhea")
    expect(referee.get_by_role("heading", name="My campaigns")).to_be_visible()
    referee.get_by_role("link", name="New campaign").click()
    referee.get_by_label("Campaign name").fill("The Salt Marsh")
    referee.get_by_label("Deckahedron").check()
    expect(referee.locator("#options legend")).to_have_text("Options for Deckahedron")
    referee.get_by_label("Hit dice").check()
    expect(referee.locator("#options legend")).to_have_text("Options for Hit dice")
    referee.get_by_label("Bypass hp per level").fill("5")
    referee.get_by_role("button", name="Create campaign").click()
    expect(referee.get_by_role("heading", name="The Salt Marsh")).to_be_visible()
    campaign = Campaign.objects.get(name="The Salt Marsh")
    assert (campaign.ruleset, campaign.options) == ("hit_dice", {"bypass_hp_per_level": 5})

    # ... and an invite link.
    referee.get_by_role("button", name="Create an invite link").click()
    link = referee.get_by_label("Invite link")
    expect(link).to_have_value(re.compile(r"/join/[\w-]+/$"))
    invite_url = link.input_value()

    # A player opens the link, signs up on the way, joins and creates a character.
    player = new_page()
    player.goto(invite_url)
    expect(player).to_have_url(re.compile(r"/login/\?next=/join/"))
    player.locator("#main").get_by_role("link", name="Sign up").click()
    sign_up(player, "wren")
    expect(player.get_by_role("heading", name="The Salt Marsh")).to_be_visible()
    player.get_by_role("button", name="Join as a player").click()
    expect(player.get_by_role("heading", name="Create your character")).to_be_visible()
    player.get_by_label("Name", exact=True).fill("Wren")
    player.get_by_label("Level").fill("2")
    scripted_dice([3, 4])  # starting hp: 2d6 (project ruling HD-P7)
    player.get_by_role("button", name="Create character").click()
    expect(player.get_by_role("heading", name=re.compile("^Wren"))).to_be_visible()
    expect(hp_meter(player)).to_have_attribute("aria-label", "Hit points: 7 of a possible 12")
    wren = Character.objects.get(name="Wren")

    # The referee sees Wren on the dashboard and opens the sheet.
    referee.reload()
    referee.get_by_role("link", name="Wren").click()
    expect(referee.get_by_role("heading", name=re.compile("^Wren"))).to_be_visible()

    # A refused action: the rules' reason shows beside the form, nothing changes.
    referee.get_by_text("Take damage", exact=True).first.click()
    referee.locator("#a-damage-f-p-amount").fill("0")
    referee.locator("#action-damage button[type=submit]").click()
    expect(referee.locator("#err-damage")).to_contain_text("Amount must be at least 1.")
    wren.refresh_from_db()
    assert wren.version == 1

    # The referee damages Wren: overflow 3, strength injury save fails (HD-4, G-3).
    scripted_dice([1, 20])
    referee.locator("#a-damage-f-p-amount").fill("10")
    referee.locator("#action-damage button[type=submit]").click()
    expect(referee.locator("#live .notice")).to_contain_text("Takes 10 damage")
    changed = time.monotonic()
    # The player's open sheet follows by itself within two seconds.
    expect(hp_meter(player)).to_have_attribute(
        "aria-label", "Hit points: 0 of a possible 12", timeout=2000
    )
    prompt = player.locator("#choice")
    expect(prompt).to_contain_text("Your decision", timeout=2000)
    assert time.monotonic() - changed < 2
    expect(prompt).to_contain_text("die outright, or take a major wound?")

    # The player answers the pending choice in the browser.
    player.get_by_role("button", name=re.compile("^Take a major wound")).click()
    expect(player.locator("#choice")).to_have_count(0)
    expect(player.locator('[aria-label^="Major wound marks"]').first).to_have_attribute(
        "aria-label", re.compile("^Major wound marks: 1 of 2")
    )
    expect(player.locator(".log-entry").first).to_contain_text("Chooses a major wound")
    expect(referee.locator(".log-entry").first).to_contain_text(
        "Chooses a major wound", timeout=2000
    )
    wren.refresh_from_db()
    assert wren.pending_choice is None and wren.sheet["major_wound_marks"] == 1

    # Another player's character: listed by name and state, its sheet answers 404.
    Membership.objects.create(campaign=campaign, user=other_player, role=Role.PLAYER)
    bo = character_create(
        membership=Membership.objects.get(campaign=campaign, user=other_player),
        name="Bo",
        sheet={"hp": 4},
    )
    player.goto(f"/campaigns/{campaign.pk}/")
    bo_card = player.locator(".pc-card", has_text="Bo")
    expect(bo_card).to_contain_text("standing")
    expect(bo_card.get_by_role("link")).to_have_count(0)
    response = player.goto(f"/characters/{bo.pk}/")
    assert response is not None and response.status == 404
    expect(player.get_by_role("heading", name="Nothing here")).to_be_visible()


def _campaign_with(referee_user, player_user, name: str = "Aldo"):
    from campaigns.services import campaign_create

    campaign = campaign_create(user=referee_user, name="Harrow Keep", ruleset="hit_dice")
    membership = Membership.objects.create(campaign=campaign, user=player_user, role="player")
    character = character_create(membership=membership, name=name, sheet={"hp": 9})
    return campaign, character


def test_the_clock_buttons_advance_the_campaign(new_page, referee, player):
    campaign, _ = _campaign_with(referee, player)
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    clock = page.locator("#clock-display")
    expect(clock).to_have_text("Day 1, 00:00")
    page.get_by_role("button", name="+1 h").click()
    expect(clock).to_have_text("Day 1, 01:00")
    page.get_by_role("button", name=re.compile("^Next morning")).click()  # the next 06:00
    expect(clock).to_have_text("Day 1, 06:00")
    page.get_by_role("button", name=re.compile("^Next morning")).click()
    expect(clock).to_have_text("Day 2, 06:00")
    page.get_by_label("Custom").fill("2")
    page.get_by_label("Unit").select_option(label="days")
    page.get_by_role("button", name="Advance").click()
    expect(clock).to_have_text("Day 4, 06:00")
    campaign.refresh_from_db()
    assert campaign.clock == 3 * 24 * 60 + 6 * 60
    assert ClockJob.objects.filter(campaign=campaign, state=ClockJobState.DONE).count() == 4
    # An empty custom amount is refused in the page, before any request.
    page.get_by_label("Custom").fill("")
    page.get_by_role("button", name="Advance").click()
    expect(page.locator("[data-clock-error]")).to_have_text(
        "Enter how far to advance: a whole number above 0."
    )


def test_a_clock_stopped_by_a_choice_is_shown_and_resumed(new_page, referee, player, scripted_dice):
    campaign, aldo = _campaign_with(referee, player)
    for action, params in (
        ("damage", {"amount": 12}),  # overflow 3, DC 23: strength passes, a minor wound
        (
            "describe_wound",
            {"wound": 1, "description": "Festering cut", "worsens_every": 30},
        ),
    ):
        if action == "damage":
            scripted_dice([20, 20])
        resolution_create_action(
            character_id=aldo.pk, actor=referee, by_referee=True, action=action, params=params
        )
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    expect(page.locator(".timeline")).to_contain_text("Wound worsens (wound 1)")
    scripted_dice([1, 20])  # the worsening's strength save fails: a choice stops the clock
    page.get_by_role("button", name="+1 h").click()
    status = page.locator("#clock-status")
    expect(status).to_contain_text("The clock stopped at Day 1, 00:30", timeout=5000)
    expect(page.locator(".pc-card.is-waiting")).to_contain_text("Waiting on a choice")
    page.get_by_role("link", name="Answer the choice").click()
    page.once("dialog", lambda dialog: dialog.accept())  # dying asks first
    page.get_by_role("button", name="Die outright").click()
    expect(page.locator("#choice")).to_have_count(0)
    page.go_back()
    page.reload()
    # answered: the banner no longer asks for it (issue 29)
    expect(status).to_contain_text("the choice it waited for is answered")
    expect(status.get_by_role("link", name="Answer the choice")).to_have_count(0)
    page.get_by_role("button", name="Resume the clock").click()
    expect(page.locator("#clock-display")).to_have_text("Day 1, 01:00")
    expect(page.locator("#clock-status")).not_to_contain_text("stopped")


def test_keyboard_only_use_of_an_action(new_page, referee, player):
    campaign, aldo = _campaign_with(referee, player)
    page = new_page()
    log_in(page, "player")
    page.goto(f"/characters/{aldo.pk}/")
    summary = page.locator("#action-long_rest summary")
    summary.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#action-long_rest")).to_have_attribute("open", "")
    page.keyboard.press("Tab")
    expect(page.locator("#action-long_rest button[type=submit]")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#live .notice")).to_contain_text("Night's sleep")
    aldo.refresh_from_db()
    assert aldo.version == 2


def test_phone_width_keeps_everything_reachable(new_page, referee, player):
    campaign, aldo = _campaign_with(referee, player)
    page = new_page(PHONE)
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    page.goto(f"/characters/{aldo.pk}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    expect(page.get_by_text("Take damage", exact=True).first).to_be_visible()


UNLABELLED_CONTROLS = """
() => [...document.querySelectorAll('input, select, textarea, button')]
  .filter(el => el.type !== 'hidden' && el.offsetParent !== null)
  .filter(el => {
    if (el.tagName === 'BUTTON') return !(el.innerText.trim() || el.getAttribute('aria-label'));
    return !(el.labels && el.labels.length) && !el.getAttribute('aria-label');
  })
  .map(el => el.outerHTML.slice(0, 120))
"""
PICTURES_WITHOUT_TEXT = """
() => [...document.querySelectorAll('[role=img]')]
  .filter(el => !(el.getAttribute('aria-label') || '').trim())
  .map(el => el.outerHTML.slice(0, 120))
"""


def test_every_control_has_a_label_and_every_picture_a_text(new_page, referee, player):
    campaign, aldo = _campaign_with(referee, player)
    page = new_page()
    log_in(page, "referee")
    for path in (f"/campaigns/{campaign.pk}/", f"/characters/{aldo.pk}/", "/campaigns/new/"):
        page.goto(path)
        for details in page.locator("details.action").all():
            details.locator("summary").click()  # open every action form
        assert page.evaluate(UNLABELLED_CONTROLS) == [], path
        assert page.evaluate(PICTURES_WITHOUT_TEXT) == [], path


def test_referee_undo_and_live_clock_in_the_browser(new_page, referee, player):
    campaign, aldo = _campaign_with(referee, player)
    resolution_create_action(
        character_id=aldo.pk, actor=player, by_referee=False, action="long_rest", params={}
    )
    page = new_page()
    page.on("dialog", lambda dialog: dialog.accept())  # hx-confirm asks first
    log_in(page, "referee")
    page.goto(f"/characters/{aldo.pk}/")
    page.get_by_role("button", name="Undo this").click()
    expect(page.locator(".log-entry").first).to_contain_text("Aldo: Referee undid: Night's sleep")
    expect(page.locator(".log-entry").first).not_to_contain_text("Referee undid: Aldo")
    aldo.refresh_from_db()
    assert aldo.sheet["hp"] == 9 and aldo.version == 3

    # Undo any number of steps back to a point, and redo (issue 13).
    for amount in (1, 2):
        resolution_create_action(
            character_id=aldo.pk,
            actor=player,
            by_referee=False,
            action="damage",
            params={"amount": amount},
        )
    page.reload()
    page.get_by_role("button", name="Undo back to here").click()
    expect(page.locator(".log-undone")).to_have_count(3)  # the night's sleep and both hits
    expect(page.locator(".notice")).to_have_text("Aldo: Referee undid 2 entries.")
    aldo.refresh_from_db()
    assert aldo.sheet["hp"] == 9
    page.get_by_role("button", name="Redo what was undone last").click()
    expect(page.locator(".log-entry").first).to_contain_text("Aldo: Referee redid: Takes 1")
    expect(page.locator(".log-undone")).to_have_count(2)
    aldo.refresh_from_db()
    assert aldo.sheet["hp"] == 8

    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_label("Run with real time").select_option(label="1 hour per minute")
    page.get_by_role("button", name="Set").click()
    expect(page.locator("[data-clock-live-state]")).to_have_text(
        "Running: the server advances the clock every minute."
    )
    campaign.refresh_from_db()
    assert campaign.live_ratio == 60


def test_a_long_advance_shows_its_progress(new_page, referee, player):
    """The job is reported running for a few polls (as a Celery worker would report it)."""
    campaign, _ = _campaign_with(referee, player)
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    seen: list[str] = []

    def running_first(route):
        if len(seen) < 3:
            seen.append(route.request.url)
            body = {
                "state": "running",
                "done": len(seen) * 3,
                "total": 12,
                "minutes_done": len(seen) * 120,
                "minutes_total": 480,
                "clock_display": f"Day 1, 0{len(seen) * 2}:00",
            }
            route.fulfill(status=200, content_type="application/json", body=json.dumps(body))
        else:
            route.continue_()

    page.route(re.compile(r"/api/v1/campaigns/\d+/clock/jobs/\d+/$"), running_first)
    page.get_by_role("button", name="+8 h").click()
    bar = page.locator("#clock-progress-bar")
    expect(page.locator("[data-clock-label]")).to_have_text(
        re.compile(r"Applying effects: \d+ done so far, the clock at Day 1, 0\d:00")
    )
    expect(bar).to_have_attribute("max", "480")
    expect(page.locator("#clock-display")).to_have_text("Day 1, 08:00")
    expect(page.locator("[data-clock-progress]")).to_be_hidden()
    assert len(seen) == 3
