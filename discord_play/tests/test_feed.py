"""The webhooks' Discord format (``"format": "discord"``) received at a local receiver: each
event as Discord's own message JSON within Discord's documented limits, a two-week advance
report on the demo included; hidden rolls never posted; Discord's ``429`` honoured."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign
from discord_play import messages as m
from discord_play.telling import report_message
from discord_play.tests.conftest import SITE
from discord_play.tests.limits import check_message
from rules.clock.models import ClockReport
from rules.clock.report import report_characters
from rules.clock.services import clock_advance_run, clock_job_resume
from rules.clock.tests.clock_helpers import play_session, run_job
from rules.log.models import Resolution
from rules.play.services import resolution_cancel_choice
from webhook_delivery.services import webhook_deliver
from webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from webhooks.services import webhook_create

pytestmark = pytest.mark.django_db


def register(client, campaign, url: str, format: str | None = None) -> dict[str, Any]:
    body = {"url": url} if format is None else {"url": url, "format": format}
    response = client.post(
        reverse("api-webhooks", kwargs={"campaign_id": campaign.pk}), body, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def posts(receiver, path: str) -> list[dict[str, Any]]:
    return [item for item in receiver.received if item["path"] == path]


def text_of(message: dict[str, Any]) -> str:
    parts = [message.get("content", "")]
    for embed in message.get("embeds", []):
        parts += [embed.get("title", ""), embed.get("description", "")]
        parts += [f"{f['name']} {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


def test_an_action_reaches_the_channel_as_a_discord_message(
    discord, receiver, client_for, referee, player, table
):
    client = client_for(referee)
    made = register(client, table["campaign"], receiver.url + "/discord-hook", "discord")
    assert made["format"] == "discord"
    listed = client.get(reverse("api-webhooks", kwargs={"campaign_id": table["campaign"].pk}))
    assert listed.json()[0]["format"] == "discord"
    plain = register(client, table["campaign"], receiver.url + "/sawbones-hook")
    assert plain["format"] == "sawbones"  # the default: today's signed JSON
    url = reverse("api-actions", kwargs={"character_id": table["aldo"].pk})
    answer = client_for(player).post(
        url, {"action": "damage", "params": {"amount": 3}}, format="json"
    )
    assert answer.status_code == 201
    for endpoint in WebhookEndpoint.objects.all():
        webhook_deliver(endpoint_id=endpoint.pk)

    [sent] = posts(receiver, "/discord-hook")
    assert sent["method"] == "POST"
    assert "X-Sawbones-Signature" not in sent["headers"]  # Discord checks no signature
    message = sent["body"]
    check_message(message)
    [embed] = message["embeds"]
    assert embed["title"] == "Aldo: Take damage"
    assert "3 damage" in embed["description"]
    assert embed["url"] == (
        f"{SITE}/campaigns/{table['campaign'].pk}/log/?character={table['aldo'].pk}"
        f"&from_day=1&to_day=1#entry-{answer.json()['id']}"
    )
    [signed] = posts(receiver, "/sawbones-hook")
    assert (
        "X-Sawbones-Signature" in signed["headers"]
        and signed["body"]["type"] == "resolution.created"
    )


def test_a_bad_format_is_refused(client_for, referee, campaign):
    url = reverse("api-webhooks", kwargs={"campaign_id": campaign.pk})
    response = client_for(referee).post(
        url, {"url": "https://example.org/x", "format": "slack"}, format="json"
    )
    assert response.status_code == 400
    assert not WebhookEndpoint.objects.exists()


def test_discord_rate_limits_are_waited_out(discord, receiver, referee, table, client_for):
    endpoint = webhook_create(
        campaign=table["campaign"], url=receiver.url + "/hook", user=referee, format="discord"
    )
    receiver.answer(
        429, {"message": "You are being rate limited.", "retry_after": 2.5, "global": False}
    )
    url = reverse("api-actions", kwargs={"character_id": table["aldo"].pk})
    client_for(referee).post(url, {"action": "damage", "params": {"amount": 1}}, format="json")
    start = timezone.now()
    wait = webhook_deliver(endpoint_id=endpoint.pk)
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert delivery.state == DeliveryState.PENDING and delivery.last_status == 429
    assert delivery.attempts == 0  # a rate limit is no failed try
    assert start + timedelta(seconds=2.4) < delivery.next_attempt_at
    assert delivery.next_attempt_at < timezone.now() + timedelta(seconds=2.6)
    assert wait is not None and 2.4 < wait < 5  # counted from the run's start
    # too early: nothing is sent; once the wait is over, it goes
    webhook_deliver(endpoint_id=endpoint.pk)
    assert len(receiver.received) == 1
    webhook_deliver(endpoint_id=endpoint.pk, now=timezone.now() + timedelta(seconds=3))
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.DELIVERED and delivery.attempts == 1
    assert len(receiver.received) == 2


def test_two_weeks_of_the_demo_reach_the_channel_within_discords_limits(
    discord, receiver, settings, client_for
):
    settings.SAWBONES_EMBEDDED = True
    call_command("seed_demo", stdout=io.StringIO())
    settings.SAWBONES_EMBEDDED = False
    campaigns = list(Campaign.objects.order_by("pk"))
    for campaign in campaigns:
        referee = campaign.memberships.get(role="referee").user
        discord_url, plain_url = (
            f"{receiver.url}/d/{campaign.pk}",
            f"{receiver.url}/s/{campaign.pk}",
        )
        webhook_create(campaign=campaign, url=discord_url, user=referee, format="discord")
        webhook_create(campaign=campaign, url=plain_url, user=referee)
    play_session()  # blows, rests, and a fever caught in secret (ruling G-4)
    for campaign in campaigns:
        job = run_job(campaign, 14 * 24 * 60)
        while job.state == "waiting":  # a choice on the way (G-3): the referee cancels it
            assert job.waiting_on_id is not None
            resolution_cancel_choice(character_id=job.waiting_on_id, actor=None)
            clock_job_resume(job_id=job.pk)
            clock_advance_run(job_id=job.pk)
            job.refresh_from_db()
    for endpoint in WebhookEndpoint.objects.order_by("pk"):
        webhook_deliver(endpoint_id=endpoint.pk)

    effects = Resolution.objects.filter(kind="effect").count()
    discord_posts = [item for item in receiver.received if item["path"].startswith("/d/")]
    assert effects > 20
    assert 0 < len(discord_posts) < effects // 2  # the report tells the effects, not one each
    reports = 0
    for item in discord_posts:
        message = item["body"]
        check_message(message)
        if message["embeds"][0]["title"].startswith("What the clock did"):
            reports += 1
            assert message["embeds"][0]["title"].endswith("to Day 15, 00:00")
    assert reports >= 1
    # the old school demo's fever, caught in secret: the referee's JSON tells it; the channel
    # never tells what was hidden (the catching, its first save), only what shows itself
    old_school = next(c for c in campaigns if c.ruleset == "old_school")
    signed = " ".join(json.dumps(i["body"]) for i in posts(receiver, f"/s/{old_school.pk}"))
    told = posts(receiver, f"/d/{old_school.pk}")
    shown = " ".join(text_of(i["body"]) for i in told)
    assert "Green River Fever" in signed
    caught = [i["body"] for i in told if "Contract a disease" in i["body"]["embeds"][0]["title"]]
    assert caught and all("Green River Fever" not in text_of(body) for body in caught)
    hidden = [
        event["resolution"]
        for report in ClockReport.objects.filter(campaign=old_school)
        for entry in report_characters(report)
        for event in entry["events"]
        if event.get("hidden")
    ]
    assert hidden
    for resolution_id in hidden:
        assert f"#entry-{resolution_id})" not in shown


def test_a_long_report_is_summed_up_and_linked_never_cut_in_a_sentence(discord, campaign):
    events: list[dict[str, Any]] = [
        {
            "clock": hour * 60,
            "resolution": 1000 + hour,
            "summary": f"Night {hour}: sleeps badly, dreams of the river and wakes cold and sore.",
            "notable": ["death"] if hour == 90 else [],
        }
        for hour in range(1, 120)
    ]
    characters = [
        {
            "id": n,
            "name": f"Hero {n}",
            "state_before": "standing",
            "state_after": "dead",
            "events": events,
        }
        for n in range(1, 15)
    ]
    report = {"id": 7, "kind": "advance", "from": 0, "to": 14 * 24 * 60, "characters": characters}
    job = run_job(campaign, 30)
    message = report_message(campaign, report, job)
    check_message(message)
    assert len(message["embeds"]) == m.EMBEDS_MAX
    assert "5 more characters are in the whole report." in message["content"]
    whole = f"{SITE}/campaigns/{campaign.pk}/clock/jobs/{job.pk}/"
    first = message["embeds"][0]
    assert first["url"] == whole
    assert first["description"].startswith("**Hero 1** died (Day 4, 18:00)")  # deaths first
    told = {
        f"Day {e['clock'] // 1440 + 1}, {e['clock'] % 1440 // 60:02d}:00 · {e['summary']}"
        for e in events
    }
    for embed in message["embeds"][1:]:
        lines = embed["description"].split("\n")
        assert lines[0] == "119 events."
        assert lines[-1] == f"The whole report: {whole}"  # summed up and linked
        assert len(lines) > 3  # some events told, whole
        for line in lines[1:-1]:
            assert line in told, line  # each event whole: never cut in a sentence


def test_a_message_that_cannot_be_made_is_a_failed_try(
    discord, receiver, referee, table, client_for, monkeypatch
):
    from webhook_delivery import services

    def broken(event: Any) -> dict[str, Any]:
        raise ValueError("no words for it")

    monkeypatch.setattr(services, "discord_message", broken)
    endpoint = webhook_create(
        campaign=table["campaign"], url=receiver.url + "/hook", user=referee, format="discord"
    )
    url = reverse("api-actions", kwargs={"character_id": table["aldo"].pk})
    client_for(referee).post(url, {"action": "damage", "params": {"amount": 1}}, format="json")
    webhook_deliver(endpoint_id=endpoint.pk)
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert delivery.state == DeliveryState.PENDING and delivery.attempts == 1
    assert "could not make the discord message: no words for it" in delivery.last_error
    assert receiver.received == []
