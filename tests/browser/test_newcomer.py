"""A newcomer's first hour (issue 12): each bug found walking through the pages, in a
real browser, as referee and as player. Two tests run ``make run``'s embedded mode in
its own process (tests/browser/embedded.py): its live clock ticker and error pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from campaigns.models import Campaign, Membership, Role
from campaigns.services import campaign_create, invite_create
from characters.models import Character
from rules.engine.rulesets.hit_dice import MAJOR_WOUND_PLACEHOLDER
from rules.log.models import Resolution
from rules.play.services import character_create, resolution_answer_choice, resolution_create_action
from tests.browser.conftest import DESKTOP, log_in
from tests.browser.embedded import EmbeddedServer, start_embedded, stop_embedded

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long pass phrase 42"


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    server = start_embedded(Path(tmp_path_factory.mktemp("embedded")))
    yield server
    stop_embedded(server)


def embedded_page(browser: Browser, server: EmbeddedServer, username: str) -> Page:
    context = browser.new_context(viewport=DESKTOP, base_url=server.url)
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, username, server.logins[username])
    return page


def hit_dice_campaign(referee, player, **sheet):
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    aldo = character_create(membership=membership, name="Aldo", sheet={"hp": 10, **sheet})
    return campaign, aldo


def act(character: Character, referee, action: str, **params) -> None:
    resolution_create_action(
        character_id=character.pk, actor=referee, by_referee=True, action=action, params=params
    )


# -- 1. the live clock runs under make run -------------------------------------------------
@pytest.mark.once  # make run's own SQLite server, whatever the configuration
def test_live_clock_runs_with_real_time_in_embedded_mode(browser, embedded):
    page = embedded_page(browser, embedded, "referee")
    page.get_by_role("link", name=re.compile("Hit dice")).first.click()
    clock = page.locator("#clock-display")
    start = clock.inner_text()
    page.get_by_label("Run with real time").select_option(label="1 day per minute")
    page.get_by_role("button", name="Set", exact=True).click()
    expect(page.locator("[data-clock-live-state]")).to_contain_text("Running")
    # 1 day per minute is 24 in-game minutes a second: the ticker moves it, no one else.
    expect(clock).not_to_have_text(start, timeout=15_000)
    moved = clock.inner_text()
    expect(clock).not_to_have_text(moved, timeout=15_000)  # and keeps it moving
    page.context.close()


# -- 9. the app's own error pages, in every mode; a favicon ------------------------------------
@pytest.mark.once
def test_embedded_mode_shows_the_apps_own_error_pages_and_a_favicon(browser, embedded):
    page = embedded_page(browser, embedded, "player1")
    response = page.goto("/no/such/page/")
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", name="Nothing here")).to_be_visible()
    expect(page.locator("body")).not_to_contain_text("URLconf")
    expect(page.locator("body")).not_to_contain_text("DEBUG = True")
    # a form sent without its CSRF token: the app's 403 page, in words
    refused = page.request.post(f"{embedded.url}/join/", form={"code": "x"})
    assert refused.status == 403
    assert "Not yours to do" in refused.text() and "Reload the page" in refused.text()
    assert "CSRF verification" not in refused.text()
    icon = page.request.get(f"{embedded.url}/favicon.ico")
    assert icon.status == 200 and "svg" in icon.headers["content-type"]
    page.context.close()


# -- 2. the invite notice shows where the link was made ----------------------------------------
def test_invite_notice_shows_beside_the_new_link_not_on_the_next_page(new_page, referee, player):
    campaign = campaign_create(user=referee, name="The Deep Deck", ruleset="deckahedron")
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_role("button", name="Create an invite link").click()
    expect(page.locator("#invite-box")).to_contain_text("New invite link ready")
    page.get_by_role("link", name="My campaigns").first.click()
    expect(page.get_by_role("heading", name="My campaigns")).to_be_visible()
    expect(page.locator("body")).not_to_contain_text("New invite link ready")


# -- 3. a dead character's sheet offers only what can be done ---------------------------------
def test_dead_characters_sheet_offers_nothing_and_says_why(new_page, referee, player):
    _, aldo = hit_dice_campaign(referee, player, state="dead")
    page = new_page()
    log_in(page, "player")
    page.goto(f"/characters/{aldo.pk}/")
    expect(page.locator(".badge-big")).to_have_text("dead")
    actions = page.locator(".actions-panel")
    expect(actions.locator("form.action-form")).to_have_count(0)
    expect(actions.get_by_role("button", name="Short rest")).to_have_count(0)
    expect(actions).to_contain_text("The character is dead.")
    expect(actions).to_contain_text("Not possible now: Take damage, Short rest")


# -- 4. dying asks first --------------------------------------------------------------------
def test_dying_asks_for_confirmation_first(new_page, referee, player, scripted_dice):
    _, aldo = hit_dice_campaign(referee, player)
    scripted_dice([1, 20])  # 12 on 10 hp: the strength save fails, a choice (HD-4, G-3)
    act(aldo, referee, "damage", amount=12)
    page = new_page()
    log_in(page, "player")
    page.goto(f"/characters/{aldo.pk}/")
    asked: list[str] = []

    def dismiss(dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.get_by_role("button", name="Die outright").click()
    expect(page.locator("#choice")).to_be_visible()
    assert asked and "Die outright?" in asked[0]
    aldo.refresh_from_db()
    assert aldo.pending_choice is not None and aldo.sheet["state"] != "dead"

    page.get_by_role("button", name=re.compile("^Take a major wound")).click()
    expect(page.locator("#choice")).to_have_count(0)
    versions = Resolution.objects.filter(character=aldo).count()
    page.locator("#action-die_of_wounds summary").click()
    page.once("dialog", dismiss)
    page.locator("#action-die_of_wounds button[type=submit]").click()
    assert len(asked) == 2 and "die of their major wounds" in asked[1]
    page.wait_for_timeout(500)
    assert Resolution.objects.filter(character=aldo).count() == versions  # nothing sent
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#action-die_of_wounds button[type=submit]").click()
    expect(page.locator(".badge-big")).to_have_text("dead")


# -- 5. an invite survives signing up ---------------------------------------------------------
def test_signing_up_from_an_invite_lands_in_the_campaign(new_page, referee):
    campaign = campaign_create(user=referee, name="The Salt Marsh", ruleset="hit_dice")
    invite = invite_create(campaign=campaign, user=referee)
    page = new_page()
    page.goto(f"/join/{invite.code}/")
    expect(page).to_have_url(re.compile(r"/login/"))
    page.locator("header").get_by_role("link", name="Sign up").click()  # the top bar's
    page.get_by_label("Username").fill("wren")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="The Salt Marsh")).to_be_visible()
    page.get_by_role("button", name="Join as a player").click()
    expect(page.get_by_role("heading", name="Create your character")).to_be_visible()
    assert Membership.objects.filter(campaign=campaign, user__username="wren").exists()


# -- 7. the clock-stop message says it once, in words ----------------------------------------
def test_clock_stop_message_is_said_once_in_plain_words(new_page, referee, player, scripted_dice):
    campaign, aldo = hit_dice_campaign(referee, player, hp=9)
    scripted_dice([20, 20])  # overflow 3, DC 23: strength passes, a minor wound
    act(aldo, referee, "damage", amount=12)
    act(aldo, referee, "describe_wound", wound=1, description="Festering cut", worsens_every=30)
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    scripted_dice([1, 20])  # the worsening's strength save fails: a choice stops the clock
    page.get_by_role("button", name="+1 h").click()
    status = page.locator("#clock-status")
    expect(status).to_contain_text("The clock stopped at Day 1, 00:30", timeout=5000)
    said = status.inner_text()
    assert said.count("Day 1, 00:30") == 1 and "clock stops" not in said
    assert "wound_worsens" not in said and "_" not in said
    assert "Aldo has a choice to make after “wound 1 worsens”" in said


# -- 10. a player with a character is not asked to create one ---------------------------------
def test_player_with_a_character_is_not_asked_to_create_one(new_page, referee, player):
    campaign, aldo = hit_dice_campaign(referee, player)
    page = new_page()
    log_in(page, "player")
    page.goto(f"/campaigns/{campaign.pk}/")
    expect(page.get_by_role("heading", name="Your character")).to_be_visible()
    expect(page.get_by_role("heading", name="Create your character")).to_have_count(0)
    page.get_by_role("link", name="Open Aldo's sheet").click()
    expect(page.get_by_role("heading", name=re.compile("^Aldo"))).to_be_visible()
    # a newcomer with none is still asked
    other = Campaign.objects.get(pk=campaign.pk)
    Character.objects.filter(pk=aldo.pk).delete()
    page.goto(f"/campaigns/{other.pk}/")
    expect(page.get_by_role("heading", name="Create your character")).to_be_visible()


# -- 8. an old school sheet shows what matters -------------------------------------------------
def test_old_school_sheet_shows_injuries_and_the_penalty_in_force(
    new_page, referee, player, scripted_dice
):
    campaign = campaign_create(user=referee, name="Barrow Downs", ruleset="old_school")
    membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    dorn = character_create(membership=membership, name="Dorn", sheet={"race": "dwarf"})
    scripted_dice([7] + [3] * 20)  # 9 damage on 6 wounds: -3, critical injury 1d10+3
    act(dorn, referee, "damage", amount=9)
    dorn.refresh_from_db()
    injury = Resolution.objects.filter(character=dorn).latest("version").outcome
    described = injury["critical_injury"]["description"]
    assert dorn.sheet["wounds"] == -3 and dorn.sheet["state"] != "dead"  # alive below 0
    # a week without sleep: -7 to all rolls (set by hand: a week of clock is slow)
    sheet = dorn.sheet
    sheet["conditions"]["sleep_deprived_days"] = 7
    sheet["penalties"]["rolls"] = -7
    Character.objects.filter(pk=dorn.pk).update(sheet=sheet)

    page = new_page()
    log_in(page, "referee")
    page.goto(f"/characters/{dorn.pk}/")
    picture = page.locator(".sheet-picture")
    expect(picture.get_by_role("heading", name="Critical injuries")).to_be_visible()
    expect(picture).to_contain_text(described)
    strength = picture.locator("tr", has_text="Strength")
    expect(strength.locator("td").last).to_contain_text("-7")
    expect(picture).to_contain_text("-7 to all rolls from lack of sleep")
    page.locator("#action-damage summary").click()
    help_text = page.locator("#action-damage .help").first
    expect(help_text).to_contain_text("once below 0")
    expect(help_text).not_to_contain_text("any damage below 0 kills")


# -- 6. edit forms start from the values in force ----------------------------------------------
def test_describing_a_wound_again_starts_from_its_current_values(
    new_page, referee, player, scripted_dice
):
    _, aldo = hit_dice_campaign(referee, player, hp=9, level=3, hit_dice=3)
    for amount in (12, 3):  # two minor wounds: overflow 3 each, the saves pass
        scripted_dice([20, 20])
        act(aldo, referee, "damage", amount=amount)
    act(aldo, referee, "describe_wound", wound=2, description="Gash", worsens_every=30)
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/characters/{aldo.pk}/")
    page.locator("#action-describe_wound summary").click()
    form = page.locator("#action-describe_wound")
    form.locator("select[name='p.wound']").select_option("2")
    expect(form.locator("[name='p.description']")).to_have_value("Gash")
    expect(form.get_by_label("Worsens every (minutes)")).to_have_value("30")
    form.locator("[name='p.description']").fill("Gash, now stitched badly")
    form.locator("button[type=submit]").click()
    expect(page.locator("#live .notice")).to_contain_text("Gash, now stitched badly")
    expect(page.locator("#live .notice")).not_to_contain_text("no longer worsens")
    aldo.refresh_from_db()
    wound = next(w for w in aldo.sheet["wounds"] if w["id"] == 2)
    assert (wound["description"], wound["worsens_every"]) == ("Gash, now stitched badly", 30)


def test_a_major_wound_awaiting_its_description_is_a_placeholder_not_text(
    new_page, referee, player, scripted_dice
):
    """Issue 29: typing a major wound's description starts from an empty box; the words
    "awaiting the referee's description" are the box's placeholder, not text to append to."""
    _, aldo = hit_dice_campaign(referee, player, hp=9, level=3, hit_dice=3)
    scripted_dice([1, 1])  # overflow 3, the strength injury save fails: death or a major wound
    act(aldo, referee, "damage", amount=12)
    aldo.refresh_from_db()
    choice = aldo.pending_choice
    assert choice is not None
    major = next(o["key"] for o in choice["options"] if o["key"] != "death")
    resolution_answer_choice(
        character_id=aldo.pk, actor=referee, by_referee=True, choice_id=choice["id"], option=major
    )
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/characters/{aldo.pk}/")
    page.locator("#action-describe_wound summary").click()
    description = page.locator("#action-describe_wound [name='p.description']")
    expect(description).to_have_value("")
    expect(description).to_have_attribute("placeholder", MAJOR_WOUND_PLACEHOLDER)
    description.fill("Shattered knee")
    page.locator("#action-describe_wound button[type=submit]").click()
    expect(page.locator("#live .notice")).to_contain_text("Shattered knee")
    aldo.refresh_from_db()
    assert aldo.sheet["wounds"][-1]["description"] == "Shattered knee"
