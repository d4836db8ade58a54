"""The clock's pages (issue 25): an advance's report in plain words, the notable first,
each event linked to its log entry; a player reads their own characters only."""

from __future__ import annotations

import pytest

from campaigns.models import Campaign, Membership
from rules.clock.tests.clock_helpers import effect_resolutions, run_job, wounded
from rules.play.services import character_create, resolution_create_action

pytestmark = pytest.mark.django_db
DAY = 24 * 60


def test_the_report_page_tells_a_death_first_and_links_the_log(
    make_campaign, referee, player, other_player, web
):
    campaign = make_campaign("condition_monitor")
    membership = Membership.objects.get(campaign=campaign, user=player)
    ines = character_create(membership=membership, name="Ines Vale", sheet={})
    resolution_create_action(
        character_id=ines.pk,
        actor=referee,
        by_referee=True,
        action="damage",
        params={"amount": 5, "kind": "normal", "soak_dice": 0},
    )
    job = run_job(campaign, 10)
    (death,) = effect_resolutions(campaign)

    page = web(referee).get(f"/campaigns/{campaign.pk}/clock/jobs/{job.pk}/")
    text = page.content.decode()
    assert page.status_code == 200
    assert "What the clock did: Day 1, 00:00 to Day 1, 00:10" in text
    assert "Ines Vale died" in text
    assert f"#entry-{death.pk}" in text
    assert "terminal then dead" in text

    fragment = web(referee).get(
        f"/campaigns/{campaign.pk}/clock/jobs/{job.pk}/", headers={"HX-Request": "true"}
    )
    assert b"<html" not in fragment.content and b"Ines Vale died" in fragment.content

    # another player reads that nothing happened to their characters
    other = web(other_player).get(f"/campaigns/{campaign.pk}/clock/jobs/{job.pk}/")
    assert b"Ines Vale" not in other.content
    assert b"Nothing happened to your characters." in other.content


def test_a_long_report_folds_by_character(campaign, referee, player, web):
    for name in ("Aldo", "Bea", "Cato", "Dag"):
        wounded(campaign, player, name, every=60)
    job = run_job(campaign, 120)
    text = web(referee).get(f"/campaigns/{campaign.pk}/clock/jobs/{job.pk}/").content.decode()
    assert text.count('<details class="report-character">') == 4


def test_the_log_page_anchors_each_entry(campaign, referee, player, web):
    wounded(campaign, player, "Aldo", every=60)
    run_job(campaign, 60)
    (worse,) = effect_resolutions(campaign)
    text = web(referee).get(f"/campaigns/{campaign.pk}/log/").content.decode()
    assert f'id="entry-{worse.pk}"' in text


def test_the_settings_page_edits_the_calendar_with_a_preview(campaign, referee, web):
    page = web(referee)
    Campaign.objects.filter(pk=campaign.pk).update(clock=15 * DAY + 90)
    preview = page.get(
        f"/campaigns/{campaign.pk}/settings/calendar/preview/",
        {
            "months": "Frost, 10\nBloom, 10",
            "weekdays": "Sunday, Moonday, Tiwsday",
            "year": "1000",
            "month": "1",
            "day": "1",
        },
        headers={"HX-Request": "true"},
    )
    assert b"Sunday 6 Bloom 1000, 01:30" in preview.content
    bad = page.get(
        f"/campaigns/{campaign.pk}/settings/calendar/preview/",
        {"months": "Frost, 0", "year": "1", "month": "1", "day": "1"},
    )
    assert b"Frost needs a number of days" in bad.content
    campaign.refresh_from_db()
    assert campaign.calendar == {}  # a preview changes nothing

    saved = page.post(
        f"/campaigns/{campaign.pk}/settings/",
        {
            "form": "calendar",
            "months": "Frost, 10\nBloom, 10",
            "weekdays": "Sunday, Moonday, Tiwsday",
            "year": "1000",
            "month": "1",
            "day": "1",
            "weekday": "",
        },
    )
    assert saved.status_code == 302
    campaign.refresh_from_db()
    assert campaign.clock == 15 * DAY + 90  # the clock did not move
    assert b"Sunday 6 Bloom 1000, 01:30" in page.get(f"/campaigns/{campaign.pk}/").content

    refused = page.post(
        f"/campaigns/{campaign.pk}/settings/",
        {"form": "calendar", "months": "Frost, 10", "year": "1", "month": "1", "day": "11"},
    )
    assert refused.status_code == 400
    assert b"The start day must fall inside Frost: 1 to 10." in refused.content

    page.post(
        f"/campaigns/{campaign.pk}/settings/",
        {"form": "calendar", "use_preset": "1", "preset": "days"},
    )
    assert b"Day 16, 01:30" in page.get(f"/campaigns/{campaign.pk}/").content


def test_a_player_sees_what_happened_since_they_last_looked(
    make_campaign, referee, player, other_player, web
):
    campaign = make_campaign("condition_monitor")
    membership = Membership.objects.get(campaign=campaign, user=player)
    ines = character_create(membership=membership, name="Ines Vale", sheet={})
    own, other = web(player), web(other_player)
    assert b"Since you last looked" not in own.get(f"/campaigns/{campaign.pk}/").content
    resolution_create_action(
        character_id=ines.pk,
        actor=referee,
        by_referee=True,
        action="damage",
        params={"amount": 5, "kind": "normal", "soak_dice": 0},
    )
    run_job(campaign, 10)

    text = own.get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "Since you last looked" in text and "Ines Vale died" in text
    # seen once: the next visit has nothing new
    assert b"Since you last looked" not in own.get(f"/campaigns/{campaign.pk}/").content
    # another player has nothing of hers
    assert b"Since you last looked" not in other.get(f"/campaigns/{campaign.pk}/").content


def test_undoing_a_death_the_clock_caused_says_why_it_happens_again(
    make_campaign, referee, player, web, django_capture_on_commit_callbacks
):
    """Issue 34: undoing a death the clock applied brings its effect back, due already, so
    the clock applies it again at once: the notice and the sheet say so, and what would
    change it (undoing the wound that scheduled it as well)."""
    campaign = make_campaign("condition_monitor")
    membership = Membership.objects.get(campaign=campaign, user=player)
    pim = character_create(membership=membership, name="Pim", sheet={})
    wound = resolution_create_action(
        character_id=pim.pk,
        actor=referee,
        by_referee=True,
        action="damage",
        params={"amount": 5, "kind": "aggravated", "soak_dice": 0},
    )
    run_job(campaign, 10)  # the terminal wound kills at minute 5 (CM-5)
    pim.refresh_from_db()
    assert pim.sheet["state"] == "dead"
    page = web(referee)
    with django_capture_on_commit_callbacks(execute=True):
        undone = page.post(f"/characters/{pim.pk}/undo/", headers={"HX-Request": "true"})
    pim.refresh_from_db()
    assert pim.sheet["state"] == "dead"  # the catch-up applied it again
    text = " ".join(undone.content.decode().split())
    why = (
        "“Terminal wound” was due at Day 1, 00:05 and the clock is past it: the undo "
        "brought it back, and the clock applies whatever is due, so it happened again at "
        "once. To change that, undo back to the entry that scheduled it as well: “Take "
        "damage” at Day 1, 00:00."
    )
    assert why in text  # the notice
    sheet = " ".join(page.get(f"/characters/{pim.pk}/").content.decode().split())
    assert f"Pim is dead again. {why}" in sheet
    # and undoing the wound as well takes it back for good
    with django_capture_on_commit_callbacks(execute=True):
        page.post(f"/characters/{pim.pk}/undo/", {"to": wound.pk})
    pim.refresh_from_db()
    assert pim.sheet["state"] == "ok"
    sheet = page.get(f"/characters/{pim.pk}/").content.decode()
    assert 'id="applied-again"' not in sheet


@pytest.mark.parametrize(
    ("months", "weekdays", "said"),
    [
        ("Frost, 10\nBloom, 10", "Sunday, , Tiwsday", "A week day has no name"),
        ("Frost, 10\nBloom, 10", "Sunday, Moonday,", "A week day has no name"),
        ("Frost, 10\nFrost, 10", "", "Two months are called Frost"),
        ("Frost, 10\nBloom, 10", "Sunday, Moonday, Sunday", "Two week days are called Sunday"),
    ],
)
def test_the_calendar_refuses_blank_and_duplicate_names_in_words(
    campaign, referee, web, months, weekdays, said
):
    """Issue 34: a blank week day was dropped without a word, a duplicate name accepted
    (a date naming it always meant the first)."""
    page = web(referee)
    data = {"months": months, "weekdays": weekdays, "year": "1000", "month": "1", "day": "1"}
    preview = page.get(f"/campaigns/{campaign.pk}/settings/calendar/preview/", data)
    assert said in preview.content.decode()
    refused = page.post(f"/campaigns/{campaign.pk}/settings/", {"form": "calendar", **data})
    assert refused.status_code == 400
    assert said in refused.content.decode()
    campaign.refresh_from_db()
    assert campaign.calendar == {}
