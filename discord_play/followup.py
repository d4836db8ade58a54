"""The advance's follow-up (``/sawbones advance``, docs/discord.md): Discord got a deferred
answer within its three seconds; once the clock job is done, waits on a choice or failed,
that answer is edited into the advance's report (``telling.advance_message``) through
Discord's follow-up webhook. Discord keeps an interaction's token fifteen minutes: the job
is waited for up to about thirteen."""

from __future__ import annotations

from dataclasses import dataclass

from celery import current_app

from discord_play.discord_api import edit_original
from discord_play.telling import advance_message
from rules.clock.models import ClockJob, ClockJobState

FOLLOW_UP_WAIT_SECONDS = 5
FOLLOW_UP_TRIES = 160  # 160 tries 5 seconds apart: about 13 minutes
UNFINISHED = (ClockJobState.QUEUED, ClockJobState.RUNNING)


@dataclass(frozen=True)
class FollowUp:
    state: str  # "sent", "gone" (no such job), "failed" (Discord refused it)
    again_in: float | None = None  # seconds to wait before trying again


def advance_follow_up(
    *, job_id: int, application_id: str, token: str, last_try: bool = False
) -> FollowUp:
    """Send the follow-up if the job has finished (or on the last try, saying it still
    runs); else say when to try again. In-process (embedded mode, tests) the job has run
    before this is called, and nothing waits."""
    eager = bool(current_app.conf.task_always_eager)
    job = ClockJob.objects.select_related("campaign", "report").filter(pk=job_id).first()
    if job is None:
        return FollowUp("gone")
    if job.state in UNFINISHED and not eager and not last_try:
        return FollowUp("waiting", again_in=FOLLOW_UP_WAIT_SECONDS)
    reply = edit_original(application_id, token, advance_message(job))
    if reply.status == 429 and reply.retry_after is not None and not eager and not last_try:
        return FollowUp("rate limited", again_in=reply.retry_after)
    return FollowUp("sent" if reply.ok else "failed")
