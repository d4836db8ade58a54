"""Every page of the demo passes axe-core, in the light and the dark theme, at laptop and
phone width, as a visitor, as the referee and as a player; the states the sheets draw
meet WCAG AA contrast and are never told by colour alone.

The pages are found, not listed: every route of ``config/web_urls.py`` is tried with
every demo campaign, character and invite code (``seed_demo`` makes a campaign for every
registered ruleset; the screenshot parties add wounds, diseases, piles and a pending
choice), and each one that answers a whole page is audited. A new ruleset, a new page
or a new sheet picture is audited as soon as it exists.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver
from playwright.sync_api import Page, expect

from campaigns.models import Campaign, Invite
from characters.models import Character
from rules.engine.registry import ruleset_keys
from rules.log.models import Resolution
from rules.log.selectors import campaign_tables_view
from tests.browser import a11y
from tests.browser.conftest import DESKTOP, PHONE, log_in, settle

pytestmark = [pytest.mark.browser, pytest.mark.walk, pytest.mark.django_db(transaction=True)]

THEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")
WIDTHS = {"laptop": DESKTOP, "phone": PHONE}
PEOPLE = (None, "referee", "player1")  # a visitor, the referee, a player


def routes() -> Iterator[str]:
    """Every route of the pages (config/web_urls.py), as its path pattern."""
    import config.web_urls

    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern)

    yield from walk(config.web_urls.urlpatterns, "/")


def urls_for(route: str, values: dict[tuple[str, ...], list[tuple[str, ...]]]) -> list[str]:
    """The route filled with every known value of its parameters (none if they are unknown)."""
    names = tuple(re.findall(r"<(?:\w+:)?(\w+)>", route))
    if not names:
        return [route]
    urls = []
    for row in values.get(names, []):
        url = route
        for value in row:
            url = re.sub(r"<[^>]+>", value, url, count=1)
        urls.append(url)
    return urls


def whole_pages(client: Client) -> list[str]:
    """Every URL that answers this person with a whole page.

    A route with a ``key`` is tried with every ruleset key (the rules help pages) and,
    beside a campaign, with every table of that campaign (the tables pages).
    A route is tried with each known campaign, character (with its latest resolution) or
    invite code until one is not a 404 (another player's sheet); if that answer is a whole
    page (200, ``<html``), the route is walked with every value (the browser skips the
    404s), otherwise it is a fragment or a form's target and is left out."""
    latest = {r.character_id: r for r in Resolution.objects.order_by("version")}.values()
    values: dict[tuple[str, ...], list[tuple[str, ...]]] = {
        ("campaign_id",): [(str(pk),) for pk in Campaign.objects.values_list("pk", flat=True)],
        ("character_id",): [(str(pk),) for pk in Character.objects.values_list("pk", flat=True)],
        ("code",): [(code,) for code in Invite.objects.values_list("code", flat=True)[:1]],
        ("character_id", "resolution_id"): [(str(r.character_id), str(r.pk)) for r in latest],
        ("key",): [(key,) for key in ruleset_keys()],  # the rules help pages
        ("campaign_id", "key"): [
            (str(campaign.pk), str(table["key"]))
            for campaign in Campaign.objects.order_by("pk")
            for table in campaign_tables_view(campaign)
        ],
    }
    found = []
    for route in routes():
        urls = urls_for(route, values)
        for url in urls:
            response = client.get(url)
            if response.status_code == 404:
                continue
            if response.status_code == 200 and b"<html" in response.content[:400]:
                found.extend(urls)
            break
    return found


def check_everywhere(page: Page, label: str, failures: list[str]) -> None:
    """axe, drawn contrast and colour-only states, in each theme at each width.

    axe runs every rule in the light theme at both widths. In the dark theme the page is
    first compared with the light one: where every element sits and shows the same, only
    colours changed, so the rules that read colours are run again (the others would give
    the same answer); if anything moved or hid, every rule runs."""
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    settle(page)  # the opened forms' odds
    for width_name, viewport in WIDTHS.items():
        page.set_viewport_size(viewport)
        light_layout = ""
        for theme in THEMES:
            page.emulate_media(color_scheme=theme)
            where = f"{label} [{theme}, {width_name}]"
            only: tuple[str, ...] = ()
            if theme == "light":
                light_layout = a11y.layout(page)
            elif a11y.layout(page) == light_layout:
                only = a11y.COLOUR_RULES
            violations = a11y.audit(page, where, only=only)
            failures.extend(f"{where}: {v}" for v in a11y.failing(violations))
            drawn = a11y.drawn_states(page)
            failures.extend(f"{where}: {p}" for p in a11y.graphic_problems(drawn))
            failures.extend(f"{where}: {s}" for s in a11y.colour_only_states(page))


def test_the_vendored_axe_is_the_pinned_version():
    assert a11y.axe_banner_version() == a11y.AXE_VERSION


def test_contrast_ratio_matches_wcag_examples():
    black, white = (0.0, 0.0, 0.0), (255.0, 255.0, 255.0)
    assert a11y.contrast(black, white) == pytest.approx(21.0)
    assert a11y.contrast(white, white) == pytest.approx(1.0)
    # #767676 on white is the classic 4.54:1 grey
    assert a11y.contrast((118.0, 118.0, 118.0), white) == pytest.approx(4.54, abs=0.01)
    assert a11y.colours("rgba(0, 0, 0, 0.5) linear-gradient(rgb(1, 2, 3), rgb(4 5 6))") == [
        (0.0, 0.0, 0.0, 0.5),
        (1.0, 2.0, 3.0, 1.0),
        (4.0, 5.0, 6.0, 1.0),
    ]
    assert a11y.over((0.0, 0.0, 0.0, 0.5), white) == (127.5, 127.5, 127.5)


# Each person's walk in parts (every n-th page), so the suite's workers take them side by
# side (issue 33): the referee sees the most pages.
WALKS = [
    (person, part, parts)
    for person, parts in zip(PEOPLE, (1, 3, 2), strict=True)
    for part in range(parts)
]


@pytest.mark.parametrize(
    ("person", "part", "parts"),
    WALKS,
    ids=[f"{person or 'visitor'}-{part + 1}-of-{parts}" for person, part, parts in WALKS],
)
def test_every_page_passes_axe_in_both_themes_at_both_widths(new_page, demo, person, part, parts):
    """One part of one person's walk (a visitor's, the referee's, a player's); the first
    part also audits the pages that are no route (the 404, forms showing their errors)."""
    client = Client()
    if person is not None:
        client.force_login(demo[person])
    urls = whole_pages(client)
    # the walk finds the demo: a dashboard of every ruleset for both people, and every
    # sheet for the referee
    if person is not None:
        for ruleset in ruleset_keys():
            campaign = Campaign.objects.get(ruleset=ruleset)
            assert f"/campaigns/{campaign.pk}/" in urls, (person, ruleset)
            if person == "referee":
                for character in campaign.characters.all():
                    assert f"/characters/{character.pk}/" in urls, (ruleset, character)
    failures: list[str] = []
    audited = 0
    page = new_page(DESKTOP)
    if person is not None:
        log_in(page, person)
    for url in urls[part::parts]:
        response = page.goto(url)
        assert response is not None, url
        if response.status == 404:
            continue  # another player's character
        assert response.status == 200, url
        settle(page)
        check_everywhere(page, f"{person or 'visitor'} {url}", failures)
        audited += 1
    if part > 0:
        assert audited >= len(ruleset_keys()), audited
        assert not failures, f"{len(failures)} accessibility failures:\n" + "\n".join(failures)
        return
    # the "Nothing here" page, and forms showing their errors
    page.goto("/no-such-page/")
    expect(page.get_by_role("heading", name="Nothing here")).to_be_visible()
    check_everywhere(page, f"{person or 'visitor'} 404", failures)
    audited += 1
    if person == "referee":
        page.goto("/campaigns/new/")
        page.get_by_role("button", name="Create campaign").click()
        expect(page.locator(".form-error").first).to_be_visible()
        check_everywhere(page, "referee new campaign with errors", failures)
        audited += 1
    if person is None:
        page.goto("/login/")
        page.get_by_label("Username").fill("referee")
        page.get_by_label("Password").fill("not the password")
        page.get_by_role("button", name="Log in").click()
        expect(page.locator(".form-error, .errorlist").first).to_be_visible()
        check_everywhere(page, "visitor log in with errors", failures)
        audited += 1
    # a signed-in person's walk audits at least a dashboard and a page more per ruleset
    assert audited >= (2 * len(ruleset_keys()) // parts if person is not None else 2), audited
    assert not failures, f"{len(failures)} accessibility failures:\n" + "\n".join(failures)


def paper(page: Page) -> float:
    """The luminance of the page's background."""
    css = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    r, g, b, _ = a11y.colours(css)[0]
    return a11y.luminance((r, g, b))


def test_the_theme_follows_the_system_and_the_menu_pins_it(new_page, referee):
    page = new_page()
    page.emulate_media(color_scheme="dark")
    log_in(page, "referee")
    assert paper(page) < 0.05  # dark, as the system says
    page.emulate_media(color_scheme="light")
    assert paper(page) > 0.8

    # the menu pins a theme in this browser, whatever the system says, across pages
    menu = page.get_by_label("Theme")
    expect(menu).to_have_value("")
    menu.select_option(label="Dark")
    assert paper(page) < 0.05
    page.goto("/campaigns/new/")
    expect(page.get_by_label("Theme")).to_have_value("dark")
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    assert paper(page) < 0.05
    page.get_by_label("Theme").select_option(label="As the system")
    assert paper(page) > 0.8
    page.reload()
    assert page.evaluate("() => document.documentElement.dataset.theme") is None
    assert page.evaluate("() => localStorage.getItem('sawbones-theme')") is None
