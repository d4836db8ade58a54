"""An open page holds one event stream (web/streams.py) and asks for its fragment only
when the stream says it changed; while there is no stream, it polls (static/js/sawbones.js).
The live server runs in this process, so the test sees what its watcher watches."""

from __future__ import annotations

import re
from collections.abc import Callable
from time import monotonic, sleep

import pytest
from playwright.sync_api import Page, Route, expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character
from rules.play.services import character_create, resolution_create_action
from tests.browser.conftest import log_in
from tests.browser.test_hidden_tab import _hide, _polls_during
from web import streams

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _until(page: Page, condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = monotonic() + seconds
    while not condition() and monotonic() < deadline:
        page.wait_for_timeout(100)
    return condition()


def _watched(key: tuple[str, int]) -> bool:
    return key in streams.watcher().watching


@pytest.fixture
def aldo(referee, player) -> Character:
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    membership = Membership.objects.create(campaign=campaign, user=player, role="player")
    return character_create(membership=membership, name="Aldo", sheet={"hp": 9})


def _damage(aldo: Character, referee, amount: int) -> None:
    resolution_create_action(
        character_id=aldo.pk,
        actor=referee,
        by_referee=True,
        action="damage",
        params={"amount": amount},
    )


def test_an_open_sheet_holds_a_stream_instead_of_polling(new_page, aldo, referee):
    page = new_page()
    log_in(page, "player")
    with page.expect_request(re.compile(r"/live/events/\?watch=sheet%3A\d+$")):
        page.goto(f"/characters/{aldo.pk}/")
    assert _until(page, lambda: _watched(("sheet", aldo.pk)))
    live = f"/characters/{aldo.pk}/live/"
    page.wait_for_timeout(500)  # the one ask the stream's opening sends
    assert _polls_during(page, 3.0, live) == 0  # the timer sends nothing

    hit_points = page.locator('[aria-label^="Hit points"]').first
    with page.expect_request(lambda request: live in request.url):
        _damage(aldo, referee, 4)  # the stream says so; the sheet asks once
    expect(hit_points).to_have_attribute("aria-label", re.compile(r"Hit points: 5 "))

    page.goto("/")  # the stream ends with the page
    assert _until(page, lambda: not _watched(("sheet", aldo.pk)))


def test_without_a_stream_the_sheet_polls_and_still_sees_changes(new_page, aldo, referee):
    """A server that cannot hold streams answers 204 (gunicorn's sync workers): the page
    polls every second as before."""
    page = new_page()
    log_in(page, "player")
    page.route("**/live/events/**", lambda route: route.fulfill(status=204))
    page.goto(f"/characters/{aldo.pk}/")
    live = f"/characters/{aldo.pk}/live/"
    assert _polls_during(page, 2.5, live) >= 2
    _damage(aldo, referee, 4)
    hit_points = page.locator('[aria-label^="Hit points"]').first
    expect(hit_points).to_have_attribute("aria-label", re.compile(r"Hit points: 5 "))


def test_a_dropped_stream_falls_back_to_polls_and_comes_back(new_page, aldo, referee, settings):
    """While the stream is down (the server restarting, the network gone) the timer polls;
    the browser connects again by itself, and the polls stop."""
    settings.SAWBONES_STREAM_MAX_SECONDS = 2  # the server ends the stream after 2 s
    page = new_page()
    log_in(page, "player")
    live = f"/characters/{aldo.pk}/live/"
    refused = {"on": True}

    def events(route):  # refused while "down", let through afterwards
        if refused["on"]:
            route.abort()
        else:
            route.continue_()

    page.route("**/live/events/**", events)
    page.goto(f"/characters/{aldo.pk}/")
    assert _polls_during(page, 2.5, live) >= 2  # down: polls
    refused["on"] = False
    assert _until(page, lambda: _watched(("sheet", aldo.pk)), seconds=8)
    page.wait_for_timeout(500)
    _damage(aldo, referee, 4)
    hit_points = page.locator('[aria-label^="Hit points"]').first
    expect(hit_points).to_have_attribute("aria-label", re.compile(r"Hit points: 5 "))


def test_a_hidden_page_lets_its_stream_go(new_page, aldo, referee):
    page = new_page()
    log_in(page, "player")
    page.goto(f"/characters/{aldo.pk}/")
    assert _until(page, lambda: _watched(("sheet", aldo.pk)))
    _hide(page, True)
    assert _until(page, lambda: not _watched(("sheet", aldo.pk)))  # the server let it go
    _damage(aldo, referee, 4)
    sleep(0.5)
    hit_points = page.locator('[aria-label^="Hit points"]').first
    expect(hit_points).to_have_attribute("aria-label", re.compile(r"Hit points: 9 "))
    _hide(page, False)
    expect(hit_points).to_have_attribute("aria-label", re.compile(r"Hit points: 5 "))
    assert _until(page, lambda: _watched(("sheet", aldo.pk)))


def test_the_referee_s_dashboard_hears_a_player_s_action(new_page, aldo, referee, player):
    page = new_page()
    log_in(page, "referee")
    campaign_id = aldo.campaign_id
    page.goto(f"/campaigns/{campaign_id}/")
    assert _until(page, lambda: _watched(("campaign", campaign_id)))
    page.wait_for_timeout(500)
    live = f"/campaigns/{campaign_id}/live/"
    assert _polls_during(page, 2.5, live) == 0  # the timer sends nothing
    with page.expect_request(lambda request: live in request.url):
        _damage(aldo, referee, 4)
    expect(page.locator("#dash-live")).to_contain_text("5")


def test_a_change_told_while_the_sheet_is_asking_is_not_lost(new_page, aldo, referee):
    """The stream tells of a second change while the answer to the first is still on its
    way (and was made before the second): the sheet asks again once it is in."""
    page = new_page()
    log_in(page, "player")
    page.goto(f"/characters/{aldo.pk}/")
    assert _until(page, lambda: _watched(("sheet", aldo.pk)))
    page.wait_for_timeout(500)  # the one ask the stream's opening sends
    held = {"done": False}

    def slow_answer(route: Route) -> None:
        if held["done"]:
            route.continue_()
            return
        held["done"] = True
        answer = route.fetch()  # the sheet after the first change
        _damage(aldo, referee, 2)  # the second, told by the stream while this one waits
        sleep(1.0)
        route.fulfill(response=answer)

    page.route(f"**/characters/{aldo.pk}/live/**", slow_answer)
    _damage(aldo, referee, 4)
    hit_points = page.locator('[aria-label^="Hit points"]').first
    expect(hit_points).to_have_attribute("aria-label", re.compile(r"Hit points: 3 "))
    assert held["done"]
