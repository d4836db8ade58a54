"""Settings of the real Celery worker that rules/clock/tests/test_clock_worker.py starts.

The test settings, plus: the worker consumes its test's own queue on REDIS_URL, sees
the test database (DATABASE_URL, set by the test), works in small batches so it can
be killed mid-advance, and takes back a killed worker's message after a short
visibility timeout. The unacked bookkeeping keys are the queue's own, so restoring
never touches another application's messages on the same Redis.
"""

import os

from config.settings.test import *  # noqa: F403

_QUEUE = os.environ["SAWBONES_TEST_QUEUE"]

CELERY_TASK_ALWAYS_EAGER = False
CELERY_BROKER_URL = os.environ["REDIS_URL"]
CELERY_TASK_DEFAULT_QUEUE = _QUEUE
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 2,
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
    "unacked_key": f"{_QUEUE}-unacked",
    "unacked_index_key": f"{_QUEUE}-unacked-index",
    "unacked_mutex_key": f"{_QUEUE}-unacked-mutex",
}
CELERY_WORKER_ENABLE_REMOTE_CONTROL = False  # no pidbox keys left on the shared Redis
SAWBONES_CLOCK_BATCH_SIZE = int(os.environ.get("SAWBONES_CLOCK_BATCH_SIZE", "5"))
