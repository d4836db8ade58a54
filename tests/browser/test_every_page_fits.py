"""Every page of the demo at 320 px, as its referee and as a player (issue 29), in German
and in Spanish (issue 37: German is long): none scrolls sideways (WCAG 2.2 reflow: long
words wrap, tables scroll inside their own region), none logs an error in the browser's
console (a script the Content-Security-Policy blocks, a failed request, an uncaught
exception), each says its language on ``<html lang>`` and shows no English sentence the
catalogue says otherwise (the pages' words and the engine's, the log's summaries too).

The pages are found as the accessibility walk finds them (every route of
``config/web_urls.py`` with every demo campaign, character and invite), with the worst
text people type present: a character's name as long as the record holds, unbroken, and
a 5,000-character description in the log and on a sheet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polib
import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import ConsoleMessage, Error, Page, ViewportSize

from campaigns.models import Campaign
from characters.models import Character
from rules.log.models import Resolution
from tests.browser.conftest import log_in, settle
from tests.browser.test_accessibility import whole_pages

pytestmark = [pytest.mark.browser, pytest.mark.walk, pytest.mark.django_db(transaction=True)]

NARROW: ViewportSize = {"width": 320, "height": 640}
NAME_LENGTH = min(300, Character._meta.get_field("name").max_length or 300)
LONG_NAME = "Wolfeschlegelsteinhausenbergerdorff" * (NAME_LENGTH // 35 + 1)
LONG_DESCRIPTION = (
    "A wound described at great length, "
    + "unbroken" * 300
    + " "
    + "and then in many ordinary words that wrap as they should. " * 80
)[:5000]

# What overflows, for the failure message: the widest elements poking out on the right.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    const parent = el.parentElement ? el.parentElement.getBoundingClientRect() : null;
    if (box.right > width + 1 && box.width > 0 && parent && parent.right <= width + 1) {
      const classes = typeof el.className === "string" ? el.className.split(" ") : [];
      const name = [el.tagName.toLowerCase() + (el.id ? "#" + el.id : ""), ...classes]
        .filter(Boolean).join(".");
      out.push(name + " right=" + Math.round(box.right));
    }
  }
  return out.slice(0, 6);
}"""


@pytest.fixture
def worst_text(demo: dict[str, Any]) -> dict[str, Any]:
    """The demo with the longest name the record holds on a character each player plays
    in every campaign, and a 5,000-character description in its log and on its sheet."""
    for campaign in Campaign.objects.order_by("pk"):
        character = (
            campaign.characters.filter(owner__username="player1").order_by("pk").first()
            or campaign.characters.order_by("pk").first()
        )
        assert character is not None, campaign
        character.name = LONG_NAME[:NAME_LENGTH]
        sheet = dict(character.sheet)
        if isinstance(sheet.get("wounds"), list) and sheet["wounds"]:
            first = {**sheet["wounds"][0], "description": LONG_DESCRIPTION}
            sheet["wounds"] = [first, *sheet["wounds"][1:]]
        character.sheet = sheet
        character.save(update_fields=["name", "sheet"])
        latest = Resolution.objects.filter(character=character).order_by("-version").first()
        assert latest is not None, character
        # a typed text as long as it gets, with no message beside it to say it otherwise
        Resolution.objects.filter(pk=latest.pk).update(summary=LONG_DESCRIPTION, said=None)
    return demo


def _watch(page: Page, errors: list[str]) -> None:
    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"console: {message.text} ({message.location.get('url', '')})")

    def uncaught(error: Error) -> None:
        errors.append(f"uncaught: {error.name}: {error.message}")

    page.on("console", console)
    page.on("pageerror", uncaught)


def english_sentences(code: str) -> list[str]:
    """The English sentences of the catalogue (four words or more, no placeholder) that
    the language ``code`` says otherwise: none may be left on its pages."""
    po = polib.pofile(str(Path(settings.BASE_DIR) / "locale" / code / "LC_MESSAGES" / "django.po"))
    return [
        entry.msgid
        for entry in po.translated_entries()
        if not entry.msgid_plural
        and entry.msgstr != entry.msgid
        and len(entry.msgid.split()) >= 4
        and "%" not in entry.msgid
        and "{" not in entry.msgid
    ]


# Each person's walk in each language, the referee's in two parts (every other page), so
# the suite's workers take them side by side (issue 33).
WALKS = [
    (person, language, part, parts)
    for language in ("de", "es")
    for person, parts in (("referee", 2), ("player1", 1))
    for part in range(parts)
]


@pytest.mark.parametrize(
    ("person", "language", "part", "parts"),
    WALKS,
    ids=[f"{p.rstrip('1')}-{lang}-{part + 1}-of-{parts}" for p, lang, part, parts in WALKS],
)
def test_every_page_fits_320px_in_its_language_and_logs_no_console_error(
    new_page, worst_text, person, language, part, parts
):
    """One part of one person's walk in one language."""
    failures: list[str] = []
    english = english_sentences(language)
    walked = 0
    client = Client()
    client.force_login(worst_text[person])
    urls = whole_pages(client)
    page = new_page(NARROW)
    errors: list[str] = []
    _watch(page, errors)
    log_in(page, person)
    page.context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": page.url}]
    )
    for url in urls[part::parts]:
        response = page.goto(url)
        assert response is not None, url
        if response.status == 404:
            errors.clear()  # the browser says so on the console
            continue  # another player's character
        assert response.status == 200, url
        settle(page)
        # the action forms open, as a person opens them (their odds load on opening)
        page.evaluate(
            "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"
        )
        settle(page)
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        if widths[0] > widths[1]:
            failures.append(f"{person} {url}: {widths[0]} px wide: {page.evaluate(OVERFLOW)}")
        if page.get_attribute("html", "lang") != language:
            failures.append(f"{person} {url}: lang is {page.get_attribute('html', 'lang')}")
        text = " ".join(page.inner_text("body").split())
        left = [sentence for sentence in english if sentence in text]
        if left:
            failures.append(f"{person} {url}: English left: {left[:3]}")
        failures.extend(f"{person} {url}: {error}" for error in errors)
        errors.clear()
        walked += 1
    # a long name is on the pages walked: the sheet and the dashboard show it
    assert any(f"/characters/{c.pk}/" in urls for c in Character.objects.all())
    assert walked >= 5 * 3 // parts, walked
    assert not failures, f"{len(failures)} pages do not fit or log errors:\n" + "\n".join(failures)
