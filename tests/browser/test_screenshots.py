"""Screenshots of the dashboard and each ruleset's sheet, for docs/screenshots/ (README).

A party per ruleset is built with seeded dice, so the pictures come out the same on
every run; each page is shot at laptop and phone width, and the test checks that the
page does not scroll sideways at phone width.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from playwright.sync_api import Page

from campaigns.models import Campaign, Membership, Role
from campaigns.services import campaign_create
from characters.models import Character
from rules.clock.services import clock_advance_run, clock_advance_start
from rules.engine.dice import SystemGenerator
from rules.log import context as rules_dice
from rules.play.services import character_create, resolution_create_action
from tests.browser.conftest import DESKTOP, PHONE, log_in, settle
from web.rulesets import condition_monitor

# Pictures of pages, not of the database: taken once, in the default configuration (walk).
pytestmark = [pytest.mark.browser, pytest.mark.walk, pytest.mark.django_db(transaction=True)]

SHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"

# ruleset -> [(owner, name, first fields, [(action, params), ...])]; owner 0 is the referee.
PARTIES: dict[str, list[tuple[int, str, dict[str, Any], list[tuple[str, dict[str, Any]]]]]] = {
    "hit_dice": [
        (
            1,
            "Aldo the Bold",
            {"level": 3, "hp": 11},
            [("short_rest", {"reroll": True}), ("damage", {"amount": 16})],
        ),
        (
            2,
            "Brisk Mara",
            {"level": 2, "hp": 7},
            [
                ("short_rest", {"reroll": True}),
                ("short_rest", {"reroll": True}),
                ("damage", {"amount": 3}),
            ],
        ),
        (
            0,
            "Gate Sergeant",
            {"level": 1, "hit_dice": 4, "hp": 14},
            [
                ("damage", {"amount": 16}),
                (
                    "describe_wound",
                    {"wound": 1, "description": "Gashed forearm", "worsens_every": 240},
                ),
            ],
        ),
    ],
    "deckahedron": [
        (
            1,
            "Cael",
            {"strength": 3, "dexterity": 2, "intelligence": 1},
            [
                ("flip", {"attribute": "strength", "count": 3}),
                ("take_harm", {"description": "twisted ankle"}),
            ],
        ),
        (
            2,
            "Ysolde",
            {"strength": 1, "dexterity": 3, "intelligence": 4},
            [("take_wound", {"description": "arrow in the shoulder"})],
        ),
    ],
    "old_school": [
        (
            1,
            "Dorn Ironhand",
            {"race": "dwarf", "age": 60, "level": 2, "strength": 14},
            [
                ("damage", {"amount": 4}),
                ("ability_loss", {"ability": "strength", "amount": 3}),
                ("contract_disease", {"disease": "Green River Fever", "hidden": False}),
            ],
        ),
        (
            2,
            "Pell of the Reeds",
            {"race": "halfling", "age": 34},
            [("drink", {}), ("set_supplies", {"food": False})],
        ),
    ],
}


# The condition monitor party is the demo's: one character in each state (CM-4, CM-5).
PARTIES["condition_monitor"] = [
    (demo.owner, demo.name, dict(demo.sheet), [(a, dict(p)) for a, p in demo.opening])
    for demo in condition_monitor.PRESENTATION.party
]


def build(ruleset: str, users: list[Any]) -> tuple[Campaign, Character]:
    """The ruleset's party with seeded dice; the player's first character for its sheet."""
    campaign = campaign_create(
        user=users[0], name=f"The {ruleset.replace('_', ' ')} party", ruleset=ruleset
    )
    for user in users[1:]:
        Membership.objects.create(campaign=campaign, user=user, role=Role.PLAYER)
    referee = Membership.objects.get(campaign=campaign, user=users[0])
    rules_dice._generator_override.append(SystemGenerator(6))
    try:
        first = None
        for owner, name, fields, actions in PARTIES[ruleset]:
            character = character_create(
                membership=referee, name=name, sheet=fields, owner_id=users[owner].pk
            )
            first = first or character
            take(users[0], character, actions)
    finally:
        rules_dice._generator_override.clear()
    assert first is not None
    return campaign, first


def take(referee: Any, character: Character, actions: list[tuple[str, dict[str, Any]]]) -> None:
    """The referee takes the actions on the character, one resolution each."""
    for action, params in actions:
        resolution_create_action(
            character_id=character.pk,
            actor=referee,
            by_referee=True,
            action=action,
            params=params,
        )


def shoot(page: Page, path: str, name: str) -> None:
    response = page.goto(path)
    assert response is not None and response.status == 200, path
    settle(page)
    width = page.viewport_size["width"] if page.viewport_size else 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width, name
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_screenshots_of_dashboards_and_sheets(new_page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    user_model = get_user_model()
    users = [
        user_model.objects.create_user(username=name, password=f"pw-{name}")
        for name in ("referee", "mira", "tobin")
    ]
    built = {ruleset: build(ruleset, users) for ruleset in PARTIES}
    for viewport, suffix in ((DESKTOP, "desktop"), (PHONE, "phone")):
        referee = new_page(viewport)
        log_in(referee, "referee")
        shoot(referee, "/", f"home-{suffix}")
        for ruleset, (campaign, character) in built.items():
            shoot(referee, f"/campaigns/{campaign.pk}/", f"{ruleset}-dashboard-{suffix}")
            shoot(referee, f"/characters/{character.pk}/", f"{ruleset}-sheet-{suffix}")
        player = new_page(viewport)
        log_in(player, "mira")
        campaign, aldo = built["hit_dice"]
        shoot(player, f"/characters/{aldo.pk}/", f"hit_dice-sheet-player-{suffix}")
        shoot(player, f"/campaigns/{campaign.pk}/", f"hit_dice-party-player-{suffix}")
    names = {
        f"{page}-{suffix}"
        for suffix in ("desktop", "phone")
        for page in (
            "home",
            *(f"{ruleset}-{what}" for ruleset in PARTIES for what in ("dashboard", "sheet")),
            "hit_dice-sheet-player",
            "hit_dice-party-player",
        )
    }
    assert {path.stem for path in SHOTS.glob("*.png")} >= names


def test_screenshots_in_german_and_spanish(new_page):
    """A sheet, an advance report and the recap in each translated language (issue 37),
    for docs/translating.md: the game's words said in the reader's language, the names
    people typed as typed."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    user_model = get_user_model()
    users = [
        user_model.objects.create_user(username=name, password=f"pw-{name}")
        for name in ("referee", "mira", "tobin")
    ]
    campaign, aldo = build("hit_dice", users)
    rules_dice._generator_override.append(SystemGenerator(11))
    try:
        # a day passes: the gate sergeant's wound worsens on the clock, into the report
        job = clock_advance_start(campaign_id=campaign.pk, minutes=24 * 60, requested_by=users[0])
        clock_advance_run(job_id=job.pk)
    finally:
        rules_dice._generator_override.clear()
    pages = {
        "sheet": f"/characters/{aldo.pk}/",
        "report": f"/campaigns/{campaign.pk}/clock/jobs/{job.pk}/",
        "recap": f"/campaigns/{campaign.pk}/recap/",
    }
    for language in ("de", "es"):
        page = new_page(DESKTOP)
        log_in(page, "referee")
        page.context.add_cookies(
            [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": page.url}]
        )
        for what, path in pages.items():
            shoot(page, path, f"hit_dice-{what}-{language}")
            assert page.get_attribute("html", "lang") == language
    names = {f"hit_dice-{what}-{language}" for what in pages for language in ("de", "es")}
    assert {path.stem for path in SHOTS.glob("*.png")} >= names
