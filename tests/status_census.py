"""Every status the server answers is in its operation's responses (issue 27).

The root conftest wraps Django's test client (``APIClient`` is one) for the whole test
session: each answer to an API path is noted by the operation it reached (the URL name
the path resolves to, and the method). When the session ends, a status some test saw
and the schema does not list for that operation fails the run, naming the operation,
the status and a test that saw it. A generated client turns an unlisted status into
``None``: this holds the schema to every answer the suite provokes.

Paths no URL name resolves (a 404 for an unknown path) and methods a path does not have
(405) are no operation of the schema, so they are not counted here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.test.client import Client
from django.urls import Resolver404, resolve

from config.openapi import api_paths, url_key

API_PREFIX = "/api/v1/"

# (endpoint key as config.openapi.url_key says it, method) -> status -> the first test
# that saw it
Observed = dict[tuple[str, str], dict[int, str]]


def operation_of(path: str, method: str) -> tuple[str, str] | None:
    """The API operation a request reached: its URL name and method, or None."""
    if not path.startswith(API_PREFIX):
        return None
    for candidate in (path, path + "/"):
        try:
            match = resolve(candidate)
        except Resolver404:
            continue
        if match.url_name:
            fixed = getattr(match, "extra_kwargs", None)  # the pattern's own kwargs
            return url_key(match.url_name, fixed), method.lower()
    return None


@contextmanager
def counting(observed: Observed, current_test: Callable[[], str]) -> Iterator[None]:
    """Note every answer of Django's test client (and so DRF's) while it runs."""
    original = Client.request

    def request(self: Client, **kwargs: Any) -> Any:
        response = original(self, **kwargs)
        environ = getattr(response, "request", None) or kwargs
        found = operation_of(str(environ.get("PATH_INFO", "")), environ.get("REQUEST_METHOD", ""))
        if found is not None:
            observed.setdefault(found, {}).setdefault(response.status_code, current_test())
        return response

    Client.request = request  # type: ignore[method-assign]
    try:
        yield
    finally:
        Client.request = original  # type: ignore[method-assign]


def served_schema() -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    generated = SchemaGenerator().get_schema(request=None, public=True)
    loaded: dict[str, Any] = json.loads(json.dumps(generated, default=str))
    return loaded


def missing_statuses(observed: Observed, schema: dict[str, Any]) -> list[str]:
    """Each status seen but not in its operation's responses, as a line to read."""
    paths = api_paths()
    missing = []
    for (url_name, method), statuses in sorted(observed.items()):
        if url_name not in paths:
            continue
        operation = schema["paths"].get(paths[url_name], {}).get(method)
        if operation is None:  # no such method on the path: a 405, no operation
            continue
        listed = set(operation["responses"])
        for status, test in sorted(statuses.items()):
            if str(status) not in listed:
                missing.append(
                    f"{method.upper()} {paths[url_name]} ({operation['operationId']}): "
                    f"{status} is not in its responses (seen in {test})"
                )
    return missing
