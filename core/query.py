"""An API operation's query parameters, declared once on its view (issues 27 and 35).

Every query parameter the server reads is declared: a view names, per method, the class
that declares its operation's query (``query_parameters = {"GET": Filters}``), and gives
the same class to the schema (``extend_schema(parameters=[Filters])``). The class is
either a filter serializer (its fields are the keys) or a :class:`QueryParameters`
(its ``parameters``, drawn as they are written: ``config.openapi.SawbonesAutoSchema``).
A key the class does not declare would be ignored in silence, so a misspelt filter
(``?charcter=3``) would answer everything as if filtered: :func:`refuse_unknown_keys`
makes it a 400 naming it (``config.query.KnownQueryParameters``, once the caller is
known). An operation that declares none reads no query string at all and leaves it alone.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, ClassVar

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.exceptions import ValidationError


class QueryParameters:
    """The query parameters of an operation whose values its view reads itself (a page
    number, the log's filters: ``rules.log.filters.log_filters``), as the schema draws
    them: subclass it with ``parameters``."""

    parameters: ClassVar[Sequence[OpenApiParameter]] = ()


# A view's declared query: a QueryParameters or a filter serializer, by class.
QueryClass = type[QueryParameters] | type[serializers.Serializer[Any]]


def query_keys(declared: QueryClass) -> frozenset[str]:
    """The keys ``declared`` takes."""
    if issubclass(declared, QueryParameters):
        return frozenset(parameter.name for parameter in declared.parameters)
    return frozenset(declared().fields)


def declared_query(view: Any, method: str) -> QueryClass | None:
    """The class declaring the query of ``view``'s operation ``method``, if it has one."""
    declared: dict[str, QueryClass] = getattr(view, "query_parameters", {})
    return declared.get(method.upper())


def refuse_unknown_keys(keys: Collection[str], declared: QueryClass) -> None:
    """A 400 naming each key of ``keys`` that ``declared`` does not take."""
    allowed = query_keys(declared)
    unknown = sorted(set(keys) - allowed)
    if unknown:
        takes = ", ".join(f"`{name}`" for name in sorted(allowed))
        why = gettext("not a query parameter of this operation (it takes %(takes)s)") % {
            "takes": takes
        }
        raise ValidationError({name: [why] for name in unknown})
