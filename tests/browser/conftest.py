"""Playwright against Debian's chromium and pytest-django's live server.

Playwright's sync API runs an event loop in the test's thread, so Django's guard
against ORM calls from async code must be lifted for these tests (set before Django
touches the database).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Any:
    """Keep each phase's report on the test, for new_page to know whether it passed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def new_page(
    browser: Browser, live_server: Any, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Page]]:
    """A page in a fresh browser context (its own cookies: one person per context).

    When the test has passed, every page it opened is audited with axe-core as the test
    left it, after its clicks and htmx swaps (tests/browser/a11y.py): a violation of
    impact moderate or worse fails the test."""
    from tests.browser.a11y import AXE_PATH, audit, failing

    contexts = []

    def make(viewport: ViewportSize | None = None) -> Page:
        context = browser.new_context(viewport=viewport or DESKTOP, base_url=live_server.url)
        # axe-core rides in every document as an init script: the pages' Content-Security-
        # Policy allows no inline script, and init scripts are not page scripts
        context.add_init_script(path=AXE_PATH)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        return page

    yield make
    found: list[str] = []
    try:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.passed:
            for context in contexts:
                for page in context.pages:
                    path = page.url[len(live_server.url) :]
                    if not page.url.startswith(live_server.url) or path.startswith("/api/"):
                        continue  # elsewhere, or the API's docs (Swagger UI, not our page)
                    page.wait_for_load_state()
                    label = f"{request.node.name}, last page {path}"
                    found.extend(f"{label}: {v}" for v in failing(audit(page, label)))
    finally:
        for context in contexts:
            context.close()
    assert not found, "accessibility violations:\n" + "\n".join(found)


def log_in(page: Page, username: str, password: str | None = None) -> None:
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(password or f"pw-{username}")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """List what axe found below the failing impacts (tests/browser/a11y.py)."""
    from tests.browser.a11y import AXE_VERSION, FINDINGS

    if not FINDINGS.audits:
        return
    write = terminalreporter.write_line
    terminalreporter.section(f"axe-core {AXE_VERSION}")
    write(f"{FINDINGS.audits} audits of {len(FINDINGS.labels)} page states")
    for violation, labels in sorted(FINDINGS.minor.items()):
        write(f"minor, on {len(labels)} audits: {violation}")
        for label in labels[:3]:
            write(f"    {label[:300]}")
