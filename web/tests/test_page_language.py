"""What a German or Spanish reader sees of the engine's texts on the pages (issue 37):
forms built from the rulesets' schemas, durations, choices, rolls, possessives, the
rules help page; and the generated list of the schemas' words stays up to date."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.utils import translation

from campaigns.models import Membership
from rules.engine.data import RuleError
from rules.engine.words import say, text_dict, word
from rules.play.services import character_create
from tests.test_translations import compiled  # noqa: F401 - the catalogues, compiled
from web.forms import build_field, humanize
from web.management.commands.engine_words import TARGET, module_text, ruleset_words
from web.plain import (
    choice_said,
    error_said,
    error_text,
    plain_message,
    possessive,
    roll_label,
)
from web.templatetags.sawbones import duration
from web.views import rulebook

pytestmark = pytest.mark.usefixtures("compiled")


def test_the_generated_words_are_up_to_date():
    """``manage.py engine_words`` writes what the committed module says: run it after
    changing a ruleset's schemas (then makemessages and translate)."""
    committed = (Path(django_settings.BASE_DIR) / TARGET).read_text(encoding="utf-8")
    assert committed == module_text(), "run: manage.py engine_words"
    assert "Major wound marks" in ruleset_words()


def test_humanize_says_a_key_in_the_readers_language():
    assert humanize("major_wound_marks") == "Major wound marks"
    with translation.override("de"):
        assert humanize("major_wound_marks") == "Schwere Wundmarken"
        assert humanize("a_key_no_ruleset_has") == "A key no ruleset has"
    with translation.override("es"):
        assert humanize("hit_dice") == "Dados de golpe"


def test_a_schema_field_is_labelled_in_the_readers_language():
    schema = {"type": "integer", "title": word("Bypass hp per level"), "description": ""}
    with translation.override("de"):
        field = build_field("bypass", schema, name="p.bypass", required=True)
        assert field.label == "TP zum Abwenden pro Stufe"
        select = build_field(
            "state", {"enum": ["standing", "dying"]}, name="p.state", required=True
        )
        assert select.label == "Zustand"
        assert dict(select.choices) == {"standing": "Auf den Beinen", "dying": "Sterbend"}


@pytest.mark.django_db
def test_a_german_reader_sees_the_options_form_in_german(player, web):
    page = web(player).get(
        "/campaigns/new/options/", {"ruleset": "hit_dice"}, HTTP_ACCEPT_LANGUAGE="de"
    )
    text = page.content.decode()
    assert page.status_code == 200
    assert "TP zum Abwenden pro Stufe" in text  # the schema's title
    assert "Bypass hp per level" not in text


@pytest.mark.parametrize(
    ("minutes", "de", "es"),
    [
        (45, "45 Min.", "45 min"),
        (130, "2 Std. 10 Min.", "2 h 10 min"),
        (60, "1 Std.", "1 h"),
        (24 * 60, "1 Tag", "1 día"),
        (3 * 24 * 60 + 4 * 60, "3 Tage 4 Std.", "3 días 4 h"),
        (2 * 365 * 24 * 60, "2 Jahre", "2 años"),
        (366 * 24 * 60, "1 Jahr 1 T.", "1 año 1 d"),
    ],
)
def test_a_duration_in_german_and_spanish(minutes, de, es):
    with translation.override("de"):
        assert duration(minutes) == de
    with translation.override("es"):
        assert duration(minutes) == es
    assert duration(130) == "2 h 10 min"
    assert duration(3 * 24 * 60) == "3 days"


def test_a_possessive_per_language():
    assert possessive("Aldo") == "Aldo's"
    assert possessive("Grey Crows") == "Grey Crows'"
    with translation.override("de"):
        assert possessive("Aldo") == "Aldos"
        assert possessive("Hans") == "Hans'"
        assert possessive("Fritz") == "Fritz'"
    with translation.override("es"):
        assert possessive("Aldo") == "Aldo"


def test_a_change_is_said_in_the_readers_language():
    assert plain_message("hp (11 -> 2)") == "Hp (from 11 to 2)."
    with translation.override("de"):
        assert plain_message("hp (11 -> 2)") == "Hp (von 11 auf 2)."
    with translation.override("es"):
        assert plain_message("hp (11 -> 2)") == "Hp (de 11 a 2)."


def test_a_pending_choice_and_a_roll_say_their_messages():
    stored = {
        "id": "c1",
        "kind": "k",
        "who": "owner",
        "state": {"secret": 1},
        **text_dict("prompt", say("{value}", value=word("Dying"))),
        "options": [
            {"key": "a", **text_dict("label", word("Wound")), **text_dict("confirm", "Sure?")},
            {"key": "b", "label": "Typed"},
        ],
    }
    roll = {"label": "Wound", "label_said": word("Wound").data(), "dice": [3]}
    with translation.override("de"):
        shown = choice_said(stored)
        assert shown is not None
        assert shown["prompt"] == "Sterbend"
        assert [o["label"] for o in shown["options"]] == ["Wunde", "Typed"]
        assert shown["options"][0]["confirm"] == "Sure?"
        assert "state" not in shown
        assert roll_label(roll) == "Wunde"
        assert roll_label({"label": "Old roll"}) == "Old roll"
    assert choice_said(None) is None


@pytest.mark.django_db
def test_the_help_page_is_the_readers_language_when_it_is_translated(tmp_path, settings):
    docs = tmp_path / "docs" / "rulesets"
    (docs / "de").mkdir(parents=True)
    (docs / "hit_dice.md").write_text("# Hit dice\n\nThe English rules.\n", encoding="utf-8")
    (docs / "de" / "hit_dice.md").write_text(
        "# Trefferwürfel\n\nDie deutschen Regeln.\n\n## Schlüssel (für API-Clients)\n\n"
        "Nur für Programme.\n",
        encoding="utf-8",
    )
    settings.BASE_DIR = tmp_path
    rulebook._rendered.cache_clear()
    german = Client().get("/rules/hit_dice/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    spanish = Client().get("/rules/hit_dice/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    rulebook._rendered.cache_clear()
    assert "Die deutschen Regeln." in german and "The English rules." not in german
    assert "Nur für Programme." not in german  # the API's section is left out
    assert "The English rules." in spanish  # no Spanish page: the English one


@pytest.mark.django_db
def test_a_german_sheet_shows_the_choice_and_the_log_in_german(campaign, player, web):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 2, "hp": 10})
    aldo.pending_choice = {
        "id": "c1",
        "kind": "k",
        "who": "owner",
        "state": {},
        **text_dict("prompt", say("{value}", value=word("Wound worsens"))),
        "options": [{"key": "a", **text_dict("label", word("Give up"))}],
    }
    aldo.save(update_fields=["pending_choice"])
    entry = aldo.resolutions.get()
    entry.said = say("{value}", value=word("Forced march")).data()
    entry.save(update_fields=["said"])
    page = web(player).get(f"/characters/{aldo.pk}/", HTTP_ACCEPT_LANGUAGE="de")
    text = page.content.decode()
    assert "Wunde verschlimmert sich" in text and "Aufgeben" in text  # the choice
    assert "Gewaltmarsch" in text  # the log entry's summary, from its message


def test_a_refusal_is_said_in_the_readers_language_and_a_schema_refusal_worded():
    refusal = RuleError(say("{value}", value=word("Dying")))
    schema = RuleError("invalid params for damage: amount: 0 is less than the minimum of 1")
    with translation.override("de"):
        assert error_said(refusal) == "Sterbend"
        assert plain_message(error_text(refusal)) == "Sterbend."
        assert plain_message(error_text(schema), {"amount": humanize("amount")}).startswith("Menge")
    assert error_said(ValueError("plain")) == "plain"
