"""The campaigns app's Celery tasks, found by ``autodiscover_tasks``: the import
invitation's e-mail (defined beside what it sends, campaigns.invitations)."""

from __future__ import annotations

from campaigns.invitations import send_invitation_email

__all__ = ["send_invitation_email"]
