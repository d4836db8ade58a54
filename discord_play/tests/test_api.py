"""The API's part of playing from Discord: a person's link code and link (auth/discord/),
a campaign's channel (campaigns/{id}/discord/). Who may call each is in
tests/test_access_matrix.py."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from knox.crypto import hash_token

from accounts.models import DiscordLink, DiscordLinkCode
from accounts.services import discord_link_redeem
from discord_play.models import ChannelBinding

pytestmark = pytest.mark.django_db


def test_a_link_code_is_shown_once_kept_as_a_digest_and_links_once(client_for, player):
    client = client_for(player)
    made = client.post(reverse("api-discord-link-code"))
    assert made.status_code == 201
    body = made.json()
    code = body["code"]
    assert len(code) == 9 and code[4] == "-"
    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert timedelta(minutes=9) < expires - timezone.now() <= timedelta(minutes=10)
    record = DiscordLinkCode.objects.get(user=player)
    assert record.digest == hash_token(code.replace("-", ""))
    assert code not in str(list(DiscordLinkCode.objects.values()))  # only its digest is kept
    # a new code replaces the unused one
    newer = client.post(reverse("api-discord-link-code")).json()["code"]
    assert DiscordLinkCode.objects.filter(user=player).count() == 1
    assert client.get(reverse("api-discord-link")).json() == {
        "linked": False,
        "discord_user_id": None,
    }
    discord_link_redeem(code=newer, discord_user_id="123456789012345678")
    assert client.get(reverse("api-discord-link")).json() == {
        "linked": True,
        "discord_user_id": "123456789012345678",
    }
    assert client.delete(reverse("api-discord-link")).status_code == 204
    assert not DiscordLink.objects.exists()
    assert client.delete(reverse("api-discord-link")).status_code == 204  # nothing to unlink


def test_the_referee_binds_a_channel_by_the_api(client_for, referee, make_campaign):
    first, second = make_campaign("hit_dice"), make_campaign("old_school")
    client = client_for(referee)
    ids = {"guild_id": "800000000000000001", "channel_id": "700000000000000001"}
    answer = client.put(
        reverse("api-campaign-discord", kwargs={"campaign_id": first.pk}), ids, format="json"
    )
    assert answer.status_code == 200
    assert answer.json() == {"campaign": first.pk, **ids}
    moved = client.put(
        reverse("api-campaign-discord", kwargs={"campaign_id": second.pk}), ids, format="json"
    )
    assert moved.json()["campaign"] == second.pk
    assert ChannelBinding.objects.get().campaign == second  # the channel follows the new one
    for bad in ({"guild_id": "1"}, {**ids, "channel_id": "#general"}, {**ids, "guild_id": 12}):
        refused = client.put(
            reverse("api-campaign-discord", kwargs={"campaign_id": first.pk}), bad, format="json"
        )
        assert refused.status_code == 400
    assert ChannelBinding.objects.get().campaign == second
