"""The players' e-mail digest (issue 25): a player opts in on the campaign page and gets,
at most once a day, a mail of what the clock did to their own characters, built from the
same reports as the "since you last looked" panel; no hidden event, no mail when nothing
happened, one mail however many tasks run (Django's mail outbox)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
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
