"""Log lines that say which request they belong to (docs/operations.md, "Logs").

Every request gets an id (``X-Request-ID`` from the proxy when it is a sensible one,
else a new one; sent back in the answer), held in a context variable from Django's
``request_started`` to its ``request_finished`` (core.apps). The tasks it enqueues
carry it in their message headers, and a worker holds it while it runs them: every log
line of the request and of its tasks names it. With ``LOG_FORMAT=json`` each line is
one JSON object (``time``, ``level``, ``logger``, ``message``, ``request_id``,
``task``, ``task_id``, ``exception``).
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import Any

NONE = "-"
REQUEST_ID: ContextVar[str] = ContextVar("request_id", default=NONE)
TASK: ContextVar[tuple[str, str]] = ContextVar("task", default=(NONE, NONE))
HEADER = "sawbones_request_id"  # in a task message's headers
_SENSIBLE = re.compile(r"[A-Za-z0-9._-]{1,64}")


def request_id_from(given: str | None) -> str:
    """The proxy's id when it is a sensible one (it lands in every log line), else a new one."""
    if given and _SENSIBLE.fullmatch(given):
        return given
    return uuid.uuid4().hex


def start_request(environ: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """``request_started``: the request's id, from the proxy's header or a new one."""
    REQUEST_ID.set(request_id_from((environ or {}).get("HTTP_X_REQUEST_ID")))


def end_request(**kwargs: Any) -> None:
    """``request_finished``: lines after it belong to no request."""
    REQUEST_ID.set(NONE)


def current_request_id() -> str:
    """The request's id (a new one if ``request_started`` was not sent, as in a test's
    RequestFactory)."""
    if REQUEST_ID.get() == NONE:
        REQUEST_ID.set(uuid.uuid4().hex)
    return REQUEST_ID.get()


class RequestIdFilter(logging.Filter):
    """Gives every record ``request_id``, ``task`` and ``task_id`` (``-`` outside one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        record.task, record.task_id = TASK.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line (``LOG_FORMAT=json``)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", REQUEST_ID.get()),
        }
        task, task_id = getattr(record, "task", NONE), getattr(record, "task_id", NONE)
        if task != NONE:
            line["task"], line["task_id"] = task, task_id
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


# -- Celery: the id travels with the tasks a request enqueues ---------------------------
_held: dict[str, tuple[Token[str], Token[tuple[str, str]]]] = {}


def attach_request_id(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """``before_task_publish``: the message carries the current request's id."""
    current = REQUEST_ID.get()
    if headers is not None and current != NONE:
        headers.setdefault(HEADER, current)


def adopt_request_id(task_id: str | None = None, task: Any = None, **kwargs: Any) -> None:
    """``task_prerun``: hold the id the message carries (in-process, the caller's)."""
    if task_id is None or task is None:
        return
    carried = getattr(task.request, HEADER, None) or (task.request.headers or {}).get(HEADER)
    _held[task_id] = (
        REQUEST_ID.set(str(carried) if carried else REQUEST_ID.get()),
        TASK.set((str(task.name), task_id)),
    )


def forget_request_id(task_id: str | None = None, **kwargs: Any) -> None:
    """``task_postrun``: back to what it was before the task."""
    tokens = _held.pop(task_id or "", None)
    if tokens is not None:
        REQUEST_ID.reset(tokens[0])
        TASK.reset(tokens[1])
