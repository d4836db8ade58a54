"""No page says a ruling id or JSON Schema's wording (issue 12): the whole demo of
every ruleset, walked as its referee and as a player, with the error paths.

Ruling ids (G-3, HD-P7, OS-4...) stay in code, tests and docs; JSON Schema's messages
stay in the API. The rules help pages (/rules/<key>/, docs/rulesets/*.md rendered) are
read by players too: since issue 34 they leave the sections for API clients out and say
no ruling id, snake_case key or JSON Schema either (the last test below; the browser walks
them with the other pages in tests/browser/test_plain_words_walk.py).

Every action of every ruleset is tried on every character the viewer may act on: with
nothing filled in, with numbers far too big and far too small, with words where numbers
go, then with plausible values so the roll log fills up; and a new character with
impossible scores.
"""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Invite
from characters.models import Character
from rules.engine.registry import get_ruleset, ruleset_keys
from rules.log.selectors import campaign_tables_view
from web.forms import PREFIX, FormField, schema_fields
from web.plain import RAW_SCHEMA_WORDS, RULING_ID, plain_message, strip_rulings

pytestmark = pytest.mark.django_db

SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")
# What a program says, never a page (issue 29): Python's errors, JSON Schema's wording
# beyond web.plain.RAW_SCHEMA_WORDS, versions of a record, the code's files.
DEVELOPER_WORDS = re.compile(
    r"invalid literal|Expecting value|\b[A-Z][A-Za-z]*Error\b|version \d+, not \d+|"
    r"is not valid under|does not match|was unexpected|required property|"
    r"\bunknown ruleset\b|\bCode: |\b(?:rules|scripts|tests|web)/[\w/]*\.py\b|"
    r"\w+\.py\b|: (?:True|False|None)\b|s's\b|\.: |\(\S+ -> \S+\)|is not allowed here|"
    r"at least one of [a-z]|'s id\b|\bUnticked\b"
)
SHOWN_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt", "hx-confirm", "data-confirm"}


class _Words(HTMLParser):
    """What a person reads: text outside script and style, and the attributes shown.
    Text in <code> (a file to run, a seed) is quoted on purpose and left out, unless
    ``code``; a <textarea> holds what the person writes (a table as JSON), not words
    said to them."""

    def __init__(self, code: bool = False) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0
        self._hidden = {"script", "style", "textarea"} | (set() if code else {"code"})

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._hidden:
            self._skip += 1
        self.parts.extend(value for name, value in attrs if name in SHOWN_ATTRIBUTES and value)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._hidden:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def words(html: str, code: bool = False) -> str:
    """The page's words; with ``code``, the quoted code too (files named to run)."""
    parser = _Words(code)
    parser.feed(html)
    return re.sub(r"\s+", " ", " ".join(parser.parts))


def assert_plain(response: Any, where: str) -> None:
    assert response.status_code < 500, where
    shown = words(response.content.decode())
    found = RULING_ID.findall(shown)
    assert not found, f"{where}: ruling ids {found} in {shown[:3000]}"
    for raw in RAW_SCHEMA_WORDS:
        assert raw not in shown, f"{where}: {raw!r} in {shown[:3000]}"
    snake = SNAKE.findall(shown)
    assert not snake, f"{where}: internal names {snake}"
    assert_no_developer_words(response, where)


# The rules help pages are documentation (rulings by their ids, changes drawn "3 -> 0"),
# but not for developers: no code files, no tests to run.
DEVELOPER_NOTES = re.compile(r"\bCode: |\bTests: |\w+\.py\b|\w+\.csv\b")


def assert_no_developer_words(
    response: Any, where: str, shapes: re.Pattern[str] = DEVELOPER_WORDS
) -> None:
    """No Python error, schema wording, record version or code file, quoted or not."""
    shown = words(response.content.decode(), code=True)
    found = [m.group(0) for m in shapes.finditer(shown)]
    assert not found, f"{where}: {found} in {shown[:3000]}"


@pytest.fixture
def demo(settings) -> dict[str, Client]:
    settings.SAWBONES_EMBEDDED = True
    call_command("seed_demo", stdout=io.StringIO())
    clients = {}
    for username in ("referee", "player1"):
        client = Client()
        client.force_login(get_user_model().objects.get(username=username))
        clients[username] = client
    return clients


def _number_fields(fields: list[FormField]) -> list[FormField]:
    found = []
    for field in fields:
        if field.kind == "number":
            found.append(field)
        found.extend(_number_fields(field.children))
    return found


def _plausible(fields: list[FormField]) -> dict[str, str]:
    """A value for every control a person would fill in, within its bounds."""
    data: dict[str, str] = {}
    for field in fields:
        if field.kind == "group":
            data.update(_plausible(field.children))
        elif field.kind == "number":
            low = field.minimum if field.minimum is not None else 1
            data[field.name] = str(max(int(low), min(3, int(field.maximum or 3))))
        elif field.kind == "select" and field.choices:
            data[field.name] = field.choices[0][0]
        elif field.kind in {"text", "textarea"}:
            data[field.name] = "A deep cut"
        elif field.kind == "checkbox":
            data[field.name] = "on"
    return data


def _bad_posts(fields: list[FormField]) -> list[dict[str, str]]:
    numbers = _number_fields(fields)
    posts: list[dict[str, str]] = [{}, {f"{PREFIX}unknown_field": "1"}]
    if numbers:
        posts.append({f.name: "1000000000" for f in numbers})
        posts.append({f.name: "-1000000000" for f in numbers})
        posts.append({f.name: "lots" for f in numbers})
    return posts


def _walk_character(client: Client, character: Character, who: str) -> None:
    ruleset = get_ruleset(character.campaign.ruleset)
    sheet_url = reverse("character", args=[character.pk])
    for spec in ruleset.actions:
        url = reverse("character-action", args=[character.pk, spec.key])
        character.refresh_from_db()
        fields = schema_fields(
            spec.params, ruleset=ruleset.key, sheet=ruleset.public_sheet(character.sheet)
        )
        for data in [*_bad_posts(fields), _plausible(fields)]:
            character.refresh_from_db()
            body = {**data, "expected_version": str(character.version)}
            where = f"{who} {ruleset.key} {spec.key} {data}"
            assert_plain(client.post(url, body, HTTP_HX_REQUEST="true"), where)
            character.refresh_from_db()
            if character.pending_choice:  # a decision first: answer with a stale id, then
                choice_url = reverse("character-choice", args=[character.pk])
                stale = client.post(choice_url, {"choice_id": "nope", "option": "x"})
                assert_plain(stale, where + " stale choice")
                option = character.pending_choice["options"][-1]["key"]
                answer = {"choice_id": character.pending_choice["id"], "option": option}
                assert_plain(client.post(choice_url, answer, follow=True), where + " choice")
    assert_plain(client.get(sheet_url), f"{who} sheet of {character.name}")
    assert_plain(client.get(reverse("character-live", args=[character.pk])), f"{who} live sheet")


# Reads every demo page's words, which no database changes: once, in the default
# configuration (walk), as the browser walks are.
@pytest.mark.slow
@pytest.mark.walk
def test_no_page_of_the_demo_shows_a_ruling_id_or_schema_wording(demo):
    for who, client in demo.items():
        for url in (reverse("home"), reverse("campaign-new"), reverse("account")):
            assert_plain(client.get(url), f"{who} {url}")
        assert_plain(client.get("/no/such/page/"), f"{who} 404")
        assert_plain(client.get(reverse("join-code", args=["no-such-code"])), f"{who} join")
        for campaign in Campaign.objects.all():
            ruleset = get_ruleset(campaign.ruleset)
            dashboard = reverse("campaign", args=[campaign.pk])
            assert_plain(client.get(dashboard), f"{who} dashboard {ruleset.key}")
            # a new character with impossible scores, and without a name
            fields = schema_fields(
                ruleset.sheet_schema,
                only=tuple(f.key for f in schema_fields(ruleset.sheet_schema)),
                defaults=ruleset.default_sheet(),
            )
            new_url = reverse("character-new", args=[campaign.pk])
            for data in _bad_posts(fields):
                assert_plain(client.post(new_url, {"name": "Zed", **data}), f"{who} new {data}")
            assert_plain(client.post(new_url, {"name": ""}), f"{who} nameless character")
            # the referee walks the first character, the player their own: every action
            # of every ruleset as each of them
            party = Character.objects.filter(campaign=campaign).order_by("pk")
            mine = party if who == "referee" else party.filter(owner__username=who)
            character = mine.first()
            if character is not None:
                _walk_character(client, character, who)
                nojs = client.post(
                    reverse("character-action", args=[character.pk, ruleset.actions[0].key]),
                    {"expected_version": "0"},
                )
                assert_plain(nojs, f"{who} {ruleset.key} without htmx, stale")
            assert_plain(client.get(dashboard), f"{who} dashboard {ruleset.key} after")
            live = client.get(reverse("campaign-live", args=[campaign.pk]))
            assert_plain(live, f"{who} dashboard fragment")
    # the campaign form's errors
    referee = demo["referee"]
    for ruleset_key in ("hit_dice", "deckahedron", "old_school"):
        ruleset = get_ruleset(ruleset_key)
        bad = {f"opt.{key}": "lots" for key in ruleset.options}
        posted = referee.post(reverse("campaign-new"), {"ruleset": ruleset_key, "name": "", **bad})
        assert_plain(posted, f"new campaign {ruleset_key}")


def _upload(content: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("campaign.json", content.encode(), content_type="application/json")


@pytest.mark.slow
def test_bad_input_everywhere_is_said_in_plain_words(demo):
    """Issue 29: import, settings, tables, the log's address, the odds of every action,
    the dice check and the rules pages, each with what a person can get wrong."""
    referee = demo["referee"]
    # import: no file, not JSON, not an export, another version, an unknown ruleset,
    # a damaged sheet, a damaged row
    campaign = Campaign.objects.get(ruleset="hit_dice")
    export = referee.get(reverse("api-campaign-export", args=[campaign.pk])).json()
    sheet = dict(export["characters"][0]["sheet"], hp=-50, state="flying")
    damaged_sheet = {**export, "characters": [{**export["characters"][0], "sheet": sheet}]}
    unknown = {**export, "campaign": {**export["campaign"], "ruleset": "nope"}}
    missing = {**export, "characters": [{"name": "Zed"}]}
    for label, content in (
        ("not JSON", ""),
        ("not an export", "[1, 2]"),
        ("another version", json.dumps({**export, "version": 12})),
        ("unknown ruleset", json.dumps(unknown)),
        ("damaged sheet", json.dumps(damaged_sheet)),
        ("damaged row", json.dumps(missing)),
    ):
        posted = referee.post(reverse("campaign-import"), {"export": _upload(content)})
        assert posted.status_code == 400, label
        assert_plain(posted, f"import, {label}")
    assert_plain(referee.post(reverse("campaign-import"), {}), "import without a file")
    # the file's players mapped to people here: a name the file lacks, a line without a
    # name, a username longer than any (issue 29); a stranger is invited like anyone
    # (issue 36: the import tells no one whether an account exists)
    for players in ("nobody = referee", "= player1", "player1 = " + "x" * 151):
        posted = referee.post(
            reverse("campaign-import"),
            {"export": _upload(json.dumps(export)), "players": players},
        )
        assert posted.status_code == 400, players
        assert_plain(posted, f"import, players {players!r}")
    invited = referee.post(
        reverse("campaign-import"),
        {"export": _upload(json.dumps(export)), "players": "player1 = nobody.here"},
        follow=True,
    )
    assert invited.status_code == 200
    assert_plain(invited, "import, a stranger invited")
    for campaign in Campaign.objects.order_by("pk"):
        ruleset = get_ruleset(campaign.ruleset)
        manage = reverse("campaign-manage", args=[campaign.pk])
        # settings: every option far too small, then words where numbers go
        for bad in ("-5", "lots", "1000000000"):
            options = {f"opt.{key}": bad for key in ruleset.options}
            posted = referee.post(manage, {"form": "settings", "name": campaign.name, **options})
            assert_plain(posted, f"settings {ruleset.key} {bad}")
        for hours in ("abc", "-3", "1e9"):
            posted = referee.post(manage, {"form": "invite", "expires_in_hours": hours})
            assert_plain(posted, f"invite expiring after {hours!r} hours")
        for form in ("revoke", "remove"):
            posted = referee.post(manage, {"form": form, "invite": "x", "user": "x"})
            assert_plain(posted, f"{form} nobody")
        assert_plain(referee.post(manage, {"form": "delete", "confirm": "no"}), "delete, no")
        revoked = Invite.objects.filter(campaign=campaign).first()
        if revoked is not None:
            referee.post(manage, {"form": "revoke", "invite": str(revoked.pk)})
        settings_page = referee.get(manage)
        assert_plain(settings_page, f"settings {ruleset.key} with a revoked invite")
        # the referee's own list says what became of a link, not what to ask the referee
        assert "Ask your referee" not in words(settings_page.content.decode())
        # tables: not JSON, the wrong shape, rows with missing and unknown columns
        for table in campaign_tables_view(campaign):
            url = reverse("campaign-table", args=[campaign.pk, table["key"]])
            assert_plain(referee.get(url), f"table {table['key']}")
            rows = [{"nonsense": 1}, {"roll": "lots"}]
            for text in ("", "{", "[]", "12", json.dumps(rows), json.dumps({"rows": rows})):
                for what in ("preview", "save"):
                    posted = referee.post(url, {"data": text, "do": what})
                    assert_plain(posted, f"table {table['key']} {what} {text!r}")
            # the row editor: empty rows, words in every cell, a JSON cell that is not
            for cell in ("", "lots", "{"):
                cells = {f"row-{i}-{c}": cell for i in range(2) for c in ("min", "max", "effect")}
                for what in ("preview", "save", "add", "up-1", "remove-0"):
                    data = {"editor": "rows", "rows": "2", "do": what, **cells}
                    posted = referee.post(url, data)
                    assert_plain(posted, f"table {table['key']} rows {what} {cell!r}")
        # the log's address written by hand
        log = reverse("campaign-log", args=[campaign.pk])
        for query in (
            {"character": "abc"},
            {"who": "someone"},
            {"q": "x" * 300},
            {"roll": "\x00"},
            {"from_day": "abc"},
            {"to_day": "0"},
        ):
            for who, client in demo.items():
                assert_plain(client.get(log, query), f"{who} log {query}")
        for who, client in demo.items():
            assert_plain(client.get(reverse("campaign-dice", args=[campaign.pk])), f"{who} dice")
        # the odds of every action, with nothing and with too much filled in
        for character in Character.objects.filter(campaign=campaign).order_by("pk")[:1]:
            for spec in ruleset.actions:
                url = reverse("character-odds", args=[character.pk, spec.key])
                fields = schema_fields(
                    spec.params, ruleset=ruleset.key, sheet=ruleset.public_sheet(character.sheet)
                )
                for data in [*_bad_posts(fields), _plausible(fields)]:
                    odds = referee.post(url, data, HTTP_HX_REQUEST="true")
                    assert_plain(odds, f"odds {ruleset.key} {spec.key} {data}")
        # who plays a character: nobody, a stranger, the same player, a stale page
        for character in Character.objects.filter(campaign=campaign).order_by("pk")[:1]:
            edit = reverse("character-edit", args=[character.pk])
            assert_plain(referee.get(edit), f"edit page of {character.name}")
            same = str(character.owner_id)
            for data in (
                {},
                {"owner": "nobody here"},
                {"owner": "999999"},
                {"owner": same},
                {"owner": same, "expected_version": "0"},
            ):
                posted = referee.post(edit, {"form": "owner", **data})
                assert posted.status_code in {400, 409}, data
                assert_plain(posted, f"played by {data}")
    # the rules pages keep their rulings, not the developers' notes
    for key in ruleset_keys():
        page = demo["player1"].get(reverse("rules-help", args=[key]))
        assert_no_developer_words(page, f"rules {key}", DEVELOPER_NOTES)
        assert f"(<code>{key}</code>)" not in page.content.decode(), key


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (
            "invalid params for damage: amount: 0 is less than the minimum of 1",
            "Amount must be at least 1.",
        ),
        ("invalid params for damage: 'amount' is a required property", "Amount is needed."),
        (
            "invalid sheet: max_strength: 25 is greater than the maximum of 18",
            "Strength can be at most 18.",
        ),
        (
            "Actions wait until the decision is made (ruling G-3)",
            "Actions wait until the decision is made.",
        ),
        ("any damage below 0 wounds kills, OS-4", "Any damage below 0 wounds kills."),
        (
            "A wound_worsens effect needs the wound's id.",
            "A wound worsens effect needs the wound's id.",
        ),
    ],
)
def test_messages_in_plain_words(raw, said):
    assert plain_message(raw, {"amount": "Amount", "strength": "Strength"}) == said


def test_strip_rulings_leaves_the_sentence():
    assert strip_rulings("Eight hours; fatigue back to 0 (6.5, ruling HD-3).") == (
        "Eight hours; fatigue back to 0."
    )
    assert strip_rulings("Ages at once (OS-5), every save due.") == "Ages at once, every save due."


def test_the_rules_help_pages_speak_the_games_words(client):
    """Issue 34: "Params are closed JSON Schemas...", a "Kind Key Payload" table with
    wound_worsens and {"wound": <id>}, snake_case action names and ruling ids (OS-P22)
    were on the players' rules pages; the sections for API clients are left out."""
    for key in ruleset_keys():
        page = client.get(reverse("rules-help", args=[key]))
        shown = words(page.content.decode(), code=True)
        assert "for API clients" not in shown, key
        for shape in (SNAKE, RULING_ID, re.compile(r"\bJSON\b|\bSchemas?\b|\bISO\b|\bpayload\b")):
            found = shape.findall(shown)
            assert not found, f"rules {key}: {found}"
        assert not re.search(r"\b(?:True|False|None)\b", shown), key
