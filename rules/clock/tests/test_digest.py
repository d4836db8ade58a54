"""The players' e-mail digest (issue 25): a player opts in on the campaign page and gets,
at most once a day, a mail of what the clock did to their own characters, built from the
same reports as the "since you last looked" panel; no hidden event, no mail when nothing
happened, one mail however many tasks run (Django's mail outbox)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaigns.models import Membership
from campaigns.selectors import membership_for_digest
from rules.clock import digest as digest_module
from rules.clock.digest import digest_send
from rules.clock.tasks import queue_digests, send_digest
from rules.clock.tests.clock_helpers import run_job, wounded
from rules.log.models import Resolution
from rules.play.services import character_create, resolution_create_action

pytestmark = pytest.mark.django_db
DAY = 24 * 60


@pytest.fixture
def with_emails(referee, player, other_player):
    for user in (referee, player, other_player):
        user.email = f"{user.username}@example.org"
        user.save(update_fields=["email"])


def opt_in(web, user, campaign) -> Membership:
    answer = web(user).post(f"/campaigns/{campaign.pk}/digest/", {"email_digest": "on"})
    assert answer.status_code == 302
    return Membership.objects.get(campaign=campaign, user=user)


def test_one_mail_a_day_at_most_of_the_players_own_characters(
    campaign, referee, player, other_player, with_emails, web
):
    membership = opt_in(web, player, campaign)
    assert membership.email_digest and membership.digest_since is not None
    wounded(campaign, player, "Aldo", every=60)
    wounded(campaign, other_player, "Bea", every=60)
    run_job(campaign, 60)

    queue_digests()  # beat: a send task per player due (in-process here)
    assert len(mail.outbox) == 1
    (sent,) = mail.outbox
    assert sent.to == ["player@example.org"]
    assert sent.subject == f"What happened to your characters in {campaign.name}"
    assert "Aldo" in sent.body and "Day 1, 01:00" in sent.body
    assert "Bea" not in sent.body  # another player's character

    # the same day: more happens, beat runs again, a duplicated task too: no second mail
    run_job(campaign, 60)
    queue_digests()
    send_digest.delay(membership.pk)
    assert len(mail.outbox) == 1

    # a day later: the next digest tells what happened since the last one only
    tomorrow = timezone.now() + timedelta(days=1, minutes=1)
    assert digest_send(membership_id=membership.pk, now=tomorrow)
    assert len(mail.outbox) == 2
    assert "- Day 1, 02:00:" in mail.outbox[1].body
    assert "- Day 1, 01:00:" not in mail.outbox[1].body

    # nothing happened since: no mail, whatever the day
    assert not digest_send(membership_id=membership.pk, now=tomorrow + timedelta(days=2))
    assert len(mail.outbox) == 2

    # the other player never asked: nothing for them; stopping stops it
    assert all(m.to == ["player@example.org"] for m in mail.outbox)
    web(player).post(f"/campaigns/{campaign.pk}/digest/", {})
    membership.refresh_from_db()
    assert not membership.email_digest


def test_nothing_is_sent_when_nothing_happened(campaign, player, with_emails, web):
    membership = opt_in(web, player, campaign)
    wounded(campaign, player, "Aldo", every=600)
    run_job(campaign, 60)  # the wound worsens only later: the report names no one
    queue_digests()
    assert mail.outbox == []
    membership.refresh_from_db()
    assert membership.digest_sent_at is None


def test_hidden_events_stay_out_of_the_mail(make_campaign, referee, player, with_emails, web):
    campaign = make_campaign("old_school", track_sleep=False)
    patient = character_create(
        membership=campaign.memberships.get(user=player),
        name="Patient",
        sheet={"resting": True, "intelligence": 18},
    )
    resolution_create_action(
        character_id=patient.pk,
        actor=referee,
        by_referee=True,
        action="contract_disease",
        params={"disease": "Green River Fever", "hidden": True},
    )
    opt_in(web, player, campaign)
    run_job(campaign, 7 * DAY + 5)  # the first save: a hidden effect (G-4)
    queue_digests()
    (sent,) = mail.outbox  # the nightly entries are the player's to read
    first = Resolution.objects.get(character=patient, action="disease_save")
    assert "Patient" in sent.body
    assert first.summary not in sent.body
    assert "Green River Fever" not in sent.body


def test_two_tasks_that_read_the_same_digest_send_it_once(
    campaign, player, with_emails, web, monkeypatch
):
    membership = opt_in(web, player, campaign)
    wounded(campaign, player, "Aldo", every=60)
    run_job(campaign, 60)
    stale = membership_for_digest(membership.pk)  # a second task read it before the first sent
    assert digest_send(membership_id=membership.pk)
    monkeypatch.setattr(digest_module, "membership_for_digest", lambda pk: stale)
    assert not digest_send(membership_id=membership.pk)  # its compare-and-set fails
    assert len(mail.outbox) == 1


def test_a_mail_that_fails_is_sent_by_the_next_try(campaign, player, with_emails, web, monkeypatch):
    membership = opt_in(web, player, campaign)
    wounded(campaign, player, "Aldo", every=60)
    run_job(campaign, 60)

    def refuse(*args, **kwargs):
        raise OSError("the mail server is down")

    monkeypatch.setattr(digest_module, "send_mail", refuse)
    with pytest.raises(OSError):
        digest_send(membership_id=membership.pk)
    membership.refresh_from_db()
    assert membership.digest_sent_at is None
    monkeypatch.undo()
    assert digest_send(membership_id=membership.pk)
    assert len(mail.outbox) == 1


def test_the_campaign_page_offers_the_digest_to_players_only(campaign, referee, player, web):
    page = web(player).get(f"/campaigns/{campaign.pk}/").content.decode()
    assert "E-mail me what happens to my characters" in page
    assert "You have no e-mail address yet" in page
    assert "E-mail me" not in web(referee).get(f"/campaigns/{campaign.pk}/").content.decode()
    refused = web(referee).post(f"/campaigns/{campaign.pk}/digest/", {"email_digest": "on"})
    assert refused.status_code == 403


def test_the_sweep_sends_a_task_for_each_player_due_with_an_address_and_no_one_else(
    campaign, referee, player, other_player, with_emails, web
):
    """The players asked of beat's sweep (read in two index-backed steps since issue 39):
    opted in, a player, an e-mail address, no digest in the last day."""
    due = opt_in(web, player, campaign)
    mute = opt_in(web, other_player, campaign)
    other_player.email = ""
    other_player.save(update_fields=["email"])
    Membership.objects.filter(campaign=campaign, user=referee).update(email_digest=True)
    now = timezone.now()
    assert digest_module.digests_due(now) == [due.pk]  # never sent; the referee gets none
    Membership.objects.filter(pk=due.pk).update(digest_sent_at=now - timedelta(hours=23))
    assert digest_module.digests_due(now) == []
    Membership.objects.filter(pk=due.pk).update(digest_sent_at=now - timedelta(hours=25))
    assert digest_module.digests_due(now) == [due.pk]
    other_player.email = "back@example.org"
    other_player.save(update_fields=["email"])
    assert digest_module.digests_due(now) == sorted([due.pk, mute.pk])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_the_sweep_reads_the_players_due_by_index_ranges_and_their_accounts_by_key(campaign):
    """Issue 39: with hundreds of players opted in and three due, beat's sweep reads the
    due ones' index entries only, and only their accounts (bench/scale.py at 10,000)."""
    now = timezone.now()
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"reader{n}", email=f"reader{n}@example.org", password="!")
        for n in range(600)
    )
    Membership.objects.bulk_create(
        Membership(
            campaign=campaign,
            user=user,
            role="player",
            email_digest=True,
            digest_sent_at=None if n < 2 else now - timedelta(hours=25 if n == 2 else 1),
        )
        for n, user in enumerate(users)
    )
    with connection.cursor() as cursor:
        for model in (Membership, get_user_model()):
            cursor.execute(f"ANALYZE {model._meta.db_table}")
    with CaptureQueriesContext(connection) as reads:
        due = digest_module.digests_due(now)
    assert len(due) == 3
    with connection.cursor() as cursor:
        for read in reads:
            cursor.execute(f"EXPLAIN {read['sql']}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "Seq Scan" not in plan and "Hash" not in plan, plan
            filters = [line for line in plan.splitlines() if "Filter:" in line]
            assert not any("digest_sent_at" in line for line in filters), plan
