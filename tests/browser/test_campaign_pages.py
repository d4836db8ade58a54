"""The pages of issue 13 in a real browser (each audited with axe as it is left): the
party action, the whole log, campaign settings and invite links, a character's edit
page, the tables with their preview."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaigns.models import Invite, Membership
from campaigns.services import campaign_create
from rules.log.models import Resolution
from rules.play.services import character_create
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def school(referee, player, other_player):
    campaign = campaign_create(user=referee, name="Salt Road", ruleset="old_school")
    for user, name in ((player, "Dorn"), (other_player, "Pell")):
        membership = Membership.objects.create(campaign=campaign, user=user, role="player")
        character_create(membership=membership, name=name, sheet={"max_wounds": 8})
    return campaign


def test_the_referee_chooses_who_plays_a_character(new_page, school, make_user, player):
    """Issue 29: the edit page's "Played by" list, the referee's only, said in words."""
    alice = make_user("alice")
    Membership.objects.create(campaign=school, user=alice, role="player")
    pell = school.characters.get(name="Pell")
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/characters/{pell.pk}/edit/")
    played_by = page.get_by_role("combobox", name="Played by")
    expect(played_by).to_have_value(str(pell.owner_id))
    expect(played_by.locator("option")).to_have_text(
        ["referee (referee)", "player", "other_player", "alice"]
    )
    played_by.select_option(label="alice")
    page.get_by_role("button", name="Change who plays Pell").click()
    expect(
        page.get_by_role("status").filter(has_text="Pell is now played by alice.")
    ).to_be_visible()
    expect(page.get_by_role("combobox", name="Played by")).to_have_value(str(alice.pk))
    pell.refresh_from_db()
    assert pell.owner_id == alice.pk
    assert Resolution.objects.filter(character=pell, action="owner").count() == 1

    theirs = new_page()
    log_in(theirs, "player")
    theirs.goto(f"/characters/{school.characters.get(name='Dorn').pk}/edit/")
    expect(theirs.get_by_role("heading", name="Edit Dorn")).to_be_visible()
    expect(theirs.get_by_role("combobox", name="Played by")).to_have_count(0)  # the referee's only


def test_party_action_and_the_log(new_page, school):
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{school.pk}/")
    # Select on the dashboard, then one form for them all.
    page.get_by_role("checkbox", name="Pell").uncheck()
    page.locator("#pa-action").select_option(value="search")
    page.get_by_role("button", name="Next: the action's details").click()
    expect(page.get_by_role("checkbox", name="Pell")).not_to_be_checked()
    expect(page.get_by_role("checkbox", name="Dorn")).to_be_checked()
    page.get_by_label("Squares").fill("3")
    page.get_by_role("button", name="for the chosen characters").click()
    expect(page.get_by_role("heading", name="Done")).to_be_visible()
    assert Resolution.objects.filter(campaign=school, action="search").count() == 1

    log = new_page()
    log_in(log, "referee")
    log.goto(f"/campaigns/{school.pk}/log/")
    log.get_by_label("Action").select_option(value="search")
    log.get_by_role("button", name="Show").click()
    expect(log.locator(".log-entry")).to_have_count(1)
    expect(log.locator(".log-entry").first).to_contain_text("took 30 minutes")


def test_settings_invites_and_editing(new_page, school):
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{school.pk}/settings/")
    page.get_by_label("For one person only").check()
    page.get_by_role("button", name="Make an invite link").click()
    invite = Invite.objects.get(campaign=school)
    assert invite.single_use
    page.get_by_role("button", name=f"Revoke {invite.code}").click()
    expect(page.locator(".invites")).to_contain_text("was revoked: it lets nobody in")
    expect(page.locator(".invites")).not_to_contain_text("Ask your referee")

    edit = new_page()
    log_in(edit, "player")
    dorn = school.characters.get(name="Dorn")
    edit.goto(f"/characters/{dorn.pk}/")
    edit.get_by_role("link", name="Edit Dorn").click()
    edit.get_by_role("textbox", name="Name").fill("Dorn Ironhand")
    edit.get_by_role("button", name="Rename").click()
    expect(edit.get_by_role("heading", name="Edit Dorn Ironhand")).to_be_visible()

    tables = new_page()
    log_in(tables, "referee")
    tables.goto(f"/campaigns/{school.pk}/tables/diseases/")
    tables.get_by_text("Advanced: the table as JSON").click()
    tables.get_by_label("The table, as JSON").fill('{"Pox": {"interval_minutes": 0}}')
    tables.locator(".table-json").get_by_role("button", name="Check and preview").click()
    expect(tables.get_by_role("alert")).to_be_visible()
