"""A ruleset's help page (``docs/rulesets/<key>.md``, rendered by ``web.views.rulebook``) as a
referee and the players read it in the app (issues 29 and 34).

* The page speaks the game's words (issue 34): what is for API clients (the params,
  payloads and keys of the REST API) sits under headings that end "(for API clients)",
  and those sections are left out; ruling ids (CM-3, HD-P14), which code and tests cite,
  are left out of the text; a key written as code (``soak_dice``, ``wound_worsens``) is
  said in words, an action's key as the action's label (:func:`reader_tokens`, on the
  Markdown's tokens before they are rendered).

* Each table scrolls sideways inside its own region (focusable, so a keyboard scrolls
  it too) and each code block likewise: the page itself never scrolls sideways at
  320 px (WCAG 2.2 reflow).
* What is for developers stays in the Markdown file only: the "Code: ... Tests: ..."
  paragraph and the ruleset's key after its name in the title; an action's key heading
  its section is shown as the action's label.
"""

from __future__ import annotations

import re
from itertools import count

from django.utils.html import escape
from django.utils.translation import gettext as _
from markdown_it.token import Token

from core.said import said
from rules.engine.registry import get_ruleset, ruleset_keys
from web.plain import RULING_ID, strip_rulings

# A section for API clients: its heading ends so; the pages leave it out.
# (a translated page may name it in its language, or leave those sections out)
API_SECTION = re.compile(
    r"\((?:for API clients|für API-Clients|para clientes de la API)\)\s*$", re.IGNORECASE
)
_SNAKE_CODE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_ID = RULING_ID.pattern
_LEADING_RULING = re.compile(rf"^\s*{_ID}(?:,\s*{_ID})*\s*")


def _labels(key: str) -> dict[str, str]:
    if key not in ruleset_keys():
        return {}
    return {spec.key: said(spec.label) for spec in get_ruleset(key).actions}


def _said(
    children: list[Token], labels: dict[str, str], *, title: bool, heading: bool
) -> list[Token]:
    """An inline run in the game's words: ruling ids out, keys as words or labels."""
    out: list[Token] = []
    for child in _joined(children):
        if child.type == "text" and RULING_ID.search(child.content):
            text = child.content
            if out and out[-1].type == "strong_open":  # a label: "CM-P10 Only a whole box..."
                text = _LEADING_RULING.sub("", text)
            if RULING_ID.search(text):  # a reference: left out, the sentence kept
                said = strip_rulings(text)
                lead = " " if text[:1].isspace() and said[:1] not in ".,;:)" else ""
                trail = " " if text[-1:].isspace() else ""
                text = f"{lead}{said}{trail}" if said else trail
            child.content = text
        elif child.type == "code_inline" and not title:
            # an action's key naming the action (a heading's, a table row's) is its label;
            # any other key written as code is said in words
            naming = heading or len(children) == 1
            if naming and child.content in labels:
                child = Token("text", "", 0, content=labels[child.content])
            elif _SNAKE_CODE.match(child.content):
                child = Token("text", "", 0, content=child.content.replace("_", " "))
        out.append(child)
    return out


def _joined(children: list[Token]) -> list[Token]:
    """Text split across the source's lines as one text (a parenthesis citing rulings may
    span two lines, and is left out whole)."""
    joined: list[Token] = []
    for child in children:
        if child.type in ("text", "softbreak") and joined and joined[-1].type == "text":
            joined[-1].content += " " if child.type == "softbreak" else child.content
        elif child.type == "softbreak":
            joined.append(Token("text", "", 0, content=" "))
        else:
            joined.append(child)
    return joined


def reader_tokens(tokens: list[Token], key: str) -> list[Token]:
    """The page's Markdown tokens as players read them: the sections for API clients
    left out, the rest in the game's words (see the module's docstring)."""
    labels = _labels(key)
    kept: list[Token] = []
    skipping: int | None = None  # the level of the heading whose section is left out
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            level = int(token.tag[1:])
            if skipping is not None and level <= skipping:
                skipping = None
            words = tokens[index + 1].content if index + 1 < len(tokens) else ""
            if skipping is None and API_SECTION.search(words):
                skipping = level
        if skipping is not None:
            continue
        if token.type == "inline" and token.children:
            opening = tokens[index - 1] if index > 0 else None
            in_heading = opening is not None and opening.type == "heading_open"
            title = in_heading and opening is not None and opening.tag == "h1"  # for_readers'
            token.children = _said(token.children, labels, title=title, heading=in_heading)
        kept.append(token)
    return kept


_DEVELOPERS = re.compile(r"\s*Code:.*?(?=</p>)", re.DOTALL)
_EMPTY_PARAGRAPH = re.compile(r"<p>\s*</p>\n?")
_KEY_IN_TITLE = re.compile(r"(<h1>[^<]*?)\s*\(<code>[a-z_]+</code>\)(</h1>)")
_HEADING = re.compile(r"<(h[2-4])>(.*?)</\1>", re.DOTALL)
_CODE = re.compile(r"<code>([a-z_]+)</code>")


def for_readers(html: str, key: str) -> str:
    """The rendered help page without its developer text, its tables and code blocks
    scrolling in their own regions. ``html`` is already safe (rendered with raw HTML
    off); only markup this function writes is added."""
    html = _DEVELOPERS.sub("", html)
    html = _EMPTY_PARAGRAPH.sub("", html)
    html = _KEY_IN_TITLE.sub(r"\1\2", html)
    if key in ruleset_keys():
        labels = {spec.key: said(spec.label) for spec in get_ruleset(key).actions}

        def label(match: re.Match[str]) -> str:
            word = match.group(1)
            return escape(labels[word]) if word in labels else match.group(0)

        html = _HEADING.sub(
            lambda m: f"<{m.group(1)}>{_CODE.sub(label, m.group(2))}</{m.group(1)}>", html
        )
    numbers = count(1)
    html = re.sub(
        r"<table>",
        lambda _match: (
            '<div class="table-scroll" tabindex="0" role="group" aria-label="'
            + escape(_("Table %(number)s (scrolls sideways)") % {"number": next(numbers)})
            + '"><table>'
        ),
        html,
    )
    html = html.replace("</table>", "</table></div>")
    return html.replace("<pre>", '<pre tabindex="0">')
