"""The Celery application. Tasks are found in each app's ``tasks.py``.

With no ``REDIS_URL`` the settings make tasks run in-process (embedded mode), so
``make run`` needs no broker; with it, tasks go to Redis and a worker runs them.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("sawbones")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
