"""The rules engine's messages said in the reader's language (``rules.engine.words``).

The engine gives English texts that remember their message id and values; here they are
said again with Django's gettext in the active language. A text that is not a message
(a name a person typed, an entry older than messages) is shown as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, ngettext

from rules.engine.words import Message, stored_text


def said(text: Any) -> str:
    """``text`` in the active language when it is an engine message; else as it is."""
    if isinstance(text, Message):
        return text.render(gettext, ngettext)
    return "" if text is None else str(text)


def said_stored(text: str, data: Mapping[str, Any] | None) -> str:
    """A stored text in the active language: from its message data when the row has it,
    else the English text as stored (rows written before messages)."""
    return stored_text(text, data, gettext, ngettext)


def said_error(error: BaseException) -> str:
    """An error's words in the active language: the engine's refusal is a message (its
    first argument); any other error reads as it is."""
    first = error.args[0] if len(error.args) == 1 else None
    if isinstance(first, Message):
        return said(first)
    return str(error)
