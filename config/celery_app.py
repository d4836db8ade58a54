"""The Celery application. Tasks are found in each app's ``tasks.py``.

With no ``REDIS_URL`` the settings make tasks run in-process (embedded mode), so
``make run`` needs no broker; with it, tasks go to Redis and a worker runs them.
"""

import os

from celery import Celery
from celery.signals import before_task_publish, task_postrun, task_prerun

from core.logs import adopt_request_id, attach_request_id, forget_request_id

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("sawbones")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# A task's log lines carry the id of the request that enqueued it (core.logs).
before_task_publish.connect(attach_request_id, weak=False)
task_prerun.connect(adopt_request_id, weak=False)
task_postrun.connect(forget_request_id, weak=False)
