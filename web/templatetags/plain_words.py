"""``{% load plain_words %}``: the ``plain`` filter words any engine text for a page
(web.plain): no ruling ids, no snake_case names, no JSON Schema wording."""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeData, SafeString, mark_safe

from core.said import said
from web.plain import plain_inline as _plain_inline
from web.plain import plain_message
from web.plain import possessive as _possessive
from web.rules_doc import for_readers as _for_readers

register = template.Library()


@register.filter
def plain(text: object) -> str:
    if text is None or text == "":
        return ""
    return plain_message(said(text))


@register.filter
def plain_inline(text: object) -> str:
    """Words inside a sentence (a roll's label): no ruling id, no snake_case, as written."""
    return _plain_inline(said(text or ""))


@register.filter
def plain_label(text: object) -> str:
    """A label in plain words before its value ("Strength save vs DC 26: 13"): no full
    stop of its own."""
    said = plain(text)
    return said[:-1] if said.endswith(".") else said


@register.filter
def for_readers(html: object, key: str) -> SafeString:
    """A rendered rules help page as a referee reads it (web.rules_doc)."""
    text = str(html) if isinstance(html, SafeData) else str(escape(str(html)))
    return mark_safe(_for_readers(text, key))  # noqa: S308 - safe in, only our markup added


@register.filter
def possessive(name: object) -> str:
    """A name's possessive in the page's language: "Grey Crows' upkeep", "Aldo's sheet";
    German "Aldos Bogen"; Spanish the name as written ("la hoja de Aldo")."""
    return _possessive(str(name))
