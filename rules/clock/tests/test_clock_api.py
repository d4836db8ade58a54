"""The clock's REST API (API.md): advance, jobs, resume, live clock, effects (G-4).

Who may: the referee advances, lists jobs, resumes and sets the live clock; players
get 403 there (they read a job and its report); outsiders 404 everywhere. A refused
request changes nothing.
"""

from __future__ import annotations

import pytest

from campaigns.models import Campaign
from rules.clock.models import ClockJob
from rules.clock.tests.clock_helpers import run_job, wounded
from rules.log.models import Resolution, ScheduledEffect
from rules.play.services import resolution_create_action

pytestmark = pytest.mark.django_db


@pytest.fixture
def party(campaign, player, other_player):
    aldo = wounded(campaign, player, "Aldo", every=60)
    bea = wounded(campaign, other_player, "Bea", every=45)
    return aldo, bea


def url(campaign: Campaign, rest: str) -> str:
    return f"/api/v1/campaigns/{campaign.pk}/{rest}"


def world(campaign: Campaign) -> tuple[object, ...]:
    campaign.refresh_from_db()
    return (
        campaign.clock,
        campaign.live_ratio,
        campaign.live_last_tick,
        ClockJob.objects.count(),
        Resolution.objects.count(),
        sorted(ScheduledEffect.objects.values_list("id", "state")),
    )


# -- advance ----------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_referee_advances_and_gets_202_with_the_job(campaign, referee, party, client_for):
    # transactional: the job's transaction really commits, as in the running app
    answer = client_for(referee).post(
        url(campaign, "clock/advance/"), {"minutes": 120}, format="json"
    )

    assert answer.status_code == 202
    body = answer.json()
    job = ClockJob.objects.get()
    # embedded mode (no Redis): the task ran in-process before the answer
    assert body["job"] == body["id"] == job.pk
    assert {k: body[k] for k in ("state", "done", "total", "minutes", "target", "clock")} == {
        "state": "done",
        "done": 4,  # Bea at 45 and 90, Aldo at 60 and 120
        "total": 4,
        "minutes": 120,
        "target": 120,
        "clock": 120,
    }
    assert body["clock_display"] == "Day 1, 02:00"
    assert job.requested_by == referee
    campaign.refresh_from_db()
    assert campaign.clock == 120


def test_the_job_reports_state_and_progress(campaign, referee, party, client_for):
    job = run_job(campaign, 100)

    answer = client_for(referee).get(url(campaign, f"clock/jobs/{job.pk}/"))

    assert answer.status_code == 200
    body = answer.json()
    assert (body["state"], body["done"], body["total"]) == ("done", 3, 3)
    assert body["reason"] == ""
    assert body["waiting_on"] is None
    listed = client_for(referee).get(url(campaign, "clock/jobs/")).json()
    assert [j["id"] for j in listed] == [job.pk]


def test_a_waiting_job_says_why_and_resume_is_409_until_the_choice_is_answered(
    campaign, referee, player, client_for
):
    cato = wounded(campaign, player, "Cato", every=60, dc=100, strength=10)
    job = run_job(campaign, 200)
    job_url = url(campaign, f"clock/jobs/{job.pk}/")

    body = client_for(referee).get(job_url).json()
    assert (body["state"], body["waiting_on"], body["clock"]) == ("waiting", cato.pk, 60)
    assert body["reason"].startswith("Cato has a choice to make after “wound")

    refused = client_for(referee).post(job_url + "resume/")
    assert refused.status_code == 409
    assert refused.json()["detail"].startswith("Cato still waits on a choice")

    cato.refresh_from_db()
    assert cato.pending_choice is not None
    client_for(player).post(
        f"/api/v1/characters/{cato.pk}/choices/",
        {"choice_id": cato.pending_choice["id"], "option": "death"},
        format="json",
    )
    resumed = client_for(referee).post(job_url + "resume/")
    assert resumed.status_code == 202
    assert resumed.json()["state"] == "running"


def test_resuming_a_done_job_is_409(campaign, referee, party, client_for):
    job = run_job(campaign, 30)
    answer = client_for(referee).post(url(campaign, f"clock/jobs/{job.pk}/resume/"))
    assert answer.status_code == 409
    assert answer.json() == {"detail": f"clock job {job.pk} is already done"}


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"minutes": 0},
        {"minutes": -5},
        {"minutes": "soon"},
        {"minutes": 1.5},
        {"minutes": 10 * 365 * 24 * 60 + 1},
        {"minutes": 60, "request_id": "x" * 65},
        {"minutes": 60, "request_id": "a\x00b"},
        {"minutes": 2**70},
        [60],
    ],
)
def test_bad_advance_input_is_400_and_changes_nothing(campaign, referee, party, client_for, body):
    before = world(campaign)
    answer = client_for(referee).post(url(campaign, "clock/advance/"), body, format="json")
    assert answer.status_code == 400
    assert world(campaign) == before


def test_the_same_request_id_answers_the_same_job(campaign, referee, party, client_for):
    client = client_for(referee)
    body = {"minutes": 30, "request_id": "advance-1"}
    first = client.post(url(campaign, "clock/advance/"), body, format="json")
    again = client.post(url(campaign, "clock/advance/"), body, format="json")
    assert first.status_code == again.status_code == 202
    assert first.json()["job"] == again.json()["job"]
    assert ClockJob.objects.count() == 1


@pytest.mark.parametrize(
    ("method", "rest", "body"),
    [
        ("post", "clock/advance/", {"minutes": 60}),
        ("get", "clock/jobs/", None),
        ("post", "clock/jobs/{job}/resume/", None),
        ("put", "clock/live/", {"ratio": "1"}),
    ],
)
def test_referee_only_clock_endpoints(
    campaign, referee, player, outsider, party, client_for, method, rest, body
):
    job = run_job(campaign, 30)
    path = url(campaign, rest.format(job=job.pk))
    before = world(campaign)
    for user, status in ((player, 403), (outsider, 404), (None, 401)):
        answer = getattr(client_for(user), method)(path, body, format="json")
        assert answer.status_code == status, (user, answer.content)
        assert world(campaign) == before


def test_a_job_is_read_by_members_only(campaign, referee, player, outsider, party, client_for):
    # players read a job and its report (their own characters only, test_clock_report)
    job = run_job(campaign, 30)
    path = url(campaign, f"clock/jobs/{job.pk}/")
    for user, status in ((referee, 200), (player, 200), (outsider, 404), (None, 401)):
        assert client_for(user).get(path).status_code == status, user


def test_a_job_of_another_campaign_or_no_job_is_404(
    campaign, make_campaign, referee, party, client_for
):
    other = make_campaign("hit_dice")
    job = run_job(other, 30)
    client = client_for(referee)
    assert client.get(url(campaign, f"clock/jobs/{job.pk}/")).status_code == 404
    assert client.post(url(campaign, f"clock/jobs/{job.pk}/resume/")).status_code == 404
    assert client.get(url(campaign, "clock/jobs/99999999/")).status_code == 404
    assert client.get(url(campaign, f"clock/jobs/{2**64}/")).status_code == 404


# -- effects (ruling G-4) ---------------------------------------------------------------------
def test_referee_sees_every_effect_players_their_own_visible_ones(
    campaign, referee, player, other_player, party, client_for
):
    aldo, bea = party
    secret = ScheduledEffect.objects.create(
        campaign=campaign,
        character=aldo,
        kind="wound_worsens",
        key="secret",
        due_at=500,
        payload={"wound": 1},
        hidden=True,
    )
    run_job(campaign, 50)  # Bea's first worsening is done, her next one pending
    effects = url(campaign, "effects/")

    as_referee = client_for(referee).get(effects).json()
    as_player = client_for(player).get(effects).json()
    as_other = client_for(other_player).get(effects).json()

    rows = ScheduledEffect.objects.order_by("due_at", "id")
    assert [e["id"] for e in as_referee] == [e.pk for e in rows]
    assert [(e["character"], e["kind"], e["due_at"], e["state"]) for e in as_referee] == [
        (bea.pk, "wound_worsens", 45, "done"),
        (aldo.pk, "wound_worsens", 60, "pending"),
        (bea.pk, "wound_worsens", 90, "pending"),
        (aldo.pk, "wound_worsens", 500, "pending"),
    ]
    assert as_referee[3]["hidden"] is True
    assert as_referee[0]["resolution"] == Resolution.objects.get(clock=45).pk
    assert as_referee[0]["due_display"] == "Day 1, 00:45"
    # players: their own characters' effects, the hidden one left out (G-4)
    assert [e["id"] for e in as_player] == [rows[1].pk]
    assert "hidden" not in as_player[0]
    assert "key" not in as_player[0]
    assert [e["due_at"] for e in as_other] == [45, 90]
    assert secret.pk not in [e["id"] for e in as_player + as_other]


def test_effects_filter_by_state_and_character(campaign, referee, party, client_for):
    aldo, _ = party
    run_job(campaign, 50)
    client = client_for(referee)
    pending = client.get(url(campaign, "effects/"), {"state": "pending"}).json()
    aldos = client.get(url(campaign, "effects/"), {"character": aldo.pk}).json()
    assert [(e["due_at"], e["state"]) for e in pending] == [(60, "pending"), (90, "pending")]
    assert [e["due_at"] for e in aldos] == [60]


@pytest.mark.parametrize(
    "query", [{"state": "later"}, {"character": "x"}, {"character": 0}, {"character": 2**64}]
)
def test_bad_effect_filters_are_400(campaign, referee, party, client_for, query):
    assert client_for(referee).get(url(campaign, "effects/"), query).status_code == 400


@pytest.mark.parametrize("query", [{"\u00d8\u00ef": "\u00e2,"}, {"": "null"}, {"states": "done"}])
def test_an_unknown_effect_filter_is_400_not_ignored(campaign, referee, party, client_for, query):
    """A key the operation does not declare (schemathesis sent garbage keys; a misspelt
    filter would answer every effect as if filtered) is refused, naming it, as on every
    operation with query parameters (config/query.py)."""
    answer = client_for(referee).get(url(campaign, "effects/"), {"state": "done", **query})
    assert answer.status_code == 400
    assert set(answer.json()) == set(query)


def test_outsiders_get_404_for_effects(campaign, outsider, party, client_for):
    assert client_for(outsider).get(url(campaign, "effects/")).status_code == 404


# -- the live clock ---------------------------------------------------------------------------
def test_referee_sets_the_live_clock_and_members_read_it(campaign, referee, player, client_for):
    answer = client_for(referee).put(url(campaign, "clock/live/"), {"ratio": "1.5"}, format="json")

    assert answer.status_code == 200
    assert answer.json()["ratio"] == "1.500"
    assert answer.json()["running"] is True
    campaign.refresh_from_db()
    assert str(campaign.live_ratio) == "1.500"
    assert campaign.live_last_tick is not None
    shown = client_for(player).get(url(campaign, "clock/live/")).json()
    assert (shown["ratio"], shown["running"]) == ("1.500", True)

    stopped = client_for(referee).put(url(campaign, "clock/live/"), {"ratio": 0}, format="json")
    assert stopped.json()["running"] is False
    assert stopped.json()["last_tick"] is None


@pytest.mark.parametrize("ratio", [-1, "10081", "fast", None, "0.0001", "NaN", "Infinity", [1]])
def test_bad_live_ratio_is_400_and_changes_nothing(campaign, referee, client_for, ratio):
    before = world(campaign)
    answer = client_for(referee).put(url(campaign, "clock/live/"), {"ratio": ratio}, format="json")
    assert answer.status_code == 400
    assert world(campaign) == before


def test_player_actions_between_advances_use_the_clock_the_advance_reached(campaign, player, party):
    aldo, _ = party
    run_job(campaign, 100)
    damage = resolution_create_action(
        character_id=aldo.pk, actor=player, by_referee=False, action="damage", params={"amount": 1}
    )
    assert damage.clock == 100
