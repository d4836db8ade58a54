"""Fixtures shared by every app's tests: people, a campaign, API clients, dice."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created
from django.test import Client
from rest_framework.test import APIClient

from campaigns.models import Membership, Role
from campaigns.services import campaign_create
from characters.models import Character
from rules.engine.dice import ScriptedGenerator
from rules.log import context as rules_dice
from rules.play.services import character_create
from tests import status_census
from web import streams

# The client a fixture makes: the API's or the pages'.
AnyClient = TypeVar("AnyClient", APIClient, Client)


def _shared_cache_reads_take_no_table_locks(
    sender: object, connection: BaseDatabaseWrapper, **kwargs: Any
) -> None:
    """SQLite's test database lives in memory with a shared cache: there a reader's table
    lock makes another thread's write fail at once ("database table is locked"), with no
    busy wait. The live pages' watcher reads from its own thread while a test writes, so
    its reads must not lock: read-uncommitted is how a shared cache says that. (A file
    database, as ``make run`` uses, waits for locks instead and needs nothing.)"""
    name = str(connection.settings_dict.get("NAME", ""))
    if connection.vendor == "sqlite" and "mode=memory" in name:
        connection.connection.execute("PRAGMA read_uncommitted = 1")


connection_created.connect(_shared_cache_reads_take_no_table_locks)

_census: status_census.Observed = {}
_running = {"test": ""}


def pytest_runtest_setup(item: pytest.Item) -> None:
    _running["test"] = item.nodeid


# The long tests first, each paired with a short one (issue 33). `make test` runs the suite
# on several workers (pytest-xdist) that take the tests in this order, two at a time
# (``--maxschedchunk 1``: the one running and the next): a worker gets a long test and a
# short one, never two long ones, and the last minutes are spent on short tests, so the
# workers end together instead of one of them finishing a long walk alone.
LONG_FIRST = ("drill", "slow", "celery_worker", "browser")  # most to least time each, by marker


def _length_rank(item: pytest.Item) -> int:
    for rank, marker in enumerate(LONG_FIRST):
        if item.get_closest_marker(marker) is not None:
            return rank
    return len(LONG_FIRST)


# The rules engine's tests: pure Python, no database (pytest-django refuses them one), so
# `make test` runs them once, in the default configuration (README, marker "pure").
ENGINE_TESTS = Path(__file__).resolve().parent / "rules" / "engine" / "tests"


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark the engine's tests "pure" as they are collected (before -m selects), and
    refuse a test the Makefile's selections would run in neither configuration."""
    if ENGINE_TESTS in item.path.parents:
        item.add_marker(pytest.mark.pure)
    drill = item.get_closest_marker("drill") is not None
    for once_in_default in ("pure", "walk", "once"):  # a drill runs in the PostgreSQL one only
        if drill and item.get_closest_marker(once_in_default) is not None:
            raise pytest.UsageError(f"{item.nodeid}: a drill cannot be {once_in_default}")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """After pytest-django's order (which it keeps within each kind of test), the long
    tests first, each followed by a short one while short ones last."""
    ranked = sorted(items, key=_length_rank)  # stable: keeps the order within a rank
    long = [item for item in ranked if _length_rank(item) < len(LONG_FIRST)]
    short = ranked[len(long) :]
    order: list[pytest.Item] = []
    for number, item in enumerate(long):
        order.append(item)
        if number < len(short):
            order.append(short[number])
    order.extend(short[len(long) :])
    items[:] = order


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a worker of the suite (pytest-xdist), hand the browser tests' axe findings to
    the main process, which lists them at the end (tests/browser/conftest.py)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        from tests.browser.a11y import FINDINGS

        workeroutput["axe"] = FINDINGS.as_data()


def pytest_testnodedown(node: Any, error: Any) -> None:
    """In the main process: add up what each worker's audits found."""
    data = getattr(node, "workeroutput", {}).get("axe")
    if data:
        from tests.browser.a11y import FINDINGS

        FINDINGS.add(data)


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


@pytest.fixture(scope="session", autouse=True)
def _every_status_is_in_the_schema() -> Iterator[None]:
    """Every status an API operation answers in this session is in its responses in the
    schema (tests/status_census.py): the session fails naming any that is not."""
    with status_census.counting(_census, lambda: _running["test"]):
        yield
    if _census:
        missing = status_census.missing_statuses(_census, status_census.served_schema())
        assert not missing, "statuses the schema does not list:\n" + "\n".join(missing)


@pytest.fixture(autouse=True)
def _no_live_watcher_outlives_its_test() -> Iterator[None]:
    """A page left open by a browser test keeps the live pages' watcher reading (from its
    own thread) until its stream notices; stop it before the next test's database, so no
    test shares its tables with a reader it did not start."""
    yield
    if streams._watcher is not None and streams._watcher.running:
        assert streams._watcher.stop(), "the live pages' watcher did not stop"


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    """Each test starts with no request counted by the throttles (the test settings'
    cache is the test process's memory)."""
    cache.clear()
    yield


@pytest.fixture
def make_user(db: None) -> Callable[[str], User]:
    def make(username: str) -> User:
        return get_user_model().objects.create_user(username=username, password="pw-" + username)

    return make


def _user_fixture(username: str) -> Any:
    """A fixture named ``username``: the user of that name (password ``pw-<username>``)."""

    @pytest.fixture(name=username)
    def user(make_user: Callable[[str], User]) -> User:
        return make_user(username)

    return user


referee = _user_fixture("referee")
player = _user_fixture("player")
other_player = _user_fixture("other_player")
outsider = _user_fixture("outsider")


@pytest.fixture
def make_campaign(referee, player, other_player):
    def make(ruleset: str = "hit_dice", **options):
        campaign = campaign_create(
            user=referee, name=f"A {ruleset} campaign", ruleset=ruleset, options=options or None
        )
        Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
        Membership.objects.create(campaign=campaign, user=other_player, role=Role.PLAYER)
        return campaign

    return make


@pytest.fixture
def campaign(make_campaign):
    return make_campaign("hit_dice")


def _signed_in_as(
    new: Callable[[], AnyClient], sign_in: Callable[[AnyClient, User], None]
) -> Callable[[User | None], AnyClient]:
    """Makes a client signed in as ``user`` (None: signed out)."""

    def make(user: User | None) -> AnyClient:
        client = new()
        if user is not None:
            sign_in(client, user)
        return client

    return make


@pytest.fixture
def client_for() -> Callable[[User | None], APIClient]:
    """An API client, authenticated as ``user`` (None: anonymous)."""
    return _signed_in_as(APIClient, APIClient.force_authenticate)


@pytest.fixture
def web() -> Callable[[User | None], Client]:
    """A browser-less client of the pages, signed in as ``user`` (None: signed out)."""
    return _signed_in_as(Client, Client.force_login)


@pytest.fixture
def make_unit() -> Callable[..., Character]:
    """A warband unit of ``user`` in ``campaign`` (a warband campaign)."""

    def make(campaign: Any, user: User, name: str, warband: str, **fields: Any) -> Character:
        membership = Membership.objects.get(campaign=campaign, user=user)
        sheet = {"warband": warband, **fields}
        return character_create(membership=membership, name=name, sheet=sheet)

    return make


@pytest.fixture
def scripted_dice() -> Iterator[Callable[[list[int]], ScriptedGenerator]]:
    """Script the faces of every die the server rolls next, through the whole stack."""

    def script(faces: list[int]) -> ScriptedGenerator:
        generator = ScriptedGenerator(faces)
        rules_dice._generator_override.append(generator)
        return generator

    yield script
    rules_dice._generator_override.clear()
