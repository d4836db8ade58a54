"""Celery's queues, one per kind of work, and which task goes to which (docs/operations.md,
"Queues"). Plain data, read by the settings (``CELERY_TASK_QUEUES``, ``CELERY_TASK_ROUTES``).

A flood of one kind never holds back another: thousands of webhook deliveries or clock
advances cannot delay the watchdog (whose messages expire after 9 s) nor each other, and
docker-compose.yml runs a worker service per queue, each scaled on its own.
"""

from __future__ import annotations

from typing import Any

from kombu import Queue

CLOCK = "clock"  # the clock's advances: long, CPU and database bound
WEBHOOKS = "webhooks"  # deliveries to referees' URLs: waiting on other people's servers
EMAIL = "email"  # mail to people: e-mail digests (rules.clock.digest), import invitations
HOUSEKEEPING = "housekeeping"  # beat's short periodic tasks: ticks, watchdog, sweeps
DEFAULT = "celery"  # a task nobody routed; the housekeeping workers take it too

QUEUES = (CLOCK, WEBHOOKS, EMAIL, HOUSEKEEPING, DEFAULT)

# By the tasks' registered names, which stay the same wherever their code moves.
ROUTES: dict[str, str] = {
    "rules.tasks.advance_clock": CLOCK,
    "rules.tasks.tick_live_campaigns": HOUSEKEEPING,
    "rules.tasks.watch_clock_jobs": HOUSEKEEPING,
    "rules.tasks.queue_digests": HOUSEKEEPING,
    "webhooks.tasks.deliver_webhooks": WEBHOOKS,
    "webhooks.tasks.deliver_due_webhooks": HOUSEKEEPING,
    # the advance's follow-up to Discord: a request to another's server, as a delivery
    "discord_play.tasks.report_advance": WEBHOOKS,
    "core.tasks.sweep_idempotency_keys": HOUSEKEEPING,
    "*.send_email": EMAIL,  # the convention for a task that sends mail
}


def task_queues(prefix: str = "") -> list[Queue]:
    """``CELERY_TASK_QUEUES``: each bound by its own name. (A queue declared without a
    routing key is bound by the default one, ``celery``: every queue would then get a
    copy of every task.)"""
    return [Queue(prefix + name, routing_key=prefix + name) for name in QUEUES]


def task_routes(prefix: str = "") -> dict[str, dict[str, Any]]:
    """``CELERY_TASK_ROUTES``; ``prefix`` keeps a test's queues apart on a shared Redis."""
    return {name: {"queue": prefix + queue} for name, queue in ROUTES.items()}
