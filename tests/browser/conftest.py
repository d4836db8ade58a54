"""Playwright against Debian's chromium and pytest-django's live server.

Playwright's sync API runs an event loop in the test's thread, so Django's guard
against ORM calls from async code must be lifted for these tests (set before Django
touches the database).
"""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

from playwright.sync_api import (  # noqa: E402
    Browser,
    Page,
    Request,
    ViewportSize,
    expect,
    sync_playwright,
)

# A page's wait, and an expectation's, long enough for a machine busy with the suite's
# other workers and the drills (a wait ends as soon as the page is there: a passing test
# pays nothing for it; only a failing one waits to the end).
PAGE_TIMEOUT_MS = 30_000
expect.set_options(timeout=15_000)

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


class Traffic:
    """A page's requests in flight (its live stream left out: it stays open)."""

    def __init__(self, page: Page) -> None:
        self.out: set[Request] = set()
        self.sent = 0
        page.on("request", self._sent)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _sent(self, request: Request) -> None:
        if request.resource_type != "eventsource":
            self.out.add(request)
            self.sent += 1

    def _ended(self, request: Request) -> None:
        self.out.discard(request)


TRAFFIC: weakref.WeakKeyDictionary[Page, Traffic] = weakref.WeakKeyDictionary()
QUIET_MS = 60


def settle(page: Page, timeout_s: float = PAGE_TIMEOUT_MS / 1000) -> None:
    """Wait until the page has sent nothing and had nothing in flight for QUIET_MS.

    Playwright's "networkidle" asks for 500 ms of quiet, which the page walks paid on
    every page (a minute a walk, issue 39's suite): the htmx requests a page sends on
    its own (its load, an opened form's odds) start within a few milliseconds of what
    caused them, so a short quiet is enough. Playwright delivers the page's events to
    TRAFFIC while it waits."""
    traffic = TRAFFIC[page]
    deadline = time.monotonic() + timeout_s
    while True:
        sent = traffic.sent
        page.wait_for_timeout(QUIET_MS)
        if not traffic.out and traffic.sent == sent:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{page.url}: still loading {sorted(r.url for r in traffic.out)}")


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
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        TRAFFIC[page] = Traffic(page)
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


@pytest.fixture
def demo(settings: Any) -> dict[str, Any]:
    """seed_demo's campaigns (every ruleset), known passwords, an invite per campaign; the
    screenshot parties' harm dealt to the demo characters of their ruleset (seeded dice),
    so the sheets draw wounds, diseases, piles and a pending choice. The users by name.
    (The walks over every page use it: test_accessibility, test_every_page_fits.)"""
    import io

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from campaigns.models import Campaign
    from campaigns.services import invite_create
    from rules.engine.dice import SystemGenerator
    from rules.engine.interface import ActionBlocked, RuleError
    from rules.log import context as rules_dice
    from tests.browser.test_screenshots import PARTIES, take

    settings.SAWBONES_EMBEDDED = True
    call_command("seed_demo", stdout=io.StringIO())
    settings.SAWBONES_EMBEDDED = False
    users = {user.username: user for user in get_user_model().objects.all()}
    for user in users.values():
        user.set_password(f"pw-{user.username}")
        user.save(update_fields=["password"])
    rules_dice._generator_override.append(SystemGenerator(6))
    try:
        for campaign in Campaign.objects.order_by("pk"):
            characters = campaign.characters.order_by("pk")
            for character, (*_, actions) in zip(
                characters, PARTIES.get(campaign.ruleset, []), strict=False
            ):
                try:
                    take(users["referee"], character, actions)
                except (ActionBlocked, RuleError):
                    continue  # the party was written for other characters; the rest stands
            invite_create(campaign=campaign, user=users["referee"])
    finally:
        rules_dice._generator_override.clear()
    return users


def log_in(page: Page, username: str, password: str | None = None) -> None:
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(password or f"pw-{username}")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")
