"""The pages in three languages (issue 37, docs/translating.md): every text of a template
is marked for translation, the catalogues are complete, and whose language a page and the
API speak."""

from __future__ import annotations

import ast
import re
from io import StringIO
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.core.management import call_command
from django.template.base import Lexer, TokenType
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from accounts.selectors import account_language
from accounts.services import account_language_set
from campaigns.models import Campaign
from characters.models import Character
from rules.clock.tasks import queue_digests
from rules.clock.tests.clock_helpers import run_job, wounded

TEMPLATES = Path(settings.BASE_DIR) / "templates"

# Attributes a person reads (or hears): their values are text like the elements'.
VISIBLE_ATTRIBUTES = ("aria-label", "title", "alt", "placeholder", "hx-confirm", "data-confirm")
# Text that is no word of any language, so nothing to translate (each explained):
NOT_WORDS = {
    "Sawbones",  # the product's name, the same in every language
    # the dice notation's "d" (d6, 2d6): the dice grammar's (rules/engine/dice.py), which
    # the engine's expressions on every page use too, in every language
    "d",
}
# A tag the translation tags open, and the one that closes it: the text between is marked.
MARKED_BLOCKS = {"blocktranslate": "endblocktranslate", "blocktrans": "endblocktrans"}
SKIPPED_BLOCKS = {"comment": "endcomment", "verbatim": "endverbatim"}
PLACE = "\x00"  # where a variable or a tag stood in the text


def _skeleton(source: str) -> str:
    """The template's text with every variable and tag replaced by PLACE, and what is
    already marked (blocktranslate's text) or not shown (comments) left out."""
    parts: list[str] = []
    closing: str | None = None
    for token in Lexer(source).tokenize():
        if closing is not None:
            if token.token_type is TokenType.BLOCK and token.contents.split()[0] == closing:
                closing = None
                parts.append(PLACE)
            continue
        if token.token_type is TokenType.TEXT:
            parts.append(token.contents)
            continue
        if token.token_type is TokenType.BLOCK:
            words = token.contents.split()
            closing = MARKED_BLOCKS.get(words[0]) or SKIPPED_BLOCKS.get(words[0])
            if words[0] == "block" and words[1].endswith("_class"):
                closing = "endblock"  # a block of CSS classes (base.html's main_class)
        parts.append(PLACE)
    return "".join(parts)


def _words(text: str) -> list[str]:
    """The words left in a piece of text once places, entities and NOT_WORDS are out."""
    text = re.sub(r"&#?\w+;", " ", text.replace(PLACE, " "))
    return [w for w in re.findall(r"[^\W\d_]+", text) if w not in NOT_WORDS]


def unmarked_text(source: str) -> list[str]:
    """Each piece of a template's text a person reads that no translation tag holds."""
    text = _skeleton(source)
    text = re.sub(r"<(script|style)\b.*?</\1>", PLACE, text, flags=re.S | re.I)
    text = re.sub(r"<!--.*?-->", PLACE, text, flags=re.S)
    found: list[str] = []
    attribute = re.compile(r"\b(" + "|".join(VISIBLE_ATTRIBUTES) + r")=\"([^\"]*)\"")
    for tag in re.findall(r"<[^>]*>", text):
        values = [value for _, value in attribute.findall(tag)]
        found += [value.replace(PLACE, " ").strip() for value in values if _words(value)]
    for piece in re.split(r"<[^>]*>", text):
        if _words(piece):
            found.append(piece.replace(PLACE, " ").strip())
    return found


HTML_TEMPLATES = sorted(TEMPLATES.rglob("*.html"))
# The e-mails' templates (digest, invitation, password reset): plain text, the same check.
TEXT_TEMPLATES = sorted(TEMPLATES.rglob("*.txt"))


@pytest.mark.once  # reads the templates, the code or the catalogues
def test_the_checker_finds_text_and_leaves_marked_text():
    assert unmarked_text("<p>Hello {{ name }}</p>") == ["Hello"]
    assert unmarked_text('<a title="Your account">{{ name }}</a>') == ["Your account"]
    assert (
        unmarked_text(
            '{% load i18n %}<p title="{% translate "Hi" %}">{% blocktranslate %}Hello {{ name }}'
            "{% endblocktranslate %} {# a note #}<script>let a = 1;</script> 2d6 &nbsp;</p>"
        )
        == []
    )


@pytest.mark.parametrize(
    "path", HTML_TEMPLATES + TEXT_TEMPLATES, ids=lambda p: str(p.relative_to(TEMPLATES))
)
@pytest.mark.once  # reads the templates, the code or the catalogues
def test_every_text_of_a_template_is_marked_for_translation(path):
    assert unmarked_text(path.read_text()) == []


# --- the pages' Python-side words ---------------------------------------------------

WEB = Path(settings.BASE_DIR) / "web"
# Django's flash messages: ``messages.success(request, text)``; their text is what a
# person reads on the next page.
FLASH = {"success", "info", "warning", "error", "debug"}
# A form field's words (django forms' ``label=`` and ``help_text=``).
FIELD_WORDS = {"label", "help_text"}


def _unmarked(node: ast.expr) -> bool:
    """Words a person reads written straight into the code, not through gettext: a str
    constant, an f-string, or either joined to something (``"Saved " + name``,
    ``"%s saved" % name``, one side of ``a if b else c``)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(re.search(r"[^\W\d_]", node.value))
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _unmarked(node.left) or _unmarked(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _unmarked(node.left)
    if isinstance(node, ast.IfExp):
        return _unmarked(node.body) or _unmarked(node.orelse)
    return False


def unmarked_python(source: str) -> list[int]:
    """The lines of flash messages and form fields' labels and help texts whose words are
    not marked for translation."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        said: list[ast.expr] = [k.value for k in node.keywords if k.arg in FIELD_WORDS]
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in FLASH
            and isinstance(func.value, ast.Name)
            and func.value.id == "messages"
        ):
            said += node.args[1:2] + [k.value for k in node.keywords if k.arg == "message"]
        found += [value.lineno for value in said if _unmarked(value)]
    return sorted(found)


@pytest.mark.once  # reads the templates, the code or the catalogues
def test_the_python_checker_finds_unmarked_words_and_leaves_marked_ones():
    assert unmarked_python('messages.success(request, "Saved.")') == [1]
    assert unmarked_python('messages.error(request, f"{name} left.")') == [1]
    assert unmarked_python('messages.info(request, message="Saved " + name)') == [1]
    assert unmarked_python('forms.CharField(\n label="Name", help_text=f"{x}")') == [2, 2]
    marked = (
        'messages.success(request, _("%(name)s saved.") % {"name": name})\n'
        "messages.error(request, str(error), extra_tags=PLAIN)\n"
        'forms.CharField(label=gettext_lazy("Name"), help_text=_("Why."))\n'
        "FormField(label=str(schema.get('title')))"
    )
    assert unmarked_python(marked) == []


WEB_MODULES = sorted(p for p in WEB.rglob("*.py") if "tests" not in p.parts)


@pytest.mark.once  # reads the templates, the code or the catalogues
@pytest.mark.parametrize("path", WEB_MODULES, ids=lambda p: str(p.relative_to(WEB)))
def test_the_pages_notices_and_form_words_are_marked_for_translation(path):
    assert unmarked_python(path.read_text()) == []


# --- the catalogues -----------------------------------------------------------------

LOCALE = Path(settings.BASE_DIR) / "locale"
TRANSLATED = [code for code, _ in settings.LANGUAGES if code != "en"]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w*\}")


def _catalogue(code: str) -> polib.POFile:
    return polib.pofile(str(LOCALE / code / "LC_MESSAGES" / "django.po"))


@pytest.mark.once  # reads the templates, the code or the catalogues
@pytest.mark.parametrize("code", TRANSLATED)
def test_the_catalogue_is_complete(code):
    catalogue = _catalogue(code)
    assert [e.msgid for e in catalogue.untranslated_entries()] == []
    assert [e.msgid for e in catalogue.fuzzy_entries()] == []
    assert [e.msgid for e in catalogue.obsolete_entries()] == []


@pytest.mark.once  # reads the templates, the code or the catalogues
@pytest.mark.parametrize("code", TRANSLATED)
def test_every_translation_keeps_the_placeholders(code):
    for entry in _catalogue(code).translated_entries():
        wanted = sorted(PLACEHOLDER.findall(entry.msgid))
        if entry.msgid_plural:
            forms = entry.msgstr_plural.values()
            wanted_plural = sorted(PLACEHOLDER.findall(entry.msgid_plural))
            assert all(
                sorted(PLACEHOLDER.findall(form)) in (wanted, wanted_plural) for form in forms
            ), entry.msgid
        else:
            assert sorted(PLACEHOLDER.findall(entry.msgstr)) == wanted, entry.msgid


# --- whose language -----------------------------------------------------------------


@pytest.fixture
def compiled(settings, tmp_path):
    """The committed catalogues compiled here, as `make messages` does for the server: the
    tests need no gettext installed, and never write into the repository."""
    for code in TRANSLATED:
        folder = tmp_path / code / "LC_MESSAGES"
        folder.mkdir(parents=True)
        _catalogue(code).save_as_mofile(str(folder / "django.mo"))
    settings.LOCALE_PATHS = [tmp_path]  # Django forgets the catalogues it had loaded


# A word of every page (the header's) in each language.
LOG_OUT = {"en": "Log out", "de": "Abmelden", "es": "Cerrar sesión"}


def _language_of(client: Client, **headers: str) -> str:
    page = client.get(reverse("home"), headers=headers)
    assert page.status_code == 200
    text = page.content.decode()
    code = re.search(r'<html lang="([^"]+)">', text).group(1)  # type: ignore[union-attr]
    assert LOG_OUT[code] in text, code
    assert page["Content-Language"] == code
    return code


@pytest.mark.django_db
def test_the_account_beats_the_cookie_beats_the_browser_beats_english(compiled, player):
    client = Client()
    client.force_login(player)
    assert _language_of(client) == "en"
    assert _language_of(client, accept_language="es,en;q=0.5") == "es"
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    assert _language_of(client, accept_language="es") == "de"
    saved = client.post(reverse("account-language"), {"language": "es"})
    assert saved.status_code == 302
    assert account_language(player) == "es"
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    assert _language_of(client, accept_language="de") == "es"
    # the choice is the account's: a new log-in (another browser) finds it
    elsewhere = Client()
    elsewhere.force_login(player)
    assert _language_of(elsewhere, accept_language="de") == "es"
    # no choice: the cookie again
    client.post(reverse("account-language"), {"language": ""})
    assert account_language(player) == ""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    assert _language_of(client, accept_language="es") == "de"


@pytest.mark.django_db
def test_the_footer_picker_sets_the_language_for_everyone(compiled):
    client = Client()
    answer = client.post(reverse("set_language"), {"language": "de", "next": reverse("login")})
    assert answer.status_code == 302
    page = client.get(reverse("login"))
    assert '<html lang="de">' in page.content.decode()


@pytest.mark.django_db
def test_the_account_page_saves_the_choice_and_refuses_an_unknown_one(compiled, player):
    client = Client()
    client.force_login(player)
    page = client.get(reverse("account"))
    assert 'name="language"' in page.content.decode()
    client.post(reverse("account-language"), {"language": "de"})
    chosen = client.get(reverse("account")).content.decode()
    assert '<option value="de" lang="de" selected>' in chosen
    # the footer then says whose choice it is and where to change it, instead of its picker
    assert 'action="/i18n/setlang/"' not in chosen
    assert "Sprache: Deutsch" in chosen
    client.post(reverse("account-language"), {"language": "xx"})
    assert account_language(player) == "de"


@pytest.mark.django_db
def test_the_api_answers_in_the_requests_language(compiled, player):
    client = Client()
    client.force_login(player)
    # a signed-in person's choice is for the pages; the API follows Accept-Language
    client.post(reverse("account-language"), {"language": "es"})
    answer = Client().get("/api/v1/campaigns/", headers={"accept-language": "de"})
    assert answer.status_code in (401, 403)
    english = "Authentication credentials were not provided."
    with translation.override("de"):
        german = translation.gettext(english)
    assert german != english
    assert answer.json()["detail"] == german
    assert answer["Content-Language"] == "de"
    answer = client.get("/api/v1/campaigns/", headers={"accept-language": "de"})
    assert answer.status_code == 200 and answer["Content-Language"] == "de"
    assert Client().get("/api/v1/campaigns/")["Content-Language"] == "en"


# --- the demo's pages in every language ---------------------------------------------


def _demo_pages() -> list[str]:
    """Every page of every demo campaign (seed_demo: one per ruleset)."""
    urls = [reverse("home"), reverse("account"), reverse("rules-help-index")]
    for campaign in Campaign.objects.all():
        urls += [
            reverse(name, args=[campaign.pk])
            for name in (
                "campaign",
                "campaign-log",
                "campaign-recap",
                "campaign-manage",
                "campaign-tables",
                "party",
                "campaign-dice",
            )
        ]
        urls.append(reverse("rules-help", args=[campaign.ruleset]))
        if campaign.ruleset == "warband":
            urls.append(reverse("battle", args=[campaign.pk]))
        for character in Character.objects.filter(campaign=campaign):
            urls += [
                reverse("character", args=[character.pk]),
                reverse("character-edit", args=[character.pk]),
            ]
    return urls


def _template_sentences(code: str) -> list[str]:
    """The English sentences of the catalogue (four words or more, no placeholder) that it
    says otherwise: the pages' words and the rules engine's alike. None may be left on a
    page in that language."""
    return [
        entry.msgid
        for entry in _catalogue(code).translated_entries()
        if not entry.msgid_plural
        and entry.msgstr != entry.msgid
        and len(entry.msgid.split()) >= 4
        and "%" not in entry.msgid
        and "{" not in entry.msgid
    ]


@pytest.mark.walk  # every page of the demo, read
@pytest.mark.django_db
@pytest.mark.parametrize("code", TRANSLATED)
def test_every_demo_page_renders_in_the_language_with_no_template_english_left(
    compiled, code, django_user_model
):
    with override_settings(SAWBONES_EMBEDDED=True):
        call_command("seed_demo", stdout=StringIO())
    referee, player, anonymous = Client(), Client(), Client()
    referee.force_login(django_user_model.objects.get(username="referee"))
    player.force_login(django_user_model.objects.get(username="player1"))
    english = _template_sentences(code)
    signed_out = ["home", "login", "signup", "password_reset", "password_reset_done"]
    pages = [(client, url) for url in _demo_pages() for client in (referee, player)]
    pages += [(anonymous, reverse(name)) for name in signed_out]
    for client, url in pages:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = code
        page = client.get(url)
        if client is player and page.status_code in (403, 404):
            continue  # the referee's pages, and the sheets of others
        assert page.status_code == 200, url
        html = page.content.decode()
        assert f'<html lang="{code}">' in html, url
        assert "%(" not in html, url
        left = [sentence for sentence in english if escape(sentence) in html]
        assert left == [], url


# --- what the pages say after an action, and the e-mails ----------------------------


@pytest.mark.django_db
def test_a_german_page_after_an_action_shows_its_notice_in_german(compiled, campaign, player, web):
    client = web(player)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    answer = client.post(f"/campaigns/{campaign.pk}/digest/", {"email_digest": ""}, follow=True)
    page = answer.content.decode()
    assert '<html lang="de">' in page
    assert "Keine E-Mails mehr aus dieser Kampagne." in page
    assert "No more e-mails from this campaign." not in page


@pytest.mark.django_db
def test_the_digest_goes_out_in_its_readers_language(
    compiled, campaign, player, other_player, web, mailoutbox
):
    for user, language in ((player, "es"), (other_player, "")):
        user.email = f"{user.username}@example.org"
        user.save(update_fields=["email"])
        account_language_set(user=user, language=language)
        answer = web(user).post(f"/campaigns/{campaign.pk}/digest/", {"email_digest": "on"})
        assert answer.status_code == 302
        wounded(campaign, user, f"Hero of {user.username}", every=60)
    run_job(campaign, 60)
    queue_digests()  # beat's run, the send tasks in-process: no request, no language of its own
    sent = {mail.to[0]: mail for mail in mailoutbox}
    spanish = sent["player@example.org"]
    assert spanish.subject == f"Lo que les pasó a tus personajes en {campaign.name}"
    assert "Esto es lo que les pasó a tus personajes" in spanish.body
    assert "en la página de la campaña" in spanish.body
    assert "Here is what happened" not in spanish.body
    # no choice: English, whatever language the last mail was in
    english = sent["other_player@example.org"]
    assert english.subject == f"What happened to your characters in {campaign.name}"
    assert "Here is what happened to your characters" in english.body
