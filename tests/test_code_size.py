"""No module over 600 lines, no function over 80 (issue 35).

A module that long holds more than one idea and a function that long more than one step;
both are read less well and changed less safely. The rulesets' engine modules
(`rules/engine/rulesets/`) are exempt from the module limit only: each is one game's
rules, whole, and reads best in one place. Tests and migrations aside: a test may spell
out a long scenario, and migrations are generated.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.once  # reads the code

ROOT = Path(__file__).resolve().parent.parent
MODULE_LIMIT = 600
FUNCTION_LIMIT = 80
SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__", "migrations", "tests"}
MODULE_LIMIT_EXEMPT = ROOT / "rules" / "engine" / "rulesets"


def _project_modules() -> list[Path]:
    return sorted(
        path
        for path in ROOT.rglob("*.py")
        if not SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts[:-1])
        and not path.name.startswith("test_")
    )


def _long_functions(path: Path) -> list[str]:
    # Every def counts on its own, methods and nested ones too; a nested function's lines
    # count in its parent as well, so a parent cannot hide its length in inner defs.
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    relative = path.relative_to(ROOT)
    return [
        f"{relative}:{node.lineno} {node.name} has {length} lines"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (length := (node.end_lineno or node.lineno) - node.lineno + 1) > FUNCTION_LIMIT
    ]


def test_the_walk_finds_the_project() -> None:
    found = {str(path.relative_to(ROOT)) for path in _project_modules()}
    assert {"manage.py", "rules/engine/interface.py", "web/forms.py"} <= found
    assert not any("/tests/" in f"/{name}" or "/migrations/" in name for name in found)


def test_no_module_over_600_lines() -> None:
    too_long = [
        f"{path.relative_to(ROOT)} has {lines} lines"
        for path in _project_modules()
        if not path.is_relative_to(MODULE_LIMIT_EXEMPT)
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LIMIT
    ]
    assert not too_long, "modules over 600 lines (split them):\n" + "\n".join(too_long)


def test_no_function_over_80_lines() -> None:
    too_long = [line for path in _project_modules() for line in _long_functions(path)]
    assert not too_long, "functions over 80 lines (split them):\n" + "\n".join(too_long)
