"""The engine must stay pure Python: nothing under rules/engine may import Django."""

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1]


def test_no_engine_module_imports_django_in_its_source():
    offenders = []
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path}: {n}"
                for n in names
                if n.split(".")[0] in {"django", "rest_framework", "celery"}
            ]
    assert offenders == []


def test_importing_every_ruleset_loads_no_django_module():
    # A fresh interpreter, so modules the test run already loaded do not hide an import.
    code = (
        "import sys\n"
        "from rules.engine.registry import all_rulesets\n"
        "all_rulesets()\n"
        "roots = {'django', 'rest_framework', 'celery'}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in roots)\n"
        "print(','.join(bad))\n"
    )
    root = ENGINE.parents[1]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
