"""Housekeeping of the lowest layer, run by Celery beat (``CELERY_BEAT_SCHEDULE``)."""

from __future__ import annotations

from celery import shared_task

from core.idempotency import idempotency_sweep


@shared_task(name="core.tasks.sweep_idempotency_keys")
def sweep_idempotency_keys() -> int:
    """Delete the idempotency keys past their time (docs/api.md)."""
    return idempotency_sweep()
