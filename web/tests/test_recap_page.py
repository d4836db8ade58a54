"""The session recap page (issue 25): a span told per character with the dice that
mattered and where the clock went, a player's own characters only, and a Markdown download
named after the campaign and the dates."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import Campaign
from rules.clock.tests.clock_helpers import run_job, wounded
from rules.log.models import Resolution

pytestmark = pytest.mark.django_db
DAY = 24 * 60
TWO_MONTHS = {
    "months": [{"name": "Frost", "days": 10}, {"name": "Bloom", "days": 10}],
    "weekdays": ["Sunday", "Moonday", "Tiwsday"],
    "epoch": {"year": 1000, "month": 1, "day": 1},
}


def test_the_recap_page_tells_a_span_and_downloads_it(campaign, referee, player, other_player, web):
    Campaign.objects.filter(pk=campaign.pk).update(name="Harrow Keep", calendar=TWO_MONTHS)
    wounded(campaign, player, "Aldo", every=DAY)
    wounded(campaign, other_player, "Bea", every=DAY)
    run_job(campaign, 15 * DAY, requested_by=referee)
    page = web(referee)
    url = f"/campaigns/{campaign.pk}/recap/"
    span = {"from_date": "1000-Bloom-2", "to_date": "1000-Bloom-3"}

    text = page.get(url, span).content.decode()
    assert "Session recap" in text and "Where the clock went" in text
    assert "From Tiwsday 2 Bloom 1000, 00:00 to Sunday 3 Bloom 1000, 23:59" in text
    assert "Aldo" in text and "Bea" in text
    assert 'aria-label="Dice that mattered"' in text
    assert "recap/?from_date=1000-Bloom-2&amp;to_date=1000-Bloom-3&amp;format=md" in text
    assert 'download="harrow-keep-recap-1000-bloom-2-to-1000-bloom-3.md"' in text

    download = page.get(url, {**span, "format": "md"})
    assert download["Content-Type"] == "text/markdown; charset=utf-8"
    assert download["Content-Disposition"] == (
        'attachment; filename="harrow-keep-recap-1000-bloom-2-to-1000-bloom-3.md"'
    )
    markdown = download.content.decode()
    assert markdown.startswith("# Harrow Keep: session recap\n")
    assert "## Aldo (" in markdown and "## Bea (" in markdown
    assert "Tiwsday 2 Bloom 1000, 00:00" in markdown

    # a player reads their own characters only
    mine = web(player).get(url, span).content.decode()
    assert "Aldo" in mine and "Bea" not in mine


def test_the_recap_page_opens_on_the_last_day_and_words_a_bad_date(campaign, referee, player, web):
    aldo = wounded(campaign, player, "Aldo", every=60)
    run_job(campaign, 60)
    Resolution.objects.filter(character=aldo, kind="create").update(
        created_at=timezone.now() - timedelta(days=3)
    )
    url = f"/campaigns/{campaign.pk}/recap/"
    text = web(referee).get(url).content.decode()
    assert "Aldo" in text and "Character created" not in text  # the last day only
    bad = web(referee).get(url, {"from_date": "soon"})
    assert bad.status_code == 400
    assert "A date is a day&#x27;s number (3, or Day 3)" in bad.content.decode()


def test_the_dashboard_links_the_recap(campaign, referee, player, web):
    for user in (referee, player):
        assert f"/campaigns/{campaign.pk}/recap/".encode() in (
            web(user).get(f"/campaigns/{campaign.pk}/").content
        )


@pytest.mark.parametrize("calendar", [TWO_MONTHS, {}])
def test_the_date_box_takes_dates_as_the_pages_write_them(campaign, referee, player, web, calendar):
    """Issue 34: "Tiwsday 2 Bloom 1000, 00:00", "2 Bloom 1000" and "Day 3, 08:30", as the
    clock and the log show them, bound the recap (and a real time it cannot read is said
    without "ISO")."""
    from campaigns.selectors import clock_display

    Campaign.objects.filter(pk=campaign.pk).update(calendar=calendar)
    campaign.refresh_from_db()
    wounded(campaign, player, "Aldo", every=DAY)
    run_job(campaign, 15 * DAY, requested_by=referee)
    page = web(referee)
    url = f"/campaigns/{campaign.pk}/recap/"
    start, end = 11 * DAY + 8 * 60 + 30, 12 * DAY
    shown_from, shown_to = clock_display(start, campaign), clock_display(end, campaign)
    for span in (
        {"from_date": shown_from, "to_date": shown_to},
        {"from_date": shown_from.split(",")[0], "to_date": shown_to.split(",")[0]},
    ):
        answer = page.get(url, span)
        assert answer.status_code == 200, (span, answer.content.decode()[:3000])
        text = " ".join(answer.content.decode().split())
        assert "form-error" not in text, span
    text = " ".join(
        page.get(url, {"from_date": shown_from, "to_date": shown_to}).content.decode().split()
    )
    assert f"From {shown_from} to {shown_to}" in text
    bad = page.get(url, {"real_from": "last tuesday"})
    assert bad.status_code == 400
    said = bad.content.decode()
    assert "A real time is a date and a time" in said and "ISO" not in said
