"""The main loop by keyboard alone: log in, open a dashboard, damage a character, answer
the choice it opens, advance the clock, undo. Only Tab, Shift+Tab, Enter and typing;
after every key the focused element shows a focus ring, every control of each page is
reached by Tab, nothing answers only to the mouse, and after each htmx swap focus stays
where the person was or moves to the result, which the live region says.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from campaigns.models import Membership, Role
from campaigns.services import campaign_create
from rules.play.services import character_create, resolution_create_action
from tests.browser.a11y import script

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOCUSED_JS = script("focused.js")

# Every control a person can use, marked with a number; and anything that looks
# clickable (a pointer cursor) but is neither a control nor part of one.
MARK_JS = script("controls.js")


def focused(page: Page) -> dict[str, Any] | None:
    found: dict[str, Any] | None = page.evaluate(FOCUSED_JS)
    return found


def assert_visible_focus(page: Page) -> dict[str, Any]:
    now = focused(page)
    assert now is not None, "focus fell to the page"
    assert now["shown"] and now["ring"], f"no visible focus ring on {now}"
    return now


def press(page: Page, key: str) -> dict[str, Any]:
    page.keyboard.press(key)
    return assert_visible_focus(page)


def tab_to(page: Page, pattern: str, *, back: bool = False, limit: int = 120) -> dict[str, Any]:
    """Tab (or Shift+Tab) until the focused element's words or id match; every stop on the
    way shows its focus ring."""
    wanted = re.compile(pattern)
    outside = 0
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if focused(page) is None and outside == 0:
            outside += 1  # past the last control, to the browser, and round again
            continue
        now = assert_visible_focus(page)
        outside = 0
        if wanted.search(now["words"]) or wanted.search(now["id"]):
            return now
    raise AssertionError(f"{pattern!r} not reached by keyboard")


def every_control_by_tab(page: Page) -> None:
    """Tab through the whole page from its top: every control is reached, each with its
    focus ring, and nothing that takes a click is out of the keyboard's reach."""
    found = page.evaluate(MARK_JS)
    assert not found["mouseOnly"], f"clickable only with a mouse: {found['mouseOnly']}"
    wanted = {line.split(" ", 1)[0]: line for line in found["marked"]}
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); }")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.locator("body").focus()
    reached = set()
    for _ in range(len(wanted) + 15):
        page.keyboard.press("Tab")
        now = focused(page)
        if now is None:
            continue
        assert now["shown"] and now["ring"], f"no visible focus ring on {now}"
        reached.add(now["mark"])
        if set(wanted) <= reached:
            break
    missing = [wanted[mark] for mark in wanted if mark not in reached]
    assert not missing, f"not reachable by Tab: {missing}"


def announced(page: Page) -> str:
    return page.locator("#announce").inner_text(timeout=2000)


def test_the_main_loop_by_keyboard_alone(new_page, referee, player, scripted_dice):
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    character_create(membership=membership, name="Aldo", sheet={"level": 2, "hp": 7})

    page = new_page()
    page.goto("/login/")
    every_control_by_tab(page)
    page.goto("/login/")  # the username field has the focus when the page opens
    # Chromium applies autofocus at its next rendering step, which on a loaded machine
    # can come after the load event that goto waits for: wait for it, then check the ring.
    expect(page.locator("#id_username")).to_be_focused()
    assert assert_visible_focus(page)["id"] == "id_username"
    page.keyboard.type("referee")
    tab_to(page, "^id_password$")
    page.keyboard.type("pw-referee")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="My campaigns")).to_be_visible()

    # My campaigns -> the dashboard
    every_control_by_tab(page)
    tab_to(page, "Harrow Keep")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Harrow Keep")).to_be_visible()
    every_control_by_tab(page)

    # the dashboard -> the sheet; open "Take damage" with Enter and damage Aldo.
    tab_to(page, "^Aldo$")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=re.compile("^Aldo"))).to_be_visible()
    every_control_by_tab(page)
    tab_to(page, "^Take damage")
    press(page, "Enter")
    expect(page.locator("#action-damage")).to_have_attribute("open", "")
    tab_to(page, "^a-damage-f-p-amount$")
    page.keyboard.type("10")
    scripted_dice([1, 20])  # overflow 3, the strength injury save fails: a choice
    page.keyboard.press("Enter")
    expect(page.locator("#choice")).to_be_visible()
    # the form that was in use is gone (actions wait for the choice): focus moved to the
    # result, which was said; the choice's options come next
    now = assert_visible_focus(page)
    assert "notice" in page.evaluate("() => document.activeElement.className"), now
    expect(page.locator("#announce")).to_contain_text("Takes 10 damage")
    every_control_by_tab(page)

    # answer the choice
    tab_to(page, "^Take a major wound")
    page.keyboard.press("Enter")
    expect(page.locator("#choice")).to_have_count(0)
    now = assert_visible_focus(page)
    assert "notice" in page.evaluate("() => document.activeElement.className"), now
    expect(page.locator("#announce")).to_contain_text("major wound")

    # back to the dashboard through the breadcrumb; advance the clock by an hour
    tab_to(page, "^Harrow Keep$", back=True)
    page.keyboard.press("Enter")
    expect(page.locator("#clock-display")).to_have_text("Day 1, 00:00")
    plus_hour = tab_to(page, r"^\+1 h$")
    page.keyboard.press("Enter")
    expect(page.locator("#clock-display")).to_have_text("Day 1, 01:00")
    # said to a screen reader: the new time ("In-game time: ..."), or, when the advance's
    # report has come in by then (a busy machine), the report's title with it
    expect(page.locator("#announce")).to_have_text(
        re.compile(r"^(In-game time: |What the clock did: Day 1, 00:00 to )Day 1, 01:00$")
    )
    # the button came back to life with the focus on it
    expect(page.get_by_role("button", name="+1 h")).to_be_enabled()
    now = assert_visible_focus(page)
    assert now["words"] == plus_hour["words"], now

    # undo the choice on the sheet (the confirmation is answered with its OK button)
    tab_to(page, "^Aldo$")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=re.compile("^Aldo"))).to_be_visible()
    tab_to(page, "^Undo this$")
    page.once("dialog", lambda dialog: dialog.accept())
    page.keyboard.press("Enter")
    expect(page.locator("#choice")).to_be_visible()  # undone: the choice is back
    expect(page.locator(".log-entry").first.locator(".log-what")).to_have_text("Undo")
    now = assert_visible_focus(page)
    assert "notice" in page.evaluate("() => document.activeElement.className"), now
    expect(page.locator("#announce")).to_have_text(page.locator(".notice").inner_text())


def test_a_swap_keeps_focus_on_the_field_in_use(new_page, referee, player):
    """A refused action comes back with its error; the field the person typed in keeps
    the focus, and a sheet refreshed by someone else's change keeps it too."""
    campaign = campaign_create(user=referee, name="Harrow Keep", ruleset="hit_dice")
    membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 2, "hp": 7})
    page = new_page()
    page.goto("/login/")
    # type only once the username field has the focus (autofocus lands after the load)
    expect(page.get_by_label("Username")).to_be_focused()
    page.keyboard.type("referee")
    page.keyboard.press("Tab")
    page.keyboard.type("pw-referee")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="My campaigns")).to_be_visible()
    page.goto(f"/characters/{aldo.pk}/")
    tab_to(page, "^Take damage")
    page.keyboard.press("Enter")
    tab_to(page, "^a-damage-f-p-amount$")
    page.keyboard.type("0")
    page.keyboard.press("Enter")
    expect(page.locator("#err-damage")).to_be_visible()
    now = assert_visible_focus(page)
    assert now["id"] in {"a-damage-f-p-amount"} or now["tag"] == "button", now

    # someone else's change swaps the sheet in; the focused field keeps the focus
    tab_to(page, "^a-damage-f-p-amount$")
    resolution_create_action(
        character_id=aldo.pk, actor=referee, by_referee=True, action="damage", params={"amount": 1}
    )
    expect(page.locator(".log-entry").first).to_contain_text("Takes 1 damage", timeout=5000)
    assert assert_visible_focus(page)["id"] == "a-damage-f-p-amount"
