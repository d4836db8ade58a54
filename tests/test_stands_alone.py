"""The repository stands on its own: a fresh clone has nothing beside it.

The team keeps reference material (rule texts, rulings, the API promise) outside the
repository; a user who clones Sawbones does not have it. So no test, document, link or
build step may point outside the repository: what the project needs from there lives
here, in its own words (docs/rulesets/, docs/api.md) and data. `.ci/run` also runs the
whole suite from a copy of the repository with nothing beside it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPPED_DIRS = {".git", ".venv", "node_modules", "staticfiles", "__pycache__", ".mypy_cache"}
TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".html",
    ".txt",
    ".toml",
    ".cfg",
    ".ini",
    ".yml",
    ".yaml",
    ".js",
    ".css",
    ".json",
    ".csv",
    ".sh",
    "",
}
# A path that climbs out of the repository into the team's shelf.
OUTSIDE = re.compile(r"\.\./shared|(?<![\w/])shared/(seeds|reference|RULINGS|API\.md|STYLE)")


def _project_files() -> list[Path]:
    found = []
    for path in ROOT.rglob("*"):
        if any(part in SKIPPED_DIRS for part in path.relative_to(ROOT).parts):
            continue
        if path.is_file() and path.suffix in TEXT_SUFFIXES and path != Path(__file__):
            found.append(path)
    return found


def test_no_file_points_outside_the_repository():
    offenders = []
    for path in _project_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_the_pattern_catches_what_it_must():
    assert OUTSIDE.search("see ../shared/API.md")
    assert OUTSIDE.search("Rule text: `shared/seeds/old-school.md`")
    assert not OUTSIDE.search("from celery import shared_task")
    assert not OUTSIDE.search("rules shared by every ruleset")


def test_the_files_the_readme_names_exist():
    readme = (ROOT / "README.md").read_text()
    for link in re.findall(r"\]\(([^)#]+)\)", readme):
        if "://" in link:
            continue
        assert (ROOT / link).exists(), link


def test_no_committed_link_leads_out_of_the_repository() -> None:
    """A symbolic link in the repository that points outside it (a worktree's .venv
    committed by mistake) would make a fresh clone use, or break on, someone's files."""
    import subprocess

    staged = subprocess.run(
        ["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    links = [line.split("\t", 1)[1] for line in staged if line.startswith("120000 ")]
    outside = [link for link in links if not (ROOT / link).resolve().is_relative_to(ROOT.resolve())]
    assert outside == [], outside
