"""The clock in the campaign log (issue 25): advances, the live clock on, off and its
rate, resumes, and who did each, as entries of ``GET campaigns/{id}/clock/log/`` (the
same filters as ``resolutions/``) and of the log page; the jobs listed newest first."""

from __future__ import annotations

import pytest

from campaigns.models import Campaign
from rules.clock.tests.clock_helpers import wounded
from rules.play.services import resolution_answer_choice

pytestmark = pytest.mark.django_db


def url(campaign: Campaign, rest: str) -> str:
    return f"/api/v1/campaigns/{campaign.pk}/{rest}"


def summaries(client, campaign: Campaign, query: str = "") -> list[tuple[str, int, str]]:
    answer = client.get(url(campaign, "clock/log/") + query)
    assert answer.status_code == 200, answer.content
    return [(e["kind"], e["clock"], e["summary"]) for e in answer.json()["results"]]


@pytest.mark.django_db(transaction=True)
def test_what_people_did_to_the_clock_is_in_the_log(campaign, referee, player, client_for):
    cato = wounded(campaign, player, "Cato", every=60, dc=100, strength=10)
    ref = client_for(referee)
    assert (
        ref.post(url(campaign, "clock/advance/"), {"minutes": 30}, format="json").status_code == 202
    )
    assert ref.put(url(campaign, "clock/live/"), {"ratio": "1"}, format="json").status_code == 200
    assert ref.put(url(campaign, "clock/live/"), {"ratio": "60"}, format="json").status_code == 200
    assert ref.put(url(campaign, "clock/live/"), {"ratio": "0"}, format="json").status_code == 200
    # an advance that stops on Cato's choice, answered, then resumed
    job = ref.post(url(campaign, "clock/advance/"), {"minutes": 120}, format="json").json()
    assert job["state"] == "waiting"
    cato.refresh_from_db()
    assert cato.pending_choice is not None
    resolution_answer_choice(
        character_id=cato.pk,
        actor=player,
        by_referee=False,
        choice_id=cato.pending_choice["id"],
        option="major_wound",
    )
    assert ref.post(url(campaign, f"clock/jobs/{job['id']}/resume/")).status_code == 202

    log = summaries(client_for(player), campaign)  # every member reads it
    assert log == [
        ("resume", 60, "referee resumed the clock."),
        ("advance", 30, "referee advanced the clock by 2 hours."),
        ("live_off", 30, "referee stopped the live clock."),
        ("live_rate", 30, "referee changed the live clock from real time to 1 hour a minute."),
        ("live_on", 30, "referee ran the clock with real time: real time."),
        ("advance", 0, "referee advanced the clock by 30 minutes."),
    ]
    first = client_for(referee).get(url(campaign, "clock/log/")).json()["results"][-1]
    assert (first["from"], first["to"], first["actor"]) == (0, 30, referee.pk)

    # the same filters as the log of resolutions
    assert [k for k, *_ in summaries(ref, campaign, "?from=1&to=59")] == [
        "advance",
        "live_off",
        "live_rate",
        "live_on",
    ]
    assert [k for k, *_ in summaries(ref, campaign, "?action=resume")] == ["resume"]
    assert summaries(ref, campaign, f"?character={cato.pk}") == []
    assert summaries(ref, campaign, "?who=clock") == []
    assert len(summaries(ref, campaign, f"?who={referee.pk}")) == 6
    assert [k for k, *_ in summaries(ref, campaign, "?q=live+clock")] == ["live_off", "live_rate"]
    assert ref.get(url(campaign, "clock/log/?from=x")).status_code == 400


@pytest.mark.django_db(transaction=True)
def test_the_jobs_list_newest_first_with_who_and_where(campaign, referee, player, client_for):
    wounded(campaign, player, "Aldo", every=60)
    ref = client_for(referee)
    ref.post(url(campaign, "clock/advance/"), {"minutes": 30}, format="json")
    ref.post(url(campaign, "clock/advance/"), {"minutes": 90}, format="json")
    jobs = ref.get(url(campaign, "clock/jobs/")).json()
    assert [(j["kind"], j["from"], j["to"], j["requested_by"], j["state"]) for j in jobs] == [
        ("advance", 30, 120, referee.pk, "done"),
        ("advance", 0, 30, referee.pk, "done"),
    ]


@pytest.mark.django_db(transaction=True)
def test_the_log_page_shows_the_clock_among_the_entries(campaign, referee, player, web, client_for):
    wounded(campaign, player, "Aldo", every=60)
    client_for(referee).post(url(campaign, "clock/advance/"), {"minutes": 120}, format="json")
    text = web(player).get(f"/campaigns/{campaign.pk}/log/").content.decode()
    clock = text.index("referee advanced the clock by 2 hours. From Day 1, 00:00 to Day 1, 02:00.")
    # newest first: the worsenings at 01:00 and 02:00 above the advance asked for at 00:00
    assert text.index("Day 1, 02:00</time>") < clock
    assert "What it did" in text
