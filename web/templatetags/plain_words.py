"""``{% load plain_words %}``: the ``plain`` filter words any engine text for a page
(web.plain): no ruling ids, no snake_case names, no JSON Schema wording."""

from __future__ import annotations

from django import template

from web.plain import plain_message

register = template.Library()


@register.filter
def plain(text: object) -> str:
    if text is None or text == "":
        return ""
    return plain_message(str(text))
