"""The plain-words walk in a real browser (issue 34): what a person reads on the rules
help pages, the correction menus, every form's errors (each submitted with bad input)
and the dice pages, walked through the demo of every ruleset as a referee and as a
player. It fails on a code's word: snake_case, True/False/None, a ruling id, "JSON",
"Schema", "ISO", and Django's (or DRF's) validator sentences.

The pages' own words are read as the browser shows them (``inner_text``: what is
visible), so a word in a hidden template, an attribute or a script is not counted; a
select's options are read one by one (the correction menu).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules.engine.registry import get_ruleset, ruleset_keys
from tests.browser.conftest import log_in
from web.plain import RULING_ID

pytestmark = [pytest.mark.browser, pytest.mark.walk, pytest.mark.django_db(transaction=True)]

CODE_WORDS = {
    "snake_case": re.compile(r"\b[a-z]+_[a-z0-9_]+\b"),
    "True/False/None": re.compile(r"\b(?:True|False|None)\b"),
    "a ruling id": RULING_ID,
    "JSON, Schema or ISO": re.compile(r"\bJSON\b|\bSchemas?\b|\bISO\b"),
    "a validator's sentence": re.compile(
        r"Ensure this (?:value|field)|Ensure that there are no more|Enter a whole number|"
        r"Enter a valid|A valid (?:integer|number) is required|This field is required|"
        r"Select a valid choice|is not a valid (?:choice|integer)"
    ),
}
ERRORS = "[role=alert]:visible, .form-error:visible, .flash-error:visible"
HUGE = "1000000000"


class Walk:
    """What the walk read, and where it read a code's word."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self.read = 0

    def check(self, text: str, where: str) -> None:
        self.read += 1
        for name, shape in CODE_WORDS.items():
            for match in shape.finditer(text):
                around = text[max(0, match.start() - 60) : match.end() + 40].replace("\n", " ")
                self.found.append(f"{where}: {name} {match.group(0)!r} in …{around}…")

    def page(self, page: Page, where: str) -> None:
        self.check(page.locator("main").inner_text(), where)

    def errors(self, page: Page, where: str, *, expected: bool = True) -> None:
        said = page.locator(ERRORS).all_inner_texts()
        assert said or not expected, f"{where}: no error was said"
        self.check(" ".join(said), where)


def without_browser_checks(form: Locator) -> None:
    """The server's own refusal, not the browser's tooltip: as a person whose browser
    let the bad value through would see it."""
    form.evaluate("form => { form.noValidate = true; }")


def fill_bad(form: Locator, number: str) -> int:
    """Every number of the form ``number``, every text emptied; how many were filled."""
    filled = 0
    for field in form.locator("input[type=number]:visible").all():
        field.fill(number)
        filled += 1
    for field in form.locator("input[type=text]:visible, textarea:visible").all():
        field.fill("")
        filled += 1
    return filled


def submit(page: Page, form: Locator) -> None:
    """Send the form (its POST answered, whole page or fragment) with the browser's own
    checks off."""
    without_browser_checks(form)
    with page.expect_response(
        lambda answer: answer.request.method == "POST" or answer.request.resource_type == "document"
    ):
        form.locator("button[type=submit]").last.click()
    page.wait_for_load_state("domcontentloaded")


@pytest.mark.parametrize("ruleset", ruleset_keys())
def test_what_people_read_is_said_in_plain_words(new_page, demo, ruleset):
    """One ruleset's demo campaign a test, so the suite's workers take them side by side;
    the first also walks the rules help index and the forms outside a campaign."""
    walk = Walk()
    first = ruleset == ruleset_keys()[0]
    # -- the rules help pages, as a player ------------------------------------------------
    player = new_page()
    log_in(player, "player1")
    if first:
        player.goto("/rules/")
        walk.page(player, "rules help")
    player.goto(f"/rules/{ruleset}/")
    expect(player.locator("h1")).to_have_text(get_ruleset(ruleset).name)
    walk.page(player, f"rules help {ruleset}")

    # -- the ruleset's campaign of the demo, as its referee -------------------------------
    page = new_page()
    log_in(page, "referee")
    campaigns = list(Campaign.objects.filter(ruleset=ruleset).order_by("pk"))
    assert campaigns, ruleset  # seed_demo makes one for every ruleset
    for campaign in campaigns:
        name = campaign.ruleset
        dashboard = f"/campaigns/{campaign.pk}/"
        # the clock form: too far ahead, and a date no calendar reaches
        page.goto(dashboard)
        clock = page.locator("form[data-clock]")
        page.get_by_label("Custom").fill("100000")
        page.get_by_label("Unit").select_option(label="weeks")
        page.get_by_role("button", name="Advance", exact=True).click()
        expect(clock.locator("[data-clock-error]")).to_be_visible()
        walk.errors(page, f"{name} clock, 100000 weeks")
        year = page.locator("#clock-until-year")
        if year.count():
            year.fill("2000000")
        else:
            page.locator("#clock-until-day").fill(HUGE)
        page.get_by_role("button", name="Run until then").click()
        expect(clock.locator("[data-clock-error]")).not_to_have_text("")
        walk.errors(page, f"{name} clock, until a date out of reach")
        # a new character with impossible scores and no name
        form = page.locator("#new-character form")
        if form.count():
            fill_bad(form, HUGE)
            submit(page, form)
            walk.errors(page, f"{name} new character")
        # the dice page
        page.goto(f"{dashboard}dice/")
        walk.page(page, f"{name} dice")

        character = Character.objects.filter(campaign=campaign).order_by("pk").first()
        assert character is not None
        sheet = f"/characters/{character.pk}/"
        # every action form with bad input: numbers far too big, texts left empty
        ruleset = get_ruleset(campaign.ruleset)
        page.goto(sheet)
        for spec in ruleset.actions:
            details = page.locator(f"#action-{spec.key}")
            if not details.count():
                continue  # not open to this character now (said on the sheet)
            if details.get_attribute("open") is None:
                details.locator("summary").click()
            form = details.locator("form")
            if not fill_bad(form, HUGE):
                continue  # nothing to get wrong
            submit(page, form)
            # an emptied text may be optional: then the action is taken, and said
            walk.errors(page, f"{name} {spec.key}", expected=False)
            walk.check(page.locator("#live").inner_text(), f"{name} sheet after {spec.key}")
        # a resolution's dice
        page.goto(sheet)
        check = page.get_by_role("link", name=re.compile("^Check these dice")).first
        if check.count():
            check.click()
            walk.page(page, f"{name} the dice of an entry")
        # the correction menu, and the correction form's errors
        edit = f"/characters/{character.pk}/edit/"
        page.goto(edit)
        menu = page.locator("#correct-field option")
        walk.check(" | ".join(menu.all_inner_texts()), f"{name} correction menu")
        correct = page.locator("form", has=page.locator("#correct-field"))
        numeric = [
            option.get_attribute("value") or ""
            for option in menu.all()
            if re.search(r"\(now -?\d+\)$", option.inner_text())
        ]
        for value, reason in (("lots", "a typo"), (HUGE, "a typo"), ("3", "")):
            page.goto(edit)
            if numeric:
                page.locator("#correct-field").select_option(numeric[0])
            page.locator("#correct-value").fill(value)
            page.locator("#correct-reason").fill(reason)
            submit(page, correct)
            walk.errors(page, f"{name} correction {value!r} {reason!r}")
        # rename to nothing, delete with the wrong name
        for section, field, text in (
            ("rename", "#edit-name", ""),
            ("delete", "#delete-confirm", "x"),
        ):
            page.goto(edit)
            form = page.locator("form", has=page.locator(field))
            page.locator(field).fill(text)
            if section == "delete":
                page.once("dialog", lambda dialog: dialog.accept())
            submit(page, form)
            walk.errors(page, f"{name} {section}")
        # the settings: options, calendar, invite expiry
        settings = f"{dashboard}settings/"
        page.goto(settings)
        options = page.locator("form", has=page.locator("input[name=form][value=settings]"))
        if fill_bad(options, HUGE) > 1:
            submit(page, options)
            walk.errors(page, f"{name} settings")
        for months, weekdays in (
            ("Frost", ""),
            ("Frost, 10\nFrost, 10", ""),
            ("Frost, 10", "A, ,B"),
        ):
            page.goto(settings)
            calendar = page.locator("form.calendar-form")
            calendar.locator("textarea[name=months]").fill(months)
            calendar.locator("input[name=weekdays]").fill(weekdays)
            submit(page, calendar)
            walk.errors(page, f"{name} calendar {months!r} {weekdays!r}")
        for hours in ("-1", "99999999999"):
            page.goto(settings)
            invite = page.locator("form", has=page.locator("#invite-hours"))
            page.locator("#invite-hours").fill(hours)
            submit(page, invite)
            walk.errors(page, f"{name} invite expiry {hours}")
        # the tables: text that is no table
        page.goto(dashboard)
        if page.get_by_role("link", name="Tables", exact=True).count():
            page.get_by_role("link", name="Tables", exact=True).click()
            table = page.locator(".table-list a, a[href*='/tables/']").first
            if table.count() and "/tables/" in (table.get_attribute("href") or ""):
                table.click()
                page.locator("details", has=page.locator("#table-data")).locator("summary").click()
                page.locator("#table-data").fill("{")
                submit(page, page.locator("form", has=page.locator("#table-data")))
                walk.errors(page, f"{name} table")
        # the recap's date box
        page.goto(f"{dashboard}recap/")
        page.locator("#r-from-date").fill("soon")
        submit(page, page.locator("form.recap-span"))
        walk.errors(page, f"{name} recap date")

    # -- forms outside a campaign ---------------------------------------------------------
    if first:
        page.goto("/campaigns/new/")
        submit(page, page.locator("main form").last)
        walk.errors(page, "new campaign without a name")
        page.goto("/campaigns/import/")
        page.locator("#import-players").fill("= someone")
        submit(page, page.locator("main form").last)
        walk.errors(page, "import")
    print(ruleset, walk.read)
    assert walk.read > 20
    assert not walk.found, "\n".join(walk.found)
