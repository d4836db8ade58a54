"""Celery task of the Discord interface: the advance's follow-up (docs/discord.md). Ids in,
one service call; in-process in the embedded mode and the tests, as every task."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.utils import translation

from discord_play.followup import FOLLOW_UP_TRIES, advance_follow_up


@shared_task(bind=True, acks_late=True, max_retries=FOLLOW_UP_TRIES)
def report_advance(
    self: object, job_id: int, application_id: str, token: str, language: str = ""
) -> str:
    """Edit ``/sawbones advance``'s deferred answer with what the advance did, once its
    clock job is done, waits on a choice or failed (tried again while it runs), in the
    asker's language (a task queued before languages has none: English)."""
    with translation.override(language or settings.LANGUAGE_CODE):
        outcome = advance_follow_up(
            job_id=job_id,
            application_id=application_id,
            token=token,
            last_try=self.request.retries >= FOLLOW_UP_TRIES,  # type: ignore[attr-defined]
        )
    if outcome.again_in is not None:
        raise self.retry(countdown=outcome.again_in)  # type: ignore[attr-defined]
    return outcome.state
