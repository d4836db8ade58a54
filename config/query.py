"""An API operation that declares query parameters takes only those (issue 27).

Every query parameter the server reads is declared in the schema (filters, pages, a
deletion's ``confirm``); a key it does not declare would be ignored in silence, so a
misspelt filter (``?charcter=3``) would answer everything as if filtered. Such a key is
a 400 naming it, on every operation with query parameters, as the schema says (an
operation's query parameters are a closed set). An operation that declares none reads
no query string at all and leaves it alone.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request


@cache
def declared_query_parameters() -> dict[tuple[str, str], frozenset[str]]:
    """(endpoint key, method) -> the query parameters its operation declares, for each
    operation that declares some; read from the served schema once."""
    # Here, not at the top: this module is named in REST_FRAMEWORK's settings, which
    # drf-spectacular (config.openapi's) reads as it is imported.
    from drf_spectacular.generators import SchemaGenerator

    from config.openapi import api_paths

    generator = SchemaGenerator()  # type: ignore[no-untyped-call]
    schema: dict[str, Any] = generator.get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    keys = {path: key for key, path in api_paths().items()}
    declared: dict[tuple[str, str], frozenset[str]] = {}
    for path, operations in schema["paths"].items():
        if path not in keys:
            continue
        for method, operation in operations.items():
            names = frozenset(
                parameter["name"]
                for parameter in operation.get("parameters", [])
                if parameter.get("in") == "query"
            )
            if names:
                declared[keys[path], method.upper()] = names
    return declared


class KnownQueryParameters(BasePermission):
    """Refuses (400) a query key the operation does not declare, when it declares some.

    A permission, so it runs once the caller is known (a 401 or 403 comes first), before
    the view reads anything."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not request.query_params:
            return True
        match = request.resolver_match
        if match is None or not match.url_name:
            return True
        from config.openapi import url_key  # as above

        endpoint = url_key(match.url_name, getattr(match, "extra_kwargs", None))
        allowed = declared_query_parameters().get((endpoint, str(request.method)))
        if allowed is None:
            return True
        unknown = sorted(set(request.query_params) - allowed)
        if unknown:
            takes = ", ".join(f"`{name}`" for name in sorted(allowed))
            why = f"not a query parameter of this operation (it takes {takes})"
            raise ValidationError({name: [why] for name in unknown})
        return True
