"""API throttles: per person, per client address, and for new accounts (429 with
``Retry-After``). Rates come from ``settings.SAWBONES_THROTTLE_RATES`` when a request
is checked, so a deployment (or a test) can change them without a restart of DRF's
class attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from core.metrics import THROTTLED

if TYPE_CHECKING:  # DRF's settings import this module while rest_framework.views loads
    from rest_framework.views import APIView


def client_ip(request: HttpRequest | None) -> str | None:
    """The client's address as every limit sees it (DRF's ``NUM_PROXIES`` decides how
    many proxies' ``X-Forwarded-For`` entries to trust); also django-axes' address
    (None for a log-in without a request, as in tests' ``force_login``)."""
    if request is None or not hasattr(request, "META"):
        return None
    # DRF's get_ident reads only ``request.META``: a Django request serves as well.
    ident = BaseThrottle().get_ident(cast(Request, request))
    return str(ident) if ident else None


class _SettingsRateThrottle(SimpleRateThrottle):
    """DRF makes a throttle per request; its rate is read from the settings then."""

    def get_rate(self) -> str | None:
        rates: dict[str, str | None] = settings.SAWBONES_THROTTLE_RATES
        return rates.get(self.scope or "")

    def get_ident(self, request: Any) -> str:
        return client_ip(request) or ""

    def throttle_failure(self) -> bool:
        THROTTLED.labels(scope=self.scope or "").inc()  # for /metrics
        return super().throttle_failure()


class UserThrottle(_SettingsRateThrottle):
    """Each signed-in person (session or token)."""

    scope = "user"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class AnonThrottle(_SettingsRateThrottle):
    """Each address, for requests without a person."""

    scope = "anon"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class IpThrottle(_SettingsRateThrottle):
    """Each address, whoever sends: many people behind one address share it."""

    scope = "ip"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class _PerAddressThrottle(_SettingsRateThrottle):
    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_page(self, request: HttpRequest) -> bool:
        """The same count for a page (a form) as for the API."""
        return self.allow_request(cast(Request, request), cast("APIView", None))


class RegistrationThrottle(_PerAddressThrottle):
    """New accounts per address, from the API and from the sign-up page."""

    scope = "register"


class LoginThrottle(_PerAddressThrottle):
    """Password checks per address, from ``auth/token/`` and the log-in page: each one
    costs a password hash (hundreds of times an ordinary request), so they have a
    budget of their own besides the count of requests."""

    scope = "login"


def refused_wait(request: Request, view: APIView) -> float | None:
    """Count a request refused before DRF's throttles ran (a 401: DRF checks
    authentication and permissions first) against the view's throttles, as a request
    without a person; the seconds to wait when one of them refuses it, else None."""
    waits = [
        throttle.wait()
        for throttle in view.get_throttles()
        if not throttle.allow_request(request, view)
    ]
    if not waits:
        return None
    return max((wait for wait in waits if wait is not None), default=0.0)
