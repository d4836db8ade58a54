"""The numbers each process counts itself, for ``GET /metrics`` (config/metrics.py,
docs/operations.md "Metrics"): requests and their latency, throttled requests.

Counted with prometheus-client. Under gunicorn every worker process counts its own; with
``PROMETHEUS_MULTIPROC_DIR`` set (docker-compose.yml) they write their counts to files
in that folder and a scrape adds up every process's (multiprocess mode). What can be
read from the database or Redis when scraped (clock jobs, webhooks, queues) is read
then, by config/metrics.py, and not counted here.
"""

from __future__ import annotations

import os

# prometheus-client writes each process's counts into this folder: make sure it exists
# before the first metric is made (in a container its /tmp starts empty).
if _folder := os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.makedirs(_folder, exist_ok=True)

from prometheus_client import Counter, Histogram

REQUESTS = Counter(
    "sawbones_http_requests",
    "HTTP requests answered, by view (URL name), method and status.",
    ["view", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "sawbones_http_request_duration_seconds",
    "Seconds from the request's arrival to its answer, by view, method and status.",
    ["view", "method", "status"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
THROTTLED = Counter(
    "sawbones_throttled_requests",
    "Requests refused by a request limit (429), by the limit's scope.",
    ["scope"],
)
