"""Celery tasks of webhooks: ids in, one service call (webhooks.services)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from webhooks.services import endpoints_due, webhook_deliver


@shared_task(acks_late=True, reject_on_worker_lost=True)
def deliver_webhooks(endpoint_id: int) -> None:
    """Deliver a URL's due events in order; come back when the next try is due.

    In-process (embedded mode, tests) a countdown would run at once: there the beat
    sweep, or the next event, tries again.
    """
    wait = webhook_deliver(endpoint_id=endpoint_id)
    if wait is not None and not settings.CELERY_TASK_ALWAYS_EAGER:
        deliver_webhooks.apply_async((endpoint_id,), countdown=wait)


@shared_task
def deliver_due_webhooks() -> int:
    """Celery beat, every minute: enqueue each URL with a delivery due."""
    due = endpoints_due()
    for endpoint_id in due:
        deliver_webhooks.delay(endpoint_id)
    return len(due)
