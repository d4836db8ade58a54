"""gunicorn's hooks for the web containers (docker-compose.yml: ``-c config/gunicorn.py``).

With ``PROMETHEUS_MULTIPROC_DIR`` each worker process writes its request counts to files
in that folder, and ``GET /metrics`` adds them up (config/metrics.py): the folder starts
empty with each gunicorn, and a worker that exits has its live values dropped.
"""

from __future__ import annotations

import os
import shutil
from typing import Any


def on_starting(server: Any) -> None:
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        shutil.rmtree(folder, ignore_errors=True)  # counts of an earlier run
        os.makedirs(folder, exist_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess  # only with the folder set

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
