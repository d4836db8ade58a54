"""The clock's pages (issue 25): an advance's report in plain words, the notable first,
each event linked to its log entry; a player reads their own characters only."""

from __future__ import annotations

import pytest

from campaigns.models import Membership
from rules.clock.tests.clock_helpers import effect_resolutions, run_job, wounded
from rules.play.services import character_create, resolution_create_action

pytestmark = pytest.mark.django_db


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
