"""The dashboard's invite link (issue 24): making one never revokes the others (a
single-use or expiring link made in Settings) unless the referee asks."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Invite
from campaigns.services import invite_create

pytestmark = pytest.mark.django_db


def test_a_new_dashboard_link_leaves_the_others_unless_asked(web, campaign, referee):
    single = invite_create(campaign=campaign, user=referee, single_use=True)
    expiring = invite_create(campaign=campaign, user=referee, expires_in_hours=48)
    client = web(referee)
    page = client.post(reverse("invite-new", args=[campaign.pk]), HTTP_HX_REQUEST="true")
    assert "Earlier links still work" in page.content.decode()
    assert "Stop the earlier links from working" in page.content.decode()
    assert Invite.objects.filter(campaign=campaign, revoked_at__isnull=True).count() == 3
    for invite in (single, expiring):
        invite.refresh_from_db()
        assert invite.revoked_at is None

    asked = client.post(
        reverse("invite-new", args=[campaign.pk]), {"revoke_others": "on"}, HTTP_HX_REQUEST="true"
    )
    assert "Earlier links no longer work" in asked.content.decode()
    assert Invite.objects.filter(campaign=campaign, revoked_at__isnull=True).count() == 1
