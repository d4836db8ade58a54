"""Discord's message JSON, kept within Discord's limits (docs/discord.md).

Every message says ``allowed_mentions: {"parse": []}``: a character named "@everyone"
pings nobody. A text longer than its place is shortened by whole sentences, never cut
in the middle of one, and says where the rest is; a message with more than Discord takes
keeps its first embeds and says how many were left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _

# Discord's limits on a message (its developer documentation, "Embed Limits").
CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBEDS_TOTAL_MAX = 6000  # title, description, field names and values, footer, author
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FOOTER_MAX = 2048
AUTHOR_MAX = 256
# Components: up to 5 rows of up to 5 buttons, a label up to 80, a custom_id up to 100.
ROWS_MAX = 5
BUTTONS_PER_ROW = 5
LABEL_MAX = 80
CUSTOM_ID_MAX = 100
# Autocomplete: up to 25 choices, each name and value up to 100.
CHOICES_MAX = 25
CHOICE_MAX = 100

EPHEMERAL = 64  # the message flag: only the person who asked sees it
NO_MENTIONS: dict[str, list[str]] = {"parse": []}

# Colours of an embed's edge: a death, something bad, news, what just happened.
RED = 0xB3261E
AMBER = 0xB26A00
BLUE = 0x2F5D8A
GREEN = 0x2E7D32

_MARKDOWN = re.compile(r"([\\`*_~|>\[\]#])")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_LINE_END = re.compile(r"\n+")


def plain(text: Any) -> str:
    """Text shown as it is, not as Markdown: its marks escaped, on one line."""
    return _MARKDOWN.sub(r"\\\1", " ".join(str(text).split()))


def shorten(text: str, limit: int, *, rest: str = "") -> str:
    """``text`` if it fits in ``limit`` characters, else its first whole lines (or, in a
    text of one line, its first whole sentences) and ``rest`` (where to read the rest):
    never cut in a sentence. A first line or sentence too long for ``limit`` gives
    ``rest`` alone (or a plain "Too long to show here.")."""
    if len(text) <= limit:
        return text
    tail = rest or _("Too long to show here.")
    kept = ""
    ends = _LINE_END if "\n" in text else _SENTENCE_END
    for match in ends.finditer(text):
        candidate = text[: match.start()].rstrip()
        if len(candidate) + 1 + len(tail) > limit:
            break
        kept = candidate
    joint = "\n" if "\n" in text else " "
    shown = f"{kept}{joint}{tail}" if kept else tail
    return shown[:limit] if len(shown) > limit else shown


def embed_size(embed: Mapping[str, Any]) -> int:
    """The characters of an embed that count towards the 6,000 of a message."""
    size = len(embed.get("title", "")) + len(embed.get("description", ""))
    size += sum(len(f.get("name", "")) + len(f.get("value", "")) for f in embed.get("fields", []))
    size += len(embed.get("footer", {}).get("text", ""))
    size += len(embed.get("author", {}).get("name", ""))
    return size


def embed(
    *,
    title: str,
    description: str = "",
    fields: Iterable[tuple[str, str]] = (),
    url: str = "",
    color: int = BLUE,
    footer: str = "",
    rest: str = "",
) -> dict[str, Any]:
    """One embed within its limits; ``rest``: the sentence that says where the whole text is
    when the description must be shortened."""
    made: dict[str, Any] = {"title": shorten(title, TITLE_MAX), "color": color}
    if description:
        made["description"] = shorten(description, DESCRIPTION_MAX, rest=rest)
    shown = [
        {
            "name": shorten(name, FIELD_NAME_MAX),
            "value": shorten(value, FIELD_VALUE_MAX, rest=rest),
            "inline": len(value) <= 40,
        }
        for name, value in fields
        if name and value
    ][:FIELDS_MAX]
    if shown:
        made["fields"] = shown
    if url:
        made["url"] = url
    if footer:
        made["footer"] = {"text": shorten(footer, FOOTER_MAX)}
    return made


def message(
    *,
    content: str = "",
    embeds: Iterable[Mapping[str, Any]] = (),
    components: list[dict[str, Any]] | None = None,
    ephemeral: bool = False,
    more: str = "",
) -> dict[str, Any]:
    """A whole message within Discord's limits: at most 10 embeds and 6,000 characters in
    them; those left out are counted in a last line (``more``: where to read them)."""
    kept: list[dict[str, Any]] = []
    total = 0
    given = [dict(e) for e in embeds]
    for index, item in enumerate(given):
        size = embed_size(item)
        left = len(given) - index
        if len(kept) == EMBEDS_MAX or total + size > EMBEDS_TOTAL_MAX - 200:
            note = _("%(count)s more not shown here.") % {"count": left}
            content = f"{content} {note} {more}".strip()
            break
        kept.append(item)
        total += size
    made: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
    if content:
        made["content"] = shorten(content, CONTENT_MAX)
    if kept:
        made["embeds"] = kept
    if components is not None:
        made["components"] = components
    if ephemeral:
        made["flags"] = EPHEMERAL
    return made


def say(text: str, *, ephemeral: bool = True) -> dict[str, Any]:
    """A message of one text (an answer only the asker sees, unless ``ephemeral`` is off)."""
    return message(content=text, ephemeral=ephemeral)


def short_label(label: str, limit: int = LABEL_MAX) -> str:
    """A button's label within ``limit``: whole, or what comes before its bracketed
    detail, or its first words and "…" (a label is no sentence: the message says the rest)."""
    if len(label) <= limit:
        return label
    head = label.split(" (", 1)[0]
    if head != label and len(head) <= limit:
        return head
    words = ""
    for word in label.split():
        if len(words) + len(word) + 2 > limit:
            break
        words = f"{words} {word}".strip()
    return f"{words or label[: limit - 1]}…"


def buttons(choices: list[tuple[str, str, int]]) -> list[dict[str, Any]]:
    """Action rows of buttons, ``(custom_id, label, style)`` each, five to a row, at most
    five rows."""
    shown = choices[: ROWS_MAX * BUTTONS_PER_ROW]
    rows = []
    for start in range(0, len(shown), BUTTONS_PER_ROW):
        rows.append(
            {
                "type": 1,
                "components": [
                    {
                        "type": 2,
                        "style": style,
                        "label": short_label(label),
                        "custom_id": custom_id[:CUSTOM_ID_MAX],
                    }
                    for custom_id, label, style in shown[start : start + BUTTONS_PER_ROW]
                ],
            }
        )
    return rows


def autocomplete(choices: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The data of an autocomplete answer: ``(name, value)`` pairs, at most 25."""
    return {
        "choices": [
            {"name": shorten(name, CHOICE_MAX) or value[:CHOICE_MAX], "value": value}
            for name, value in list(choices)[:CHOICES_MAX]
            if len(value) <= CHOICE_MAX
        ]
    }
