"""URL tables: each page or endpoint one row (route, view, name), made into Django paths
in the order of the rows (the first that matches a request answers it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import URLPattern, path
from django.views import View

# Where routes start: a campaign's, a character's, a webhook's, an import invitation's.
CAMPAIGN = "campaigns/<int:campaign_id>/"
CHARACTER = "characters/<int:character_id>/"
WEBHOOK = CAMPAIGN + "webhooks/<int:webhook_id>/"
DELIVERY = WEBHOOK + "deliveries/<int:delivery_id>/"
INVITATION = "invitations/<int:invitation_id>/"

Route = tuple[str, Any, str]


def paths(*rows: Route) -> list[URLPattern]:
    """A path per row: ``(route, view, name)``; a class-based view is taken ``as_view()``."""
    return [path(route, _view(view), name=name) for route, view, name in rows]


def _view(view: Any) -> Callable[..., Any]:
    if isinstance(view, type) and issubclass(view, View):
        return view.as_view()
    return view
