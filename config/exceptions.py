"""One place that maps domain errors to HTTP answers (HackSoft styleguide).

Rule errors are bad input (400); a character that cannot act, a stale version or a
pending choice is a conflict (409). Anything else is left to DRF.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from core.errors import NotAllowed, ResolutionConflict
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, RuleError


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the character's current state."
    default_code = "conflict"


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RuleError | DiceError):
        exc = exceptions.ValidationError({"detail": str(exc)})
    elif isinstance(exc, ActionBlocked | ResolutionConflict):
        exc = Conflict(str(exc))
    elif isinstance(exc, NotAllowed):
        exc = exceptions.PermissionDenied(str(exc))
    elif isinstance(exc, RecursionError):  # JSON nested thousands deep
        exc = exceptions.ParseError("the JSON is nested too deeply")
    elif isinstance(exc, DjangoValidationError):
        detail: Any = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        exc = exceptions.ValidationError(detail)
    return exception_handler(exc, context)
