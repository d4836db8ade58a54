"""Every test file of the project is under one of pytest's ``testpaths``: a folder left
out is never run by ``make test`` (``core/tests`` was, until stop 52), and a test there
holds nothing."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.once  # reads the code

ROOT = Path(__file__).resolve().parent.parent
NOT_OURS = {".venv", "node_modules", ".git"}


def test_every_test_file_is_under_the_suites_paths() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    paths = config["tool"]["pytest"]["ini_options"]["testpaths"]
    left_out = [
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("test_*.py")
        if not NOT_OURS & set(path.relative_to(ROOT).parts)
        and path.relative_to(ROOT).parts[0] not in paths
    ]
    assert left_out == []
