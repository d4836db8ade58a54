"""The import invitation's e-mail in the language the referee invited in (issue 37).

The mail goes out from a task, after the import's transaction: the language of the page
or API request that imported travels with the task, whatever language is active when the
task runs.
"""

from __future__ import annotations

import pytest
from django.core import mail
from django.utils import translation

from campaigns.invitations import invitations_create, send_invitation_email
from campaigns.models import Membership, PlayerInvitation
from tests.test_translations import compiled  # noqa: F401 - the catalogues, compiled

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled")]


@pytest.fixture
def invited(outsider):
    outsider.email = "pell@example.org"
    outsider.save()
    return outsider


def invite(campaign, referee, language):
    membership = Membership.objects.get(campaign=campaign, user=referee)
    with translation.override(language):
        return invitations_create(membership=membership, named={"Pell": "outsider"}, characters={})


def test_the_mail_speaks_the_language_the_referee_invited_in(
    campaign, referee, invited, django_capture_on_commit_callbacks
):
    # The task runs once the callbacks run: after the German request's language is gone.
    with django_capture_on_commit_callbacks(execute=True):
        invite(campaign, referee, "de")
    assert translation.get_language() == "en"
    (sent,) = mail.outbox
    assert sent.to == ["pell@example.org"]
    assert sent.subject == "referee lädt dich ein, in A hit_dice campaign zu spielen"
    assert "referee hat die Kampagne A hit_dice campaign in Sawbones importiert und " in sent.body
    assert "der Spieler „Pell“ darin" in sent.body
    assert "has imported" not in sent.body


def test_a_task_queued_without_a_language_mails_in_english(campaign, referee, invited):
    """A task queued before the language travelled with it (no second argument)."""
    with translation.override("es"):
        invite(campaign, referee, "es")  # no commit in this test: no mail yet
    (invitation,) = PlayerInvitation.objects.all()
    with translation.override("de"):
        assert send_invitation_email(invitation.pk) is True
    (sent,) = mail.outbox
    assert sent.subject == "referee invites you to play in A hit_dice campaign"
    assert "referee has imported the campaign A hit_dice campaign into Sawbones" in sent.body


def test_a_language_the_site_does_not_speak_mails_in_english(campaign, referee, invited):
    invite(campaign, referee, "en")
    (invitation,) = PlayerInvitation.objects.all()
    assert send_invitation_email(invitation.pk, "xx") is True
    assert mail.outbox[0].subject == "referee invites you to play in A hit_dice campaign"
