"""Settings of the real Celery worker that webhooks/tests/test_delivery_worker.py starts.

The test settings, plus: the worker consumes its test's own queue on REDIS_URL (every
task goes there: the test settings route nothing; a test of the routes sets them, with
its own prefix), sees the test database
(DATABASE_URL), and retries a failing URL after a fraction of a second. The unacked
bookkeeping keys are the queue's own, so nothing of another test's is touched.
"""

import os

from config.queues import task_queues, task_routes
from config.settings.test import *  # noqa: F403

_QUEUE = os.environ["SAWBONES_TEST_QUEUE"]
# A test of the routes gives its queues a prefix of their own (config/tests/test_queues.py).
if os.environ.get("SAWBONES_TEST_QUEUE_PREFIX"):
    CELERY_TASK_QUEUES = task_queues(os.environ["SAWBONES_TEST_QUEUE_PREFIX"])
    CELERY_TASK_ROUTES = task_routes(os.environ["SAWBONES_TEST_QUEUE_PREFIX"])

CELERY_TASK_ALWAYS_EAGER = False
CELERY_BROKER_URL = os.environ["REDIS_URL"]
CELERY_TASK_DEFAULT_QUEUE = _QUEUE
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "unacked_key": f"{_QUEUE}-unacked",
    "unacked_index_key": f"{_QUEUE}-unacked-index",
    "unacked_mutex_key": f"{_QUEUE}-unacked-mutex",
}
CELERY_WORKER_ENABLE_REMOTE_CONTROL = False  # no pidbox keys left on the shared Redis
SAWBONES_WEBHOOK_BACKOFF_SECONDS = float(os.environ.get("SAWBONES_WEBHOOK_BACKOFF_SECONDS", "0.2"))
SAWBONES_WEBHOOK_MAX_ATTEMPTS = 100
SAWBONES_WEBHOOK_TIMEOUT = 2
