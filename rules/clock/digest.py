"""The e-mail digest (issue 25, docs/clock.md "Word to the players"): a player who asked
for it gets, at most once a day, a mail of what the clock did to their characters since
the last one, built from the same reports as the "since you last looked" panel
(``rules.clock.selectors.reports_since``): their own characters only, no hidden event
(ruling G-4), and no mail at all when nothing happened.

Beat runs :func:`digests_due` (housekeeping: a short query) and sends one task per player
due to the ``email`` queue (``rules.clock.digest.send_email``, config/queues.py), which
calls :func:`digest_send`. Exactly one mail per digest: the membership's ``digest_sent_at``
moves by compare-and-set before the mail is sent (``campaigns.services
.membership_digest_claim``), so a duplicated task, or two beats, send it once; a mail that
fails puts the claim back for the next try.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.selectors import account_language
from campaigns.models import Campaign
from campaigns.selectors import clock_display, digest_due_memberships, membership_for_digest
from campaigns.services import membership_digest_claim, membership_digest_unclaim
from rules.clock.report import notable_first
from rules.clock.selectors import own_character_ids, reports_since

logger = logging.getLogger(__name__)

# At most one digest a day per player and campaign.
DIGEST_EVERY = timedelta(days=1)


def digests_due(now: datetime | None = None) -> list[int]:
    """The memberships whose digest may go out now (asked for, an e-mail address, none
    in the last day): one send task each."""
    return digest_due_memberships(now or timezone.now(), DIGEST_EVERY)


def _campaign_url(campaign: Campaign) -> str:
    path = reverse("campaign", args=[campaign.pk])
    site = str(getattr(settings, "SAWBONES_SITE_URL", "") or "").rstrip("/")
    return f"{site}{path}" if site else path


def digest_text(campaign: Campaign, reports: list[dict[str, Any]]) -> str:
    """The mail's body: each report's span in the campaign's calendar, the notable first,
    then each character's events in time order."""
    told = []
    for report in reports:
        told.append(
            {
                "from": clock_display(report["from"], campaign),
                "to": clock_display(report["to"], campaign),
                "notable": notable_first(report["characters"]),
                "characters": [
                    {
                        **character,
                        "events": [
                            {**event, "date": clock_display(event["clock"], campaign)}
                            for event in character["events"]
                        ],
                    }
                    for character in report["characters"]
                ],
            }
        )
    return render_to_string(
        "campaigns/digest_email.txt",
        {"campaign": campaign, "reports": told, "url": _campaign_url(campaign)},
    )


def digest_send(*, membership_id: int, now: datetime | None = None) -> bool:
    """Send the player's digest if it is due and something happened; True when a mail
    went out. Safe to run any number of times (module docstring)."""
    now = now or timezone.now()
    membership = membership_for_digest(membership_id)
    if membership is None or not membership.email_digest or membership.is_referee:
        return False
    address = membership.user.email
    last_sent, since = membership.digest_sent_at, membership.digest_since
    if not address or (last_sent is not None and last_sent > now - DIGEST_EVERY):
        return False
    campaign = membership.campaign
    own = own_character_ids(campaign, membership.user_id)
    reports = reports_since(campaign, own=own, since=since or membership.joined_at, until=now)
    if not reports:
        return False  # nothing happened: no mail, and the next one still counts from since
    if not membership_digest_claim(
        membership_id=membership.pk, last_sent=last_sent, since=since, now=now
    ):
        return False  # another task sent it, or the player stopped it meanwhile
    # in the reader's language (their account's choice), not the beat's: else English
    with translation.override(account_language(membership.user) or settings.LANGUAGE_CODE):
        subject = _("What happened to your characters in %(campaign)s") % {
            "campaign": campaign.name
        }
        body = digest_text(campaign, reports)
    try:
        send_mail(subject, body, None, [address])
    except Exception:
        membership_digest_unclaim(
            membership_id=membership.pk, claimed=now, last_sent=last_sent, since=since
        )
        logger.exception("digest of membership %s not sent; the next try sends it", membership_id)
        raise
    return True
