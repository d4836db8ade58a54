"""The rules help pages: each ruleset's ``docs/rulesets/<key>.md``, rendered in the app;
in the page's language when ``docs/rulesets/<language>/<key>.md`` exists (issue 37),
else the English one.

The Markdown is the project's own, but it is rendered safely all the same: raw HTML in
it is shown as text (markdown-it with ``html`` off), and only http(s), mailto and
relative links are kept.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from markdown_it import MarkdownIt

from rules.engine.registry import get_ruleset, ruleset_keys
from web.rules_doc import reader_tokens

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def _language() -> str:
    return (get_language() or "en").split("-")[0]


def rules_doc_path(key: str, language: str | None = None) -> Path:
    """The ruleset's help page in ``language`` (the page's) when it is translated
    (``docs/rulesets/<language>/<key>.md``), else the English one."""
    docs = Path(settings.BASE_DIR) / "docs" / "rulesets"
    code = language or _language()
    if code != "en":
        translated = docs / code / f"{key}.md"
        if translated.is_file():
            return translated
    return docs / f"{key}.md"


@lru_cache(maxsize=48)
def _rendered(path: Path, key: str, language: str, mtime: float) -> SafeString:
    """The page as players read it: the sections for API clients left out, ruling ids
    and keys said in words (web.rules_doc.reader_tokens; the actions' labels in the
    page's ``language``, so it is a key of the cache)."""
    text = path.read_text(encoding="utf-8")
    env: dict[str, object] = {}
    tokens = reader_tokens(_MARKDOWN.parse(text, env), key)
    html = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, env)
    return mark_safe(html)  # noqa: S308 - html off: raw HTML is escaped


def rules_html(key: str) -> SafeString:
    """The ruleset's help page as HTML; 404 for an unknown ruleset or a missing page."""
    if key not in ruleset_keys():
        raise Http404("no such ruleset")
    language = _language()
    path = rules_doc_path(key, language)
    if not path.is_file():
        raise Http404("no help for this ruleset")
    return _rendered(path, key, language, path.stat().st_mtime)


def rules_help_index(request: HttpRequest) -> HttpResponse:
    rulesets = [get_ruleset(key) for key in ruleset_keys()]
    return render(request, "rules/help_index.html", {"rulesets": rulesets})


def rules_help(request: HttpRequest, key: str) -> HttpResponse:
    body = rules_html(key)
    return render(request, "rules/help.html", {"ruleset": get_ruleset(key), "body": body})
