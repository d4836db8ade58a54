"""A move of the clock that crosses nothing (issue 30; docs/clock.md, "A move that
crosses nothing"): an action's time, a party action's or a referee's advance moves the
clock in its own transaction, with no job run and no task sent, when no pending effect
of the campaign falls due by the new minute and no job of it is unfinished. Otherwise an
action's job runs in the action's own transaction when at most ``INLINE_EFFECTS`` are
due by its target and no earlier job is unfinished (issue 39, docs/clock.md "A clock
job's fixed cost"), and is queued as before when more are. Jobs and Celery sends are
counted.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.clock import action_time as action_time_module
from rules.clock import batch as clock_batch
from rules.clock import queue as clock
from rules.clock import services as clock_services
from rules.clock.action_time import action_time
from rules.clock.batch import job_apply_batch
from rules.clock.models import ClockJob, ClockJobKind, ClockJobState
from rules.clock.report import report_characters
from rules.clock.services import clock_advance_start
from rules.clock.tests.clock_helpers import (
    assert_whole,
    effect_rows,
    log_of,
    twin_campaign,
    wounded,
)
from rules.log.models import CampaignTable, Resolution, ResolutionKind, ScheduledEffect
from rules.play.services import character_create, resolution_create_action
from webhooks import services as webhook_services
from webhooks.models import WebhookEvent
from webhooks.services import webhook_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def sends(monkeypatch):
    """The ids of the jobs whose Celery task was sent (and run: tasks are eager here)."""
    sent: list[int] = []
    send = clock.send

    def counted(job_id: int, *, backlog: bool = False) -> None:
        sent.append(job_id)
        send(job_id, backlog=backlog)

    monkeypatch.setattr(clock, "send", counted)
    return sent


@pytest.fixture
def school(make_campaign):
    return make_campaign("old_school")


@pytest.fixture
def pell(school, player):
    membership = Membership.objects.get(campaign=school, user=player)
    return character_create(membership=membership, name="Pell")


def act(client, character, action, params=None):
    response = client.post(
        f"/api/v1/characters/{character.pk}/actions/",
        {"action": action, "params": params or {}},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def clock_of(campaign):
    return Campaign.objects.get(pk=campaign.pk).clock


def test_an_action_whose_time_crosses_nothing_moves_the_clock_with_no_job_and_no_task(
    school, pell, player, client_for, sends, django_capture_on_commit_callbacks
):
    # given nothing due in the next 30 minutes (a new character's first effects are a
    # day and a year away, OS-5 and OS-8)
    assert not ScheduledEffect.objects.filter(campaign=school, due_at__lte=30).exists()
    with django_capture_on_commit_callbacks(execute=True):
        search = act(client_for(player), pell, "search", {"squares": 3})
    assert (search["elapsed_minutes"], search["clock"]) == (30, 0)
    assert clock_of(school) == 30
    assert not ClockJob.objects.filter(campaign=school).exists()
    assert sends == []


def test_an_effect_due_in_the_action_s_time_takes_the_job_and_applies_on_its_minute(
    school, pell, player, referee, client_for, sends, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        act(client_for(referee), pell, "drink", {"hours": 4})  # sober_up due at 04:00 (OS-9)
        act(client_for(player), pell, "night_rest")  # 8 hours: crosses it
    [job] = ClockJob.objects.filter(campaign=school)
    assert (job.kind, job.state, job.clock_start, job.target) == ("action", "done", 0, 480)
    assert sends == []  # one effect: run in the action's transaction, no task
    assert clock_of(school) == 480
    sober = Resolution.objects.get(character=pell, kind=ResolutionKind.EFFECT)
    assert (sober.action, sober.clock) == ("sober_up", 240)
    assert_whole(school)


def test_an_effect_due_at_the_new_minute_itself_is_crossed(
    school, pell, player, client_for, sends, django_capture_on_commit_callbacks
):
    window = ScheduledEffect.objects.get(character=pell, kind="sleep_window")
    assert window.due_at == 24 * 60  # the first sleep window ends a day in (OS-8)
    with django_capture_on_commit_callbacks(execute=True):
        act(client_for(player), pell, "day_rest")  # 24 hours: ends on that very minute
    [job] = ClockJob.objects.filter(campaign=school)
    assert (job.state, sends) == ("done", [])
    window.refresh_from_db()
    assert window.state == "done"
    assert window.resolution is not None and window.resolution.clock == 24 * 60


def test_an_action_waits_behind_an_unfinished_job_even_if_nothing_falls_due(
    school, pell, player, referee, client_for, sends, django_capture_on_commit_callbacks
):
    # given a referee's advance over the sober_up, its task not run yet
    act(client_for(referee), pell, "drink", {"hours": 4})
    with django_capture_on_commit_callbacks(execute=False) as pending:
        advance = clock_advance_start(campaign_id=school.pk, minutes=300)
        # when a search that crosses nothing is made meanwhile
        act(client_for(player), pell, "search", {"squares": 1})
    # then it did not jump ahead of the advance: it is queued behind it
    assert clock_of(school) == 0
    jobs = list(ClockJob.objects.filter(campaign=school).order_by("id"))
    assert [(j.pk, j.kind, j.state) for j in jobs] == [
        (advance.pk, "advance", "queued"),
        (jobs[1].pk, "action", "queued"),
    ]
    # (the action's job has no message of its own: the advance's end sends it, in turn)
    with django_capture_on_commit_callbacks(execute=True):
        for callback in pending:
            callback()
    assert sends == [advance.pk, jobs[1].pk]
    assert clock_of(school) == 310
    assert [j.state for j in ClockJob.objects.filter(campaign=school)] == ["done", "done"]


def test_an_action_s_own_effect_due_in_its_time_writes_the_job_with_the_action(school, player):
    untouched = action_time(campaign=school, minutes=60, actor=player, due=[61])
    assert untouched is not None and untouched.job is None and untouched.clock is not None
    crossing = action_time(campaign=school, minutes=60, actor=player, due=[90, 60])
    assert crossing is not None and crossing.clock is None
    assert crossing.job is not None and crossing.job.pk is None  # written by the play
    assert (crossing.job.kind, crossing.job.minutes) == (ClockJobKind.ACTION, 60)
    school.actions_move_clock = False
    assert action_time(campaign=school, minutes=60, actor=player) is None


def test_a_party_action_sends_nothing_whether_it_crosses_nothing_or_a_few_effects(
    school, pell, referee, client_for, sends, django_capture_on_commit_callbacks
):
    url = f"/api/v1/campaigns/{school.pk}/party-actions/"
    client = client_for(referee)
    with django_capture_on_commit_callbacks(execute=True):
        quiet = client.post(url, {"action": "search", "params": {"squares": 2}}, format="json")
    assert quiet.status_code == 201, quiet.content
    assert (quiet.json()["clock_job"], clock_of(school), sends) == (None, 20, [])
    with django_capture_on_commit_callbacks(execute=True):
        act(client, pell, "drink", {"hours": 1})  # sober_up due at 01:20
        crossing = client.post(url, {"action": "search", "params": {"squares": 9}}, format="json")
    assert crossing.status_code == 201, crossing.content
    [job] = ClockJob.objects.filter(campaign=school)
    assert crossing.json()["clock_job"] == job.pk
    assert sends == []  # run in the party action's transaction
    assert (job.state, clock_of(school)) == ("done", 110)


def test_a_referee_s_advance_that_crosses_nothing_is_done_when_answered(
    campaign, player, referee, client_for, sends, django_capture_on_commit_callbacks
):
    url = reverse("api-clock-advance", kwargs={"campaign_id": campaign.pk})
    client = client_for(referee)
    wounded(campaign, player, "Aldo", every=120)  # a worsening due at 02:00
    with django_capture_on_commit_callbacks(execute=True):
        quiet = client.post(url, {"minutes": 60, "request_id": "a"}, format="json")
        again = client.post(url, {"minutes": 60, "request_id": "a"}, format="json")
    assert quiet.status_code == again.status_code == 202, quiet.content
    assert quiet.json()["id"] == again.json()["id"]  # the retry: the same job, once
    job = ClockJob.objects.get(pk=quiet.json()["id"])
    assert (job.state, job.clock_start, job.target, job.clock_reached) == ("done", 0, 60, 60)
    assert job.finished_at is not None and (job.done, job.total) == (0, 0)
    assert quiet.json()["state"] == ClockJobState.DONE
    assert (clock_of(campaign), sends) == (60, [])
    with django_capture_on_commit_callbacks(execute=True):
        crossing = client.post(url, {"minutes": 60}, format="json")
    assert crossing.status_code == 202, crossing.content
    assert sends == [crossing.json()["id"]]
    job = ClockJob.objects.get(pk=crossing.json()["id"])
    assert (job.state, job.done, clock_of(campaign)) == ("done", 1, 120)


# -- an action's job in the action's own transaction (issue 39) -------------------------------
def _rest(campaign: Campaign, name: str) -> None:
    character = Character.objects.get(campaign=campaign, name=name)
    referee = campaign.memberships.get(role="referee").user
    resolution_create_action(
        character_id=character.pk, actor=referee, by_referee=True, action="long_rest", params={}
    )


def _no_ids(value: Any) -> Any:
    """A report without its rows' ids (each campaign has its own)."""
    if isinstance(value, dict):
        return {k: _no_ids(v) for k, v in value.items() if k not in ("id", "resolution")}
    if isinstance(value, list):
        return [_no_ids(item) for item in value]
    return value


def _outcome(campaign: Campaign) -> tuple[Any, ...]:
    """What a job leaves behind, ids aside: its log, effects, job, report and clock."""
    [job] = ClockJob.objects.filter(campaign=campaign, kind=ClockJobKind.ACTION)
    report = job.report
    campaign.refresh_from_db()
    return (
        log_of(campaign),
        effect_rows(campaign),
        (job.state, job.reason, job.done, job.total, job.clock_start, job.target),
        (job.clock_reached, job.skipped, job.waiting_on is not None),
        None
        if report is None
        else (report.clock_from, report.clock_to, _no_ids(report_characters(report))),
        (campaign.clock, campaign.dice_counter),
    )


@pytest.mark.parametrize(
    ("every", "dc", "in_action"),
    [
        (240, 1, True),  # 2 effects a character, 2 batches: done in the action
        (60, 1, False),  # 8 batches: the action runs 2, a worker the rest
        (240, 100, True),  # the first worsening asks a choice: the job waits (G-3)
    ],
)
def test_an_action_s_job_run_in_its_transaction_leaves_what_a_worker_s_leaves(
    campaign,
    player,
    other_player,
    sends,
    monkeypatch,
    django_capture_on_commit_callbacks,
    every,
    dc,
    in_action,
):
    # given twin campaigns with the same seed and party, their wounds due every `every`
    twin = twin_campaign(campaign)
    for each in (campaign, twin):
        wounded(each, player, "Aldo", every=every, dc=dc)
        wounded(each, other_player, "Bea", every=every, dc=dc)
    # when Aldo rests 8 hours in each, the twin's job on a worker (nothing runs in the action)
    with monkeypatch.context() as worker_only:
        worker_only.setattr(clock_services, "INLINE_EFFECTS", 0)
        with django_capture_on_commit_callbacks(execute=True):
            _rest(twin, "Aldo")
    [worked] = ClockJob.objects.filter(campaign=twin, kind=ClockJobKind.ACTION)
    assert sends == [worked.pk]
    with django_capture_on_commit_callbacks(execute=True):
        _rest(campaign, "Aldo")
    [job] = ClockJob.objects.filter(campaign=campaign, kind=ClockJobKind.ACTION)
    # then the job ran in the action (sent only for what is left), with the same result
    assert sends == ([worked.pk] if in_action else [worked.pk, job.pk])
    job.refresh_from_db()
    worked.refresh_from_db()
    assert (job.started_in_action, worked.started_in_action) == (True, False)  # took no turn
    assert _outcome(campaign) == _outcome(twin)
    assert job.state == ("waiting" if dc == 100 else "done")
    assert_whole(campaign)


def test_more_effects_due_than_an_action_runs_go_to_a_worker(
    campaign, player, other_player, sends, monkeypatch, django_capture_on_commit_callbacks
):
    wounded(campaign, player, "Aldo", every=240)  # 2 due by the rest's end: 240, 240
    wounded(campaign, other_player, "Bea", every=240)
    monkeypatch.setattr(clock_services, "INLINE_EFFECTS", 1)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        _rest(campaign, "Aldo")
        [job] = ClockJob.objects.filter(campaign=campaign, kind=ClockJobKind.ACTION)
        assert (job.state, job.done) == ("queued", 0)  # not run in the action
    assert callbacks and sends == [job.pk]
    job.refresh_from_db()
    assert (job.state, job.done, clock_of(campaign)) == ("done", 4, 480)


def test_a_job_that_fails_in_its_action_leaves_the_action_and_goes_to_a_worker(
    campaign, player, sends, monkeypatch, django_capture_on_commit_callbacks
):
    wounded(campaign, player, "Aldo", every=240)
    apply, calls = job_apply_batch, []

    def fails_in_the_action(
        campaign: Campaign,
        job: ClockJob,
        due: Any = None,
        known: Any = None,
        tables: Any = None,
        defer: bool = False,
    ) -> Any:
        batch = apply(campaign, job, due, known, tables, defer)
        calls.append(job.pk)
        if len(calls) == 1:  # the action's first batch written, then a failure
            raise RuntimeError("boom")
        return batch  # the worker's

    monkeypatch.setattr(clock_services, "job_apply_batch", fails_in_the_action)
    with django_capture_on_commit_callbacks(execute=True):
        _rest(campaign, "Aldo")
        # the failed batch is undone with its savepoint; the action's rows stay
        [job] = ClockJob.objects.filter(campaign=campaign, kind=ClockJobKind.ACTION)
        assert (job.state, job.done) == ("queued", 0)
        assert Resolution.objects.filter(campaign=campaign, action="long_rest").exists()
    assert sends == [job.pk]
    job.refresh_from_db()
    assert (job.state, job.done, clock_of(campaign)) == ("done", 2, 480)
    assert_whole(campaign)


@pytest.mark.parametrize("edited", [False, True])
def test_an_action_s_job_in_its_transaction_takes_no_statement_the_held_lock_answers(
    campaign, player, other_player, monkeypatch, django_capture_on_commit_callbacks, edited
):
    # given two characters whose wounds fall due twice in a rest: two batches of two;
    # the campaign with an edited table or none
    wounded(campaign, player, "Aldo", every=240)
    wounded(campaign, other_player, "Bea", every=240)
    if edited:
        CampaignTable.objects.create(campaign=campaign, key="house_rules", data={"a": 1})
    send, statements = clock_services.clock_job_send, list[str]()

    def counted(job: ClockJob, locked: Campaign, **known: Any) -> None:
        with CaptureQueriesContext(connection) as queries:
            send(job, locked, **known)
        statements.extend(query["sql"] for query in queries.captured_queries)

    monkeypatch.setattr(action_time_module, "clock_job_send", counted)
    with django_capture_on_commit_callbacks(execute=True):
        _rest(campaign, "Aldo")
    [job] = ClockJob.objects.filter(campaign=campaign, kind=ClockJobKind.ACTION)
    assert (job.state, job.done) == ("done", 4)
    # then the job's bookkeeping is a few statements around its two batches' own (8 and 9):
    # no campaign lookup or second lock, no job lock, no later jobs' heartbeat or next
    # job, the report written once, the webhook URLs looked up once (49 before, issue 39);
    # its first batch's effects read with the check for an earlier job, and no count of
    # what is left after a batch that read every effect due, and no webhook URL looked up
    # in a campaign the action's lock read has none (24 before), and the campaign's tables
    # read by each batch only if it has edited one (its first read says so); the last
    # batch's effects and sheets written with the job's end, one statement (16 before)
    tables = [sql for sql in statements if sql.startswith('SELECT "rules_campaigntable"')]
    assert len(tables) == (2 if edited else 0)
    most = 15 if connection.vendor == "postgresql" else 16  # elsewhere, the saves apart
    assert len(statements) <= most + len(tables), "\n".join(statements)
    if connection.vendor == "postgresql":
        ends = [sql for sql in statements if 'INSERT INTO "clock_clockreport"' in sql]
        assert len(ends) == 1 and ends[0].startswith("WITH effects AS (UPDATE"), ends
    # one savepoint, which the action's COMMIT releases (core.savepoints): no RELEASE
    assert sum(sql.startswith("SAVEPOINT") for sql in statements) == 1
    assert not any(sql.startswith("RELEASE SAVEPOINT") for sql in statements)
    assert not any("COUNT(" in sql for sql in statements)
    assert sum("webhooks_webhookendpoint" in sql for sql in statements) == 0
    reads = [sql for sql in statements if sql.startswith("SELECT")]
    assert not any('FROM "campaigns_campaign"' in sql for sql in reads)
    assert sum('FROM "rules_clockjob"' in sql for sql in reads) == 1  # an earlier job?


def test_an_action_s_job_in_a_campaign_with_a_webhook_posts_its_events(
    campaign, referee, player, other_player, monkeypatch, django_capture_on_commit_callbacks
):
    # given a campaign with a webhook URL, two wounds due twice in a rest
    wounded(campaign, player, "Aldo", every=240)
    wounded(campaign, other_player, "Bea", every=240)
    webhook_create(campaign=campaign, url="https://example.org/hook", user=referee)
    monkeypatch.setattr(webhook_services, "_send_after_commit", lambda endpoint_id: None)
    before = set(WebhookEvent.objects.values_list("pk", flat=True))
    # when Aldo rests, the job running in the action
    with (
        django_capture_on_commit_callbacks(execute=True),
        CaptureQueriesContext(connection) as queries,
    ):
        _rest(campaign, "Aldo")
    [job] = ClockJob.objects.filter(campaign=campaign, kind=ClockJobKind.ACTION)
    assert (job.state, job.done) == ("done", 4)
    # then the URL gets the rest's, each effect's and the job's events, looked up once for
    # the job (the action's lock read said the campaign has one)
    types = list(
        WebhookEvent.objects.exclude(pk__in=before).order_by("pk").values_list("type", flat=True)
    )
    assert types.count("resolution.created") == 1 + 4
    assert types[-1] == "clock_job.updated"
    lookups = [
        query
        for query in queries.captured_queries
        if query["sql"].startswith('SELECT "webhooks_webhookendpoint"."id"')
    ]
    assert len(lookups) == 2  # for the action's resolution, then for all the job's events


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a batch defers on PostgreSQL")
def test_an_effect_changed_under_the_deferred_update_undoes_the_job_not_the_action(
    campaign, player, sends, monkeypatch, django_capture_on_commit_callbacks, caplog
):
    """The last batch's effects and sheets go with the job's end (PostgreSQL), checked
    there as a batch checks its own: an effect no longer pending when they are written
    undoes the job's savepoint, and a worker runs the job again; the action stays."""
    wounded(campaign, player, "Aldo", every=240)
    write = clock_batch.write_batch

    def changed_meanwhile(batch: Any, defer: bool = False) -> None:
        write(batch, defer)
        if batch.deferred is not None and not changed:  # the action's batch, deferred
            [first, *_] = batch.touched
            ScheduledEffect.objects.filter(pk=first.pk).update(state="cancelled")
            changed.append(first.pk)

    changed: list[int] = []
    monkeypatch.setattr(clock_batch, "write_batch", changed_meanwhile)
    with django_capture_on_commit_callbacks(execute=True):
        _rest(campaign, "Aldo")
        [job] = ClockJob.objects.filter(campaign=campaign, kind=ClockJobKind.ACTION)
        assert (job.state, job.done) == ("queued", 0)  # undone with its savepoint
        assert Resolution.objects.filter(campaign=campaign, action="long_rest").exists()
    assert changed and "1 effects were no longer pending" in caplog.text
    assert sends == [job.pk]
    job.refresh_from_db()
    assert (job.state, job.done, clock_of(campaign)) == ("done", 2, 480)
    assert_whole(campaign)
