"""An API operation that declares query parameters takes only those (issue 27).

Each view declares its operations' query parameters (``core.query``: a filter class per
method, the same class the schema draws them from); a key the operation does not declare
is a 400 naming it, on every operation that declares some. An operation that declares
none reads no query string at all and leaves it alone.
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from core.query import declared_query, refuse_unknown_keys


class KnownQueryParameters(BasePermission):
    """Refuses (400) a query key the operation does not declare, when it declares some.

    A permission, so it runs once the caller is known (a 401 or 403 comes first), before
    the view reads anything."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not request.query_params:
            return True
        declared = declared_query(view, str(request.method))
        if declared is not None:
            refuse_unknown_keys(request.query_params, declared)
        return True
