"""``{% form_key %}``: the one-time key of a form that changes something (issue 24).

Each rendering of a form gets a new key (a hidden field, ``idempotency_key``); the
server acts on a key once and answers the same key again with its first answer
(``core.middleware.IdempotencyMiddleware``): a double click, a form sent again by a
reload or the back button apply once and show the first result. After a form's answer
comes, the page gives the form a new key (static/js/sawbones.js), so sending it again
on purpose acts again. A builtin of the templates (``TEMPLATES`` in the settings).
"""

from __future__ import annotations

import uuid

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
