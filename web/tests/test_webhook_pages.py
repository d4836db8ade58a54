"""The campaign page's webhooks section: add (the secret shown once), log, re-send,
remove; referee only."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.services import events_record

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_referee_adds_a_webhook_and_sees_its_secret_once(referee, campaign):
    client = signed_in(referee)
    added = client.post(
        reverse("webhook-new", args=[campaign.pk]), {"url": "https://bot.example.org/hook"}
    )
    assert added.status_code == 302
    page = client.get(added["Location"]).content.decode()
    endpoint = WebhookEndpoint.objects.get()
    match = re.search(r'id="new-webhook-secret" readonly value="([0-9a-f]+)"', page)
    assert match and match.group(1) == endpoint.secret
    again = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert endpoint.secret not in again
    assert "https://bot.example.org/hook" in again
    assert "Nothing sent yet." in again


def test_a_bad_address_says_why(referee, campaign):
    client = signed_in(referee)
    response = client.post(
        reverse("webhook-new", args=[campaign.pk]), {"url": "ftp://bot.example.org"}, follow=True
    )
    assert "That address cannot take webhooks" in response.content.decode()
    assert not WebhookEndpoint.objects.exists()


def test_the_log_resend_and_remove(referee, campaign):
    client = signed_in(referee)
    client.post(reverse("webhook-new", args=[campaign.pk]), {"url": "https://bot.example.org/"})
    endpoint = WebhookEndpoint.objects.get()
    events_record(campaign_id=campaign.pk, events=lambda: [("resolution.created", {})])
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(state="failed", attempts=10)
    page = " ".join(client.get(reverse("campaign", args=[campaign.pk])).content.decode().split())
    assert "something was resolved: not received, given up after 10 tries" in page

    resent = client.post(
        reverse("webhook-resend", args=[campaign.pk, endpoint.pk, delivery.pk]), follow=True
    )
    assert "The event is on its way again." in resent.content.decode()
    assert WebhookDelivery.objects.count() == 2

    removed = client.post(reverse("webhook-remove", args=[campaign.pk, endpoint.pk]), follow=True)
    assert "Webhook removed" in removed.content.decode()
    assert not WebhookEndpoint.objects.exists()


def test_players_and_outsiders_cannot(player, outsider, referee, campaign):
    client = signed_in(referee)
    client.post(reverse("webhook-new", args=[campaign.pk]), {"url": "https://bot.example.org/"})
    endpoint = WebhookEndpoint.objects.get()
    assert (
        "Webhooks"
        not in signed_in(player).get(reverse("campaign", args=[campaign.pk])).content.decode()
    )
    for user, status in ((player, 403), (outsider, 404)):
        other = signed_in(user)
        assert (
            other.post(
                reverse("webhook-new", args=[campaign.pk]), {"url": "https://x.org/"}
            ).status_code
            == status
        )
        assert (
            other.post(reverse("webhook-remove", args=[campaign.pk, endpoint.pk])).status_code
            == status
        )
    assert WebhookEndpoint.objects.count() == 1


def test_the_referee_adds_a_discord_channels_webhook(referee, campaign):
    client = signed_in(referee)
    client.post(
        reverse("webhook-new", args=[campaign.pk]),
        {"url": "https://discord.example.org/api/webhooks/1/abc", "format": "discord"},
    )
    assert WebhookEndpoint.objects.get().format == "discord"
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert "(a Discord channel)" in page
    refused = client.post(
        reverse("webhook-new", args=[campaign.pk]),
        {"url": "https://bot.example.org/other", "format": "slack"},
        follow=True,
    )
    assert "pick what the address gets from the list" in refused.content.decode()
    assert WebhookEndpoint.objects.count() == 1
