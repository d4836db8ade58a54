"""Every module, object and file a comment, a docstring, README.md or a docs page names
exists (issue 35): a rename leaves no stale name behind.

A dotted name that starts with one of our packages (``rules.log.statements.write_action``)
must import, attribute by attribute; a relative file path with an extension
(``rules/log/sql_writes.py``, ``docs/clock.md``) must be a file of the repository (for a
Markdown page, relative to the page or to the repository's root). Names with a
placeholder (``web/rulesets/<key>.py``) and the Celery task names kept from older
releases (they are names, not modules: rules/clock/queue.py) are not paths.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = (
    "accounts",
    "bench",
    "campaigns",
    "characters",
    "config",
    "core",
    "discord_play",
    "rules",
    "tests",
    "web",
    "webhook_delivery",
    "webhooks",
)
SKIPPED_DIRS = {".venv", ".git", "node_modules", "migrations", "__pycache__", "generated_client"}
EXTENSIONS = "py|md|html|txt|toml|yml|yaml|json|conf|css|js|cfg|ini|sh"
DOTTED = re.compile(rf"(?<![\w./-])((?:{'|'.join(PACKAGES)})(?:\.[A-Za-z_]\w*)+)(?![\w/-]|\.\w)")
FILE = re.compile(rf"(?<![\w./<>*{{}}:-])((?:[\w.-]+/)+[\w.-]+\.(?:{EXTENSIONS}))(?![\w/<>*-])")
# Names that look like paths and are not: Celery task names (kept as they were when
# the tasks lived elsewhere, so queued messages still find them).
NOT_PATHS = re.compile(
    r"^(rules\.tasks(\.|$)|webhooks\.tasks\.deliver(_webhooks)?$|[a-z_.]+\.send_email$)"
)
# A page that walks the reader through files they are to write (a new ruleset "grim").
EXAMPLES = {"docs/adding-a-ruleset.md": re.compile(r"(?<![a-z])grim")}


def _python_files() -> Iterator[Path]:
    for path in sorted(ROOT.rglob("*.py")):
        if not SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts):
            yield path


def _markdown_files() -> Iterator[Path]:
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").rglob("*.md"))


def _python_texts(path: Path) -> Iterator[tuple[int, str]]:
    """The comments and docstrings of a module, with their line numbers."""
    source = path.read_text()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                yield node.body[0].lineno, docstring


def _resolves(name: str) -> bool:
    parts = name.split(".")
    if parts[-1] in EXTENSIONS.split("|"):
        return True  # a file's name ("webhooks.md"): a path, checked as one when it has a /
    if len(parts) == 2 and parts[1][:1].isupper() and _is_model(name):
        return True  # a model's label (``accounts.ApiToken``)
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        except Exception:  # it is there, and refuses to load here (production settings)
            return True
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def _is_model(label: str) -> bool:
    try:
        apps.get_model(label)
    except LookupError:
        return False
    return True


def _file_exists(path: str, page: Path) -> bool:
    return (page.parent / path).exists() or (ROOT / path).exists()


def _missing(where: Path, line: int, text: str) -> Iterator[str]:
    place = f"{where.relative_to(ROOT)}:{line}"
    for match in DOTTED.finditer(text):
        name = match.group(1).rstrip(".")
        if not NOT_PATHS.match(name) and not _resolves(name):
            yield f"{place}: {name}"
    example = EXAMPLES.get(str(where.relative_to(ROOT)))
    for match in FILE.finditer(text):
        if example is not None and example.search(match.group(1)):
            continue
        if not _file_exists(match.group(1), where):
            yield f"{place}: {match.group(1)}"


@pytest.mark.once
def test_every_named_module_object_and_file_exists():
    missing: list[str] = []
    for path in _python_files():
        for line, text in _python_texts(path):
            missing.extend(_missing(path, line, text))
    for page in _markdown_files():
        for line, text in enumerate(page.read_text().splitlines(), start=1):
            missing.extend(_missing(page, line, text))
    assert not missing, "named but not there:\n" + "\n".join(missing)
