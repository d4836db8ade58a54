"""A ruleset's help page (``docs/rulesets/<key>.md``, rendered by ``web.views.rulebook``) as a
referee reads it in the app (issue 29).

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

from rules.engine.registry import get_ruleset, ruleset_keys

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
        labels = {spec.key: spec.label for spec in get_ruleset(key).actions}

        def label(match: re.Match[str]) -> str:
            word = match.group(1)
            return escape(labels[word]) if word in labels else match.group(0)

        html = _HEADING.sub(
            lambda m: f"<{m.group(1)}>{_CODE.sub(label, m.group(2))}</{m.group(1)}>", html
        )
    numbers = count(1)
    html = re.sub(
        r"<table>",
        lambda _: (
            f'<div class="table-scroll" tabindex="0" role="group" '
            f'aria-label="Table {next(numbers)} (scrolls sideways)"><table>'
        ),
        html,
    )
    html = html.replace("</table>", "</table></div>")
    return html.replace("<pre>", '<pre tabindex="0">')
