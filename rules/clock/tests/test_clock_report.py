"""The advance report (issue 25): what a clock job did, per character, built as it applies
effects; read through ``GET campaigns/{id}/clock/jobs/{job}/`` as the viewer may."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.clock.live import clock_live_set, clock_live_tick
from rules.clock.models import ClockJob, ClockReport, ClockReportPart
from rules.clock.report import (
    ReportBuilder,
    notable_marks,
    report_add_batch,
    report_characters,
)
from rules.clock.selectors import clock_report_view
from rules.clock.services import clock_advance_run
from rules.clock.tests.clock_helpers import effect_resolutions, run_job, wounded
from rules.log.models import Resolution
from rules.play.services import character_create, resolution_create_action, resolution_reveal
from webhooks.models import WebhookEndpoint, WebhookEvent

pytestmark = pytest.mark.django_db


def url(campaign: Campaign, rest: str) -> str:
    return f"/api/v1/campaigns/{campaign.pk}/{rest}"


def cm_character(campaign: Campaign, owner, name: str) -> Character:
    membership = Membership.objects.get(campaign=campaign, user=owner)
    return character_create(membership=membership, name=name, sheet={})


def terminal(campaign: Campaign, who: Character) -> None:
    referee = campaign.memberships.get(role="referee").user
    resolution_create_action(
        character_id=who.pk,
        actor=referee,
        by_referee=True,
        action="damage",
        params={"amount": 5, "kind": "normal", "soak_dice": 0},
    )


@pytest.mark.django_db(transaction=True)
def test_an_advance_that_kills_a_terminal_character_reports_it(
    make_campaign, referee, player, client_for
):
    # given Ines Vale with a terminal wound (dies at minute 5) and Ota untouched
    campaign = make_campaign("condition_monitor")
    ines = cm_character(campaign, player, "Ines Vale")
    cm_character(campaign, player, "Ota")
    terminal(campaign, ines)

    # when the referee advances ten minutes through the API
    advance = url(campaign, "clock/advance/")
    answer = client_for(referee).post(advance, {"minutes": 10}, format="json")
    assert answer.status_code == 202
    job = answer.json()["job"]

    # then the job's report tells her death, and no one else
    body = client_for(referee).get(url(campaign, f"clock/jobs/{job}/")).json()
    (death,) = effect_resolutions(campaign)
    assert body["report"]["from"] == 0
    assert body["report"]["to"] == 10
    assert body["report"]["characters"] == [
        {
            "id": ines.pk,
            "name": "Ines Vale",
            "state_before": "terminal",
            "state_after": "dead",
            "events": [
                {
                    "clock": 5,
                    "resolution": death.pk,
                    "summary": death.summary,
                    "notable": ["death"],
                }
            ],
        }
    ]


def test_a_job_where_nothing_happens_reports_no_one(campaign, referee, client_for):
    job = run_job(campaign, 60)
    body = client_for(referee).get(url(campaign, f"clock/jobs/{job.pk}/")).json()
    assert body["report"]["characters"] == []
    assert (body["report"]["from"], body["report"]["to"]) == (0, 60)


def test_a_player_reads_their_own_characters_only(
    campaign, referee, player, other_player, client_for
):
    aldo = wounded(campaign, player, "Aldo", every=60)
    bea = wounded(campaign, other_player, "Bea", every=45)
    job = run_job(campaign, 120)

    as_referee = client_for(referee).get(url(campaign, f"clock/jobs/{job.pk}/")).json()
    as_player = client_for(player).get(url(campaign, f"clock/jobs/{job.pk}/")).json()

    assert [c["name"] for c in as_referee["report"]["characters"]] == ["Bea", "Aldo"]
    assert [len(c["events"]) for c in as_referee["report"]["characters"]] == [2, 2]
    assert [c["id"] for c in as_player["report"]["characters"]] == [aldo.pk]
    assert bea.pk not in {c["id"] for c in as_player["report"]["characters"]}


def test_a_waiting_job_reports_the_choice_and_the_reason_is_the_referees(
    campaign, referee, player, other_player, client_for
):
    cato = wounded(campaign, player, "Cato", every=60, dc=100, strength=10)
    job = run_job(campaign, 180)
    assert job.state == "waiting"
    as_referee = client_for(referee).get(url(campaign, f"clock/jobs/{job.pk}/")).json()
    (entry,) = as_referee["report"]["characters"]
    assert entry["id"] == cato.pk
    assert "choice" in entry["events"][-1]["notable"]
    as_other = client_for(other_player).get(url(campaign, f"clock/jobs/{job.pk}/")).json()
    assert (as_other["reason"], as_other["report"]["characters"]) == ("", [])
    as_owner = client_for(player).get(url(campaign, f"clock/jobs/{job.pk}/")).json()
    assert as_owner["reason"] == as_referee["reason"] != ""


def test_hidden_events_stay_hidden_from_players_until_revealed(
    make_campaign, referee, player, client_for
):
    # given a secret disease (G-4): its first save is a hidden effect
    campaign = make_campaign("old_school", track_sleep=False)
    membership = campaign.memberships.get(user=player)
    patient = character_create(
        membership=membership, name="Patient", sheet={"resting": True, "intelligence": 18}
    )
    resolution_create_action(
        character_id=patient.pk,
        actor=referee,
        by_referee=True,
        action="contract_disease",
        params={"disease": "Green River Fever", "hidden": True},
    )
    job = run_job(campaign, 7 * 24 * 60 + 5)
    first = Resolution.objects.get(character=patient, action="disease_save")

    def events(user):
        body = client_for(user).get(url(campaign, f"clock/jobs/{job.pk}/")).json()
        return [e["resolution"] for c in body["report"]["characters"] for e in c["events"]]

    assert first.pk in events(referee)
    assert first.pk not in events(player)
    resolution_reveal(resolution=first)
    assert first.pk in events(player)


def test_a_report_spans_batches_and_resumes(campaign, referee, player, settings):
    settings.SAWBONES_CLOCK_BATCH_SIZE = 1
    wounded(campaign, player, "Aldo", every=30)
    job = run_job(campaign, 120)
    assert job.report is not None
    (entry,) = report_characters(job.report)
    assert [e["clock"] for e in entry["events"]] == [30, 60, 90, 120]
    assert all(isinstance(e["resolution"], int) for e in entry["events"])


def _event(clock: int) -> dict[str, object]:
    return {"clock": clock, "resolution": clock, "summary": "", "notable": [], "hidden": False}


def _batch(*events: tuple[int, str, int]) -> ReportBuilder:
    batch = ReportBuilder()
    for character_id, name, clock in events:
        batch.add(
            character_id=character_id,
            name=name,
            state_before="hurt",
            state_after="dying",
            clock=clock,
            resolution=Resolution(pk=clock),
            summary=f"at {clock}",
            notable=[],
            hidden=False,
        )
    return batch


def test_a_jobs_batches_are_stored_as_parts_and_read_merged(campaign):
    # given a stored report of Aldo then Bea
    stored = [
        {"id": 1, "name": "Aldo", "state_before": "ok", "state_after": "ok", "events": [_event(1)]},
        {
            "id": 2,
            "name": "Bea",
            "state_before": "ok",
            "state_after": "hurt",
            "events": [_event(2)],
        },
    ]
    report = ClockReport.objects.create(
        campaign=campaign, clock_from=10, clock_to=20, characters=stored
    )
    first, second = _batch((2, "Bea V.", 30), (3, "Cid", 40)), _batch((2, "Bea V.", 50))
    expected = second.merged_into(first.merged_into(stored))

    # when two batches of a catch-up add their events, then a last one that applied nothing
    for batch in (first, second, ReportBuilder()):
        report_add_batch(report, batch, catch_up=True, clock=99, now=timezone.now())

    # then the stored list is untouched (issue 39: never rewritten), each batch with
    # events is a part, and the report reads with them merged, in order
    report.refresh_from_db()
    assert report.characters == stored
    assert ClockReportPart.objects.filter(report=report).count() == 2
    characters = report_characters(report)
    assert characters == expected
    assert [e["clock"] for e in characters[1]["events"][1:]] == [30, 50]
    assert (characters[1]["name"], characters[1]["state_after"]) == ("Bea V.", "dying")
    assert [c["id"] for c in clock_report_view(report, own=None)["characters"]] == [1, 2, 3]
    assert (report.clock_from, report.clock_to) == (10, 50)


def test_a_long_advance_does_not_read_its_report_back_at_each_batch(
    campaign, referee, player, settings
):
    # given an advance of eight batches (issue 39: reading the growing report and
    # writing it whole at each batch made the catch-up's cost grow with its square)
    settings.SAWBONES_CLOCK_BATCH_SIZE = 1
    wounded(campaign, player, "Aldo", every=15)

    # when it runs
    with CaptureQueriesContext(connection) as queries:
        job = run_job(campaign, 120)

    # then the stored list was neither read nor written (each batch stored a part; a
    # merge when the job stopped rewrote the whole report), and it reads every event
    table = ClockReport._meta.db_table
    touched = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith(("SELECT", "UPDATE"))
        and f'"{table}"' in q["sql"]
        and '"characters"' in q["sql"]
    ]
    assert touched == []
    assert job.report is not None
    assert job.report.characters == []
    (entry,) = report_characters(job.report)
    assert [e["clock"] for e in entry["events"]] == list(range(15, 121, 15))
    assert ClockReportPart.objects.filter(report=job.report).count() == 8


def test_live_ticks_of_one_real_hour_share_one_report(campaign, referee, player):
    wounded(campaign, player, "Aldo", every=30)
    start = timezone.now().replace(minute=0, second=0, microsecond=0)
    clock_live_set(campaign_id=campaign.pk, ratio=Decimal(10), now=start)
    for minutes in (5, 10, 20, 70):
        for job in clock_live_tick(now=start + timedelta(minutes=minutes)):
            clock_advance_run(job_id=job.pk)
    reports = list(ClockReport.objects.filter(campaign=campaign).order_by("id"))
    jobs = list(ClockJob.objects.filter(campaign=campaign).order_by("id"))
    assert len(jobs) == 4
    # the first three ticks fall in the first real hour, the last in the next
    assert [job.report_id for job in jobs] == [reports[0].pk] * 3 + [reports[1].pk]
    assert (reports[0].clock_from, reports[0].clock_to) == (0, 200)
    assert [e["clock"] for e in report_characters(reports[0])[0]["events"]] == [
        30,
        60,
        90,
        120,
        150,
        180,
    ]


def test_the_report_goes_to_webhooks(campaign, referee, player):
    WebhookEndpoint.objects.create(
        campaign=campaign, url="https://example.com/hook", secret="s" * 32, created_by=referee
    )
    aldo = wounded(campaign, player, "Aldo", every=60)
    job = run_job(campaign, 60)
    event = WebhookEvent.objects.filter(type="clock_job.report").get()
    data = json.loads(event.body)["data"]
    assert data["job"] == job.pk
    assert [c["id"] for c in data["report"]["characters"]] == [aldo.pk]


@pytest.mark.parametrize(
    ("kind", "before", "after", "outcome", "choice", "marks"),
    [
        ("terminal_wound", ("terminal", {}), ("dead", {}), {}, False, ["death"]),
        ("wake_up", ("standing", {}), ("unconscious", {}), {}, False, ["incapacitated"]),
        (
            "x",
            ("standing", {"strength": 9}),
            ("standing", {"strength": 8}),
            {},
            False,
            ["ability_loss"],
        ),
        (
            "disease_save",
            ("standing", {"diseases": [{"name": "Flux"}]}),
            ("standing", {"diseases": []}),
            {},
            False,
            ["disease_over"],
        ),
        (
            "birthday",
            ("standing", {"age": 60}),
            ("standing", {"age": 61}),
            {"aging_saves": {"made": 1, "passed": 1}},
            False,
            ["aging"],
        ),
        (
            "birthday",
            ("standing", {"age": 30}),
            ("standing", {"age": 31}),
            {"aging_saves": {"made": 0, "passed": 0}},
            False,
            [],
        ),
        (
            "starvation_check",
            ("standing", {"n": 1}),
            ("standing", {"n": 2}),
            {},
            False,
            ["starvation"],
        ),
        ("starvation_check", ("standing", {"n": 1}), ("standing", {"n": 1}), {}, False, []),
        ("wound_worsens", ("standing", {}), ("standing", {}), {}, True, ["choice"]),
        ("sleep_window", ("standing", {"a": 1}), ("standing", {"a": 2}), {}, False, []),
    ],
)
def test_what_makes_an_event_notable(kind, before, after, outcome, choice, marks):
    assert (
        notable_marks(
            effect_kind=kind,
            state_before=before[0],
            state_after=after[0],
            sheet_before=before[1],
            sheet_after=after[1],
            outcome=outcome,
            choice=choice,
        )
        == marks
    )
