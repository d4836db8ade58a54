"""No 5xx from the rules on pages (issue 24): every form a page drew, sent once the
campaign is archived, or once the character is dead, answers with a page that says
why, never a 500. The forms are read off the pages while the campaign is in play (a
tab left open), then sent as they are, each with its first choices."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from django.utils import timezone

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.engine.registry import ruleset_keys
from rules.play.services import character_create

pytestmark = pytest.mark.django_db


class _Forms(HTMLParser):
    """Every POST form of a page: its action and the fields it would send."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, list[str]]]] = []
        self._form: dict[str, list[str]] | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "").lower() == "post":
            self._form = {}
            self.forms.append((a.get("action", "") or a.get("hx-post", ""), self._form))
        elif self._form is None or "name" not in a:
            return
        elif tag == "input":
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            if kind in ("submit", "button"):
                return
            value = a.get("value", "")
            if not value and kind != "hidden":  # what a person would type
                value = "1" if kind == "number" else "Vel"
            self._form.setdefault(a["name"], []).append(value)
        elif tag == "textarea":
            self._form.setdefault(a["name"], []).append("x")
        elif tag == "select":
            self._select = a["name"]
        elif tag == "button" and a.get("type", "submit") == "submit" and a.get("value"):
            self._form.setdefault(a["name"], []).append(a["value"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)


class _FormsWithOptions(_Forms):
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "option" and self._select and self._form is not None:
            value = dict(attrs).get("value") or ""
            if value and self._select not in self._form:
                self._form[self._select] = [value]
            return
        super().handle_starttag(tag, attrs)


def forms_of(client: Any, path: str) -> list[tuple[str, dict[str, list[str]]]]:
    response = client.get(path)
    assert response.status_code == 200, path
    parser = _FormsWithOptions()
    parser.feed(response.content.decode())
    return [(action or path, fields) for action, fields in parser.forms if "logout" not in action]


def send_all(client: Any, forms: list[tuple[str, dict[str, list[str]]]]) -> list[str]:
    failures = []
    client.raise_request_exception = False  # every 5xx counted, not the first raised
    for action, fields in forms:
        for htmx in ({}, {"HTTP_HX_REQUEST": "true"}):
            response = client.post(action, fields, **htmx)
            if response.status_code >= 500:
                failures.append(f"{action} {sorted(fields)} {'htmx' if htmx else ''}: 5xx")
    return failures


@pytest.mark.parametrize("ruleset", ruleset_keys())
def test_every_form_of_an_archived_campaign_answers_without_a_5xx(
    make_campaign, referee, player, web, ruleset
):
    campaign = make_campaign(ruleset)
    sheet = {"warband": "Crows"} if ruleset == "warband" else {}
    character = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player), name="Vel", sheet=sheet
    )
    client = web(referee)
    pages = [
        f"/campaigns/{campaign.pk}/",
        f"/characters/{character.pk}/",
        f"/characters/{character.pk}/edit/",
        f"/campaigns/{campaign.pk}/party/",
        f"/campaigns/{campaign.pk}/settings/",
        f"/campaigns/{campaign.pk}/tables/",
    ]
    if ruleset == "warband":
        client.post(f"/campaigns/{campaign.pk}/battle/", {"warbands": ["Crows"]})
        pages.append(f"/campaigns/{campaign.pk}/battle/")
    forms = [form for page in pages for form in forms_of(client, page)]
    assert len(forms) > 10
    Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    assert send_all(client, forms) == []


@pytest.mark.parametrize(
    ("ruleset", "sheet", "kill"),
    [
        ("hit_dice", {"level": 2, "hit_dice": 2, "hp": 10}, {"state": "dead"}),
        ("old_school", {}, {"state": "dead"}),
        ("condition_monitor", {}, {"state": "dead"}),
    ],
)
def test_every_form_of_a_dead_characters_sheet_answers_without_a_5xx(
    make_campaign, referee, player, web, ruleset, sheet, kill
):
    campaign = make_campaign(ruleset)
    character = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player), name="Vel", sheet=sheet
    )
    client = web(referee)
    forms = forms_of(client, f"/characters/{character.pk}/") + forms_of(
        client, f"/characters/{character.pk}/edit/"
    )
    Character.objects.filter(pk=character.pk).update(sheet={**character.sheet, **kill})
    forms = [form for form in forms if "/delete" not in form[0]]
    assert send_all(client, forms) == []
