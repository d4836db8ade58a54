"""The rough edges a referee met walking every ruleset (issue 29), each in a real browser
(every page audited with axe as it is left)."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.management import call_command
from django.utils import timezone
from django.utils.text import slugify
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership, Role
from campaigns.services import campaign_create
from rules.log.models import CampaignTable, Resolution
from rules.play.services import character_create, resolution_create_action
from rules.play.undo import resolution_undo
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _party(referee, player, ruleset: str, *names_and_sheets):
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset=ruleset)
    Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    membership = Membership.objects.get(campaign=campaign, user=referee)
    characters = [
        character_create(membership=membership, name=name, sheet=sheet, owner_id=player.pk)
        for name, sheet in names_and_sheets
    ]
    return campaign, characters


def test_a_party_action_names_whoever_it_left_out(new_page, referee, player):
    campaign, (aldo, bo) = _party(
        referee, player, "hit_dice", ("Aldo", {"hp": 10}), ("Bo", {"hp": 10})
    )
    resolution_create_action(
        character_id=aldo.pk, actor=referee, by_referee=True, action="damage", params={"amount": 3}
    )
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    page.locator("#pa-action").select_option(value="long_rest")
    page.get_by_role("button", name="Next: the action's details").click()
    # Bo waits on a choice: the action leaves him out, and the page says it is him
    bo.pending_choice = {
        "id": "c1",
        "kind": "bypass",
        "who": "referee",
        "prompt": "Pay or suffer?",
        "options": [{"key": "pay", "label": "Pay"}],
        "state": {},
    }
    bo.save(update_fields=["pending_choice"])
    page.get_by_role("button", name="for the chosen characters").click()
    expect(page.get_by_role("heading", name="Done")).to_be_visible()
    expect(page.locator("#done-h + ul")).to_contain_text("Bo was left out:")


def test_the_warband_demo_has_a_scars_table_and_an_empty_table_is_said(new_page, settings):
    settings.SAWBONES_EMBEDDED = True
    call_command("seed_demo", stdout=io.StringIO())
    settings.SAWBONES_EMBEDDED = False
    from django.contrib.auth import get_user_model

    referee = get_user_model().objects.get(username="referee")
    referee.set_password("pw-referee")
    referee.save()
    warband = Campaign.objects.get(ruleset="warband")
    scars = CampaignTable.objects.get(campaign=warband, key="scars").data
    assert scars["rows"], "the demo ships a sample scars table"
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{warband.pk}/tables/scars/")
    expect(page.locator("#table-empty")).to_have_count(0)
    page.get_by_text("Advanced: the table as JSON").click()
    page.get_by_label("The table, as JSON").fill(json.dumps({"dice": "1d6", "rows": []}))
    page.locator(".table-json").get_by_role("button", name="Save").click()
    expect(page.locator("#table-empty")).to_contain_text("This table is empty")
    # rulesets without tables link to none
    hit_dice = Campaign.objects.get(ruleset="hit_dice")
    page.goto(f"/campaigns/{hit_dice.pk}/")
    expect(page.get_by_role("link", name="Tables", exact=True)).to_have_count(0)
    page.goto(f"/campaigns/{warband.pk}/")
    expect(page.get_by_role("link", name="Tables", exact=True)).to_have_count(1)


def test_a_battle_with_every_place_empty_does_not_start(new_page, referee, player):
    campaign, _ = _party(
        referee,
        player,
        "warband",
        ("Vessa", {"warband": "Red Hand"}),
        ("Crow", {"warband": "Grey Crows"}),
    )
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/battle/")
    for place in ("Turn order 1", "Turn order 2"):
        page.get_by_label(place).select_option(label="(none)")
    page.get_by_role("button", name="Start the battle").click()
    expect(page.get_by_role("alert")).to_contain_text("Choose the warbands that fight")
    expect(page.get_by_role("heading", name="No battle under way")).to_be_visible()


def test_settings_refuse_an_empty_name(new_page, referee, player):
    campaign, _ = _party(referee, player, "hit_dice", ("Aldo", {"hp": 10}))
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/settings/")
    page.get_by_label("Campaign name").fill("")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_role("alert")).to_contain_text("The campaign needs a name")
    expect(page.locator(".flash")).to_have_count(0)
    campaign.refresh_from_db()
    assert campaign.name == "Harrow Keep"


def test_the_log_filters_undo_redo_edits_and_decisions(new_page, referee, player):
    campaign, (aldo,) = _party(referee, player, "hit_dice", ("Aldo", {"hp": 10}))
    damage = resolution_create_action(
        character_id=aldo.pk, actor=referee, by_referee=True, action="damage", params={"amount": 3}
    )
    resolution_undo(character_id=aldo.pk, actor=referee, steps=1)
    assert damage.pk
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/log/")
    action = page.get_by_label("Action")
    for label in ("Undo", "Redo", "Edit: rename", "Decision: Death or a major wound"):
        expect(action.locator("option", has_text=label)).to_have_count(1)
    action.select_option(label="Undo")
    page.get_by_role("button", name="Show").click()
    expect(page.locator(".log-entry")).to_have_count(1)
    assert Resolution.objects.filter(character=aldo, action="undo").count() == 1


def test_the_download_is_named_after_the_campaign_and_the_import_is_a_copy(
    new_page, referee, player, tmp_path
):
    campaign, _ = _party(referee, player, "hit_dice", ("Aldo", {"hp": 10}))
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    with page.expect_download() as downloading:
        page.get_by_role("link", name="Download the campaign (JSON)").click()
    download = downloading.value
    today = timezone.localdate().isoformat()
    assert download.suggested_filename == f"{slugify(campaign.name)}-{today}.json"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    page.goto("/campaigns/import/")
    page.get_by_label("Campaign file (JSON)").set_input_files(str(saved))
    # Aldo's player has an account here: named, they are invited to play Aldo again
    # (issues 29 and 36), and do once they accept on their home page
    page.get_by_label("Players (optional)").fill("player")
    page.get_by_role("button", name="Import").click()
    expect(page.locator("h1")).to_contain_text("Harrow Keep (copy)")
    invited = "player is invited to play the characters the file says they played"
    expect(page.get_by_role("status").filter(has_text=invited)).to_be_visible()
    copy = Campaign.objects.get(name="Harrow Keep (copy)")
    assert copy.characters.get(name="Aldo").owner_id == referee.pk
    theirs = new_page()
    log_in(theirs, "player")
    theirs.goto("/")
    invitation = theirs.get_by_role("region", name="Invitations")
    expect(invitation).to_contain_text("referee invites you to play in Harrow Keep (copy)")
    invitation.get_by_role("button", name="Accept").click()
    expect(theirs.locator("h1")).to_contain_text("Harrow Keep (copy)")
    assert copy.characters.get(name="Aldo").owner_id == player.pk


def test_phases_are_picked_from_a_list(new_page, referee):
    page = new_page()
    log_in(page, "referee")
    page.goto("/campaigns/new/")
    page.get_by_role("radio", name=re.compile("^Warband")).check()
    page.get_by_label("Campaign name").fill("Bridge")
    phases = page.get_by_role("listbox", name="Phases")
    expect(phases.locator("option:checked")).to_have_count(5)
    phases.select_option(["upkeep", "move", "melee", "end"])
    page.get_by_label("More phases, before the last one").fill("shoot")
    page.get_by_role("button", name="Create campaign").click()
    page.wait_for_url("**/campaigns/*/")
    campaign = Campaign.objects.get(name="Bridge")
    assert campaign.options["phases"] == ["upkeep", "move", "melee", "shoot", "end"]


def test_a_table_is_edited_row_by_row(new_page, referee, player):
    """Issue 29, item 5: a row editor per table (add, remove, reorder; a field per
    column), the JSON as the advanced view."""
    campaign, _ = _party(referee, player, "warband", ("Vessa", {"warband": "Red Hand"}))
    page = new_page()
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/tables/scars/")
    expect(page.get_by_text("Advanced: the table as JSON")).to_be_visible()
    page.get_by_label("Dice", exact=True).fill("1d2")
    page.get_by_role("button", name="Add a row").click()
    page.get_by_role("button", name="Add a row").click()
    for row, (low, high, scar) in ((1, ("2", "2", "Limp")), (2, ("1", "1", "Scarred face"))):
        page.get_by_label(f"Row {row}, Min").fill(low)
        page.get_by_label(f"Row {row}, Max").fill(high)
        page.get_by_label(f"Row {row}, Scar").fill(scar)
    page.get_by_role("button", name="Up: row 2").click()
    expect(page.get_by_label("Row 1, Scar")).to_have_value("Scarred face")
    page.get_by_role("button", name="Add a row").click()
    page.get_by_label("Row 3, Min").fill("lots")
    page.get_by_role("button", name="Check and preview").first.click()
    expect(page.get_by_role("alert")).to_have_text("Row 3, min: write a whole number.")
    page.get_by_role("button", name="Remove row 3").click()
    expect(page.get_by_label("Row 3, Min")).to_have_count(0)
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.locator(".flash")).to_contain_text("saved")
    assert CampaignTable.objects.get(campaign=campaign, key="scars").data == {
        "dice": "1d2",
        "rows": [
            {"min": 1, "max": 1, "scar": "Scarred face"},
            {"min": 2, "max": 2, "scar": "Limp"},
        ],
    }
    expect(page.get_by_label("Row 2, Scar")).to_have_value("Limp")
