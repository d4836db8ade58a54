"""Views stay thin: every read of the database goes through a selector (campaigns/,
characters/, rules/ selectors.py), every write through a service. The page helpers of
web/ never build a query themselves."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUERY = re.compile(
    r"\.objects\b|\.(filter|exclude|aggregate|annotate|select_related|prefetch_related)\("
)


def test_no_page_helper_queries_the_database_itself():
    found = [
        f"{path.relative_to(ROOT).as_posix()}:{number}: {line.strip()}"
        for path in sorted((ROOT / "web").rglob("*.py"))
        if "management" not in path.parts and "tests" not in path.parts
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if QUERY.search(line)
    ]
    assert found == []
