"""The API's OpenAPI 3.1 schema, as drf-spectacular builds it from the views.

``SawbonesAutoSchema`` names nested serializers after their API class (each API class
nests its own ``InputSerializer`` / ``OutputSerializer``, HackSoft style; without this
they would all become one "Input" component) and adds the error answers every operation
of its kind can give (docs/api.md): 400, 413 and 415 with a body; 401 and 403 when it
needs a signed-in user; 404 with an id in the path or a page number; 429 and 503 always;
and on every write of a signed-in user the ``Idempotency-Key`` header with its 409 and
422 (core.idempotency). Views add their own (a 409 and why) with
``core.openapi.error_answer``. The rules' parts (actions, rulesets, options, tables) come
from the views' serializers, built from the ruleset registry.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.serializers import PolymorphicProxySerializerExtension
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer
from rest_framework import serializers

from core.openapi import (
    ERROR_DESCRIPTIONS,
    IDEMPOTENCY_CONFLICT,
    IDEMPOTENCY_PARAMETER,
    ErrorDetailSerializer,
    InputErrorsSerializer,
)
from core.query import QueryParameters, declared_query

API_PREFIX = "/api/v1/"
BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
HEADERS = {
    "401": {
        "WWW-Authenticate": {
            "schema": {"type": "string"},
            "description": "`Token`: send `Authorization: Token <secret>`.",
        }
    },
    "409": {
        "Retry-After": {
            "schema": {"type": "integer", "minimum": 0},
            "description": "when the same `Idempotency-Key` is still being answered: seconds "
            "to wait before sending it again",
        }
    },
    "429": {
        "Retry-After": {
            "schema": {"type": "integer", "minimum": 0},
            "description": "seconds to wait before trying again",
        }
    },
    "503": {
        "Retry-After": {
            "schema": {"type": "integer", "minimum": 0},
            "description": "seconds to wait before sending the same request again",
        }
    },
}


def url_key(name: str, defaults: dict[str, Any] | None = None) -> str:
    """An endpoint's key: its URL name, and the values its pattern fixes when several
    patterns share the name (``api-table[diseases]``: one path per table)."""
    if not defaults:
        return name
    return f"{name}[{','.join(str(value) for value in defaults.values())}]"


def api_paths() -> dict[str, str]:
    """Endpoint key (:func:`url_key`) -> OpenAPI path, for every endpoint in
    ``config/api_urls.py``."""
    from config import api_urls

    return {
        url_key(str(pattern.name), pattern.default_args): API_PREFIX
        + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(pattern.pattern))
        for pattern in api_urls.urlpatterns
    }


class SawbonesAutoSchema(AutoSchema):
    def _get_serializer_name(
        self, serializer: Any, direction: str, bypass_extensions: bool = False
    ) -> str:
        name = super()._get_serializer_name(serializer, direction, bypass_extensions)
        qualname = type(serializer).__qualname__
        if "." in qualname and "<locals>" not in qualname:  # nested in an API class
            outer = qualname.split(".")[0].removesuffix("Api")
            if not name.startswith(outer):
                name = outer + name
        return str(name)

    def _get_request_for_media_type(self, serializer: Any, direction: Any = "request") -> Any:
        schema, required = super()._get_request_for_media_type(serializer, direction)  # type: ignore[no-untyped-call]
        if isinstance(serializer, PolymorphicProxySerializer) and schema:
            required = True  # every variant needs its discriminator (an action, a ruleset)
        return schema, required

    def get_operation_id(self) -> str:
        """``*_list`` for a GET answering a list or a page of one (``count``, ``results``),
        as for a plain list: ``v1_campaigns_resolutions_list``, not ``_retrieve``; a path's
        file suffix spelt as a word (``v1_campaigns_log_csv_retrieve``, not ``log.csv``)."""
        operation_id = str(super().get_operation_id()).replace(".", "_")
        if self.method == "GET" and operation_id.endswith("_retrieve") and self._answers_a_page():
            operation_id = operation_id.removesuffix("_retrieve") + "_list"
        return operation_id

    def _answers_a_page(self) -> bool:
        answers = self.get_response_serializers()
        if isinstance(answers, dict):
            answers = answers.get(200)
        if isinstance(answers, type) and issubclass(answers, serializers.Serializer):
            answers = answers()
        if not isinstance(answers, serializers.Serializer):
            return False
        return {"count", "results"} <= set(answers.fields)

    def get_auth(self) -> list[dict[str, Any]]:
        """No security requirement at all for the operations anyone may call (register,
        a token from a password): ``[{}]`` would make generated clients demand a token."""
        auth: list[dict[str, Any]] = super().get_auth()
        return auth if any(auth) else []

    def keyed(self) -> bool:
        """Whether the operation takes an ``Idempotency-Key``: every write of a signed-in
        person (core.idempotency)."""
        return self.method in BODY_METHODS and any(self.get_auth())

    def get_override_parameters(self) -> list[Any]:
        """The view's own (``extend_schema`` adds them to these), the query its view
        declares for the method (core.query: the one declaration the server checks keys
        against), and the ``Idempotency-Key`` header of a write."""
        parameters: list[Any] = super().get_override_parameters()
        declared = declared_query(self.view, str(self.method))
        if declared is not None and issubclass(declared, QueryParameters):
            parameters = [*parameters, *declared.parameters]
        elif declared is not None:  # a filter serializer: each field a query parameter
            parameters = [*parameters, declared]
        return [*parameters, IDEMPOTENCY_PARAMETER] if self.keyed() else parameters

    def _map_serializer_field(
        self, field: Any, direction: Any, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        mapped: dict[str, Any] = super()._map_serializer_field(  # type: ignore[no-untyped-call]
            field, direction, bypass_extensions
        )
        if isinstance(field, serializers.JSONField):
            return mapped  # a rules schema, drawn as the rules wrote it (their own checks)
        if _has_pattern(field) or _has_pattern(getattr(field, "child", None)):
            # its own pattern (a Discord id's digits), which drf-spectacular adds after
            # this: the NUL pattern would take its place and let wrong text through
            return mapped
        return _no_nul(mapped)

    def _get_parameters(self) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super()._get_parameters()
        for parameter in parameters:
            _no_nul(parameter.get("schema"))
        return parameters

    def error_statuses(self) -> list[str]:
        """The error answers this operation can give besides the ones its view declares."""
        statuses = []
        if self.method in BODY_METHODS and self.get_request_serializer() is not None:
            statuses += ["400", "411", "413", "415"]
        elif self._query_parameters() or self.keyed():
            statuses.append("400")  # a query parameter off its bounds, a malformed key
        if any(self.get_auth()):
            statuses += ["401", "403"]
        paged = any(
            getattr(parameter, "name", None) == "page"
            for parameter in self.get_override_parameters()
        )
        if "{" in self.path or paged:
            statuses.append("404")
        if self.keyed():
            statuses += ["409", "422"]
        statuses += ["429", "503"]  # every operation needs the database
        return statuses

    def _query_parameters(self) -> list[str]:
        names = []
        for parameter in self.get_override_parameters():
            if isinstance(parameter, OpenApiParameter):
                if parameter.location == OpenApiParameter.QUERY:
                    names.append(parameter.name)
            else:  # a filter serializer: each field a query parameter
                serializer = parameter() if isinstance(parameter, type) else parameter
                names += list(serializer.fields)
        return names

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        for status in self.error_statuses():
            if status not in responses:
                body = InputErrorsSerializer if status == "400" else ErrorDetailSerializer
                made = self._get_response_for_code(  # type: ignore[no-untyped-call]
                    body, status, direction=direction
                )
                # an error is JSON whatever the operation answers when it succeeds (the
                # Markdown recap, the CSV log: their views answer errors in JSON)
                content = made.get("content") or {}
                if content:
                    made["content"] = {"application/json": next(iter(content.values()))}
                responses[status] = made
                responses[status]["description"] = ERROR_DESCRIPTIONS[status]
            elif status == "409" and self.keyed():  # the view's own 409, and the key's
                responses[status]["description"] += IDEMPOTENCY_CONFLICT
            if status in HEADERS:
                responses[status].setdefault("headers", {}).update(HEADERS[status])
        return responses


class InputErrorsSchema(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    """Field errors: any field name to its messages (DRF's shape), so a free-form object."""

    target_class = "core.openapi.InputErrorsSerializer"

    def get_name(self, auto_schema: Any = None, direction: Any = None) -> str:
        return "InputErrors"

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return {
            "type": "object",
            "description": "Field name (or `non_field_errors`) -> messages; `detail` -> a "
            "message for input the rules reject.",
            "additionalProperties": {},
        }


class ScopedTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """``Authorization: Token <secret>`` (accounts.authentication), as DRF's tokens were."""

    target_class = "accounts.authentication.ScopedTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <secret>`: a token from POST auth/tokens/ or auth/token/",
        }


class RulesSchemaComponent(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    """A rules schema (a ruleset's sheet...) as a named component: ``HitDiceSheet``."""

    target_class = "core.openapi.RulesSchemaSerializer"
    match_subclasses = True

    def get_name(self, auto_schema: Any = None, direction: Any = None) -> str:
        return str(self.target.component_name)

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        # a copy: drf-spectacular's enum hook rewrites the components it is given
        return copy.deepcopy(dict(self.target.json_schema))


class AnyOfProxySchema(PolymorphicProxySerializerExtension):  # type: ignore[no-untyped-call]
    """``core.openapi.AnyOfProxySerializer``: its variants as ``anyOf`` (a body may match
    several of them: one that leaves out ``ruleset`` matches each ruleset's)."""

    target_class = "core.openapi.AnyOfProxySerializer"
    priority = 1

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = super().map_serializer(auto_schema, direction)  # type: ignore[no-untyped-call]
        return {"anyOf": schema.pop("oneOf"), **schema}


# -- no NUL in any text (issue 36) -----------------------------------------------------------
# PostgreSQL stores no U+0000, so the server refuses it in every text it reads (DRF's
# fields, core.cleaning.reject_nul_characters, the rules' own checks): a bound the schema
# says, on every text that has no pattern, choices or format of its own, as each field and
# parameter is drawn (SawbonesAutoSchema). The rules' own schemas (params, sheets, tables)
# are drawn exactly as the rules wrote them: there a NUL is a refusal the operation
# declares (core.cleaning.reject_nul_characters).
NO_NUL = r"^[^\u0000]*$"


def _has_pattern(field: Any) -> bool:
    return any(isinstance(v, RegexValidator) for v in getattr(field, "validators", ()))


def _no_nul(node: Any) -> Any:
    if isinstance(node, dict):
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "string" in kinds and not {"pattern", "enum", "const", "format"} & set(node):
            node["pattern"] = NO_NUL
        for value in node.values():
            _no_nul(value)
    elif isinstance(node, list):
        for item in node:
            _no_nul(item)
    return node
