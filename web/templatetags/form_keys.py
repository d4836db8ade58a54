"""``{% form_key %}``: the one-time key of a form that changes something (issue 24).

Each rendering of a form gets a new key (a hidden field, ``idempotency_key``); the
server acts on a key once and answers the same key again with its first answer
(``core.middleware.IdempotencyMiddleware``): a double click, a form sent again by a
reload or the back button apply once and show the first result. After a form's answer
comes, the page gives the form a new key (static/js/sawbones.js), so sending it again
on purpose acts again. A builtin of the templates (``TEMPLATES`` in the settings).

``{% named_form "name" %}``: the head of one of a page's several forms (a campaign's
settings, a character's edit page), whose view tells them apart by their ``form`` field
and keeps each one's refusal in ``errors[name]``.
"""

from __future__ import annotations

import uuid
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from core.middleware import FORM_KEY_FIELD

register = template.Library()


@register.simple_tag
def form_key() -> SafeString:
    return format_html(
        '<input type="hidden" name="{}" value="{}" data-form-key>', FORM_KEY_FIELD, uuid.uuid4()
    )


@register.inclusion_tag("_named_form.html", takes_context=True)
def named_form(context: template.Context, name: str) -> dict[str, Any]:
    """The form's csrf token and one-time key, its name, and why the page refused it."""
    errors = context.get("errors") or {}
    return {"name": name, "error": errors.get(name)}
