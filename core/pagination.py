"""The API's pages (PageNumberPagination) taking only what the schema says.

DRF reads a bad ``page_size`` (``0``, ``null``, ``abc``) as "the default", and ``page``
as "the last" when it is ``last``: the schema says whole numbers from 1, so anything
else is a 400 (issue 27). A page past the last is a 404, as before; a page size beyond
the largest is cut to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

WHOLE = re.compile(r"[1-9][0-9]{0,17}")


def _whole(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not WHOLE.fullmatch(raw):
        raise ValidationError({name: [gettext("a whole number from 1")]})
    return int(raw)


class StrictPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request: Request) -> int:
        size = _whole(request, self.page_size_query_param)
        return self.page_size if size is None else min(size, self.max_page_size)

    def get_page_number(self, request: Request, paginator: Any) -> Any:
        number = _whole(request, self.page_query_param)
        return 1 if number is None else number

    @classmethod
    def answer(
        cls, rows: Any, request: Request, view: APIView, show: Callable[[list[Any]], Any]
    ) -> Response:
        """The page of ``rows`` that ``request`` asks for, its items as ``show`` writes them."""
        paginator = cls()
        page = paginator.paginate_queryset(rows, request, view=view)
        return paginator.get_paginated_response(show(page or []))


class PageSerializer(serializers.Serializer):
    # A page's envelope as StrictPagination answers it; a subclass adds its ``results``.
    # No docstring: drf-spectacular would give it to every subclass as its description.
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
