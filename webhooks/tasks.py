"""Celery tasks of webhooks: beat's sweep (webhooks.services). The delivery task itself
is ``webhook_delivery.tasks.deliver_webhooks``."""

from __future__ import annotations

import logging

from celery import shared_task

from core.errors import UNAVAILABLE_ERRORS
from webhooks.services import endpoints_due, webhook_schedule

logger = logging.getLogger(__name__)


@shared_task
def deliver_due_webhooks() -> int:
    """Celery beat, every minute: send the task of each URL with a delivery due and no
    task on its way (its message was lost, or the broker was down when it was sent)."""
    sent = 0
    for endpoint_id in endpoints_due():
        try:
            sent += webhook_schedule(endpoint_id=endpoint_id)
        except UNAVAILABLE_ERRORS:
            logger.warning("webhook %s: the broker is unreachable; the next sweep", endpoint_id)
            break
    return sent
