"""The delivery task: an id in, one service call (webhook_delivery.services).

It keeps the name it had in ``webhooks.tasks``: messages queued by an older release
still find it, and the routes and the logs name it so."""

from __future__ import annotations

from celery import shared_task

from webhook_delivery.services import webhook_run


@shared_task(name="webhooks.tasks.deliver_webhooks", acks_late=True, reject_on_worker_lost=True)
def deliver_webhooks(endpoint_id: int) -> None:
    """Deliver a URL's due events in order; the URL's next task is sent by this one
    (webhook_delivery.services.webhook_run), never by each event."""
    webhook_run(endpoint_id=endpoint_id)
