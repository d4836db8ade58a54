"""Plain words for pages: the engine's and JSON Schema's messages as sentences a player
reads (issue 12). The API keeps the precise field errors; only pages go through here.

* :func:`plain_message` words any message a page shows: a RuleError's
  "invalid params for damage: amount: 0 is less than the minimum of 1" becomes
  "Amount must be at least 1." and "'amount' is a required property" becomes
  "Amount is needed." (with the form's own labels); ruling ids ("(ruling G-3)",
  "HD-4") and snake_case names ("wound_worsens") never reach the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from characters.choices import public_choice
from core.said import said, said_stored
from rules.engine.words import Message, text_said
from web.forms import humanize

# A ruling id as code, tests and docs cite it: G-3, HD-P7, OS-1..OS-10.
RULING_ID = re.compile(r"\b(?:G|HD|DK|WB|OS|CM)-P?\d+\b")
_RULING_RANGE = r"(?:G|HD|DK|WB|OS|CM)-P?\d+(?:\.\.(?:G|HD|DK|WB|OS|CM)-P?\d+)?"
_PAREN_WITH_RULING = re.compile(r"\s*\([^()]*\b(?:G|HD|DK|WB|OS|CM)-P?\d+\b[^()]*\)")
_BARE_RULING = re.compile(
    r"(?:,\s*|\s+)?\b(?:project\s+)?(?:rulings?\s+)?"
    + _RULING_RANGE
    + r"(?:,\s*"
    + _RULING_RANGE
    + r")*"
)
_SNAKE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
_INVALID = re.compile(r"^invalid (?:params for \w+|sheet|[\w ]+?): (?P<rest>.*)$", re.DOTALL)

# JSON Schema's wording (jsonschema's messages), matched to say it in words.
_LESS = re.compile(r"^(?P<value>.+?) is less than the minimum of (?P<n>\S+)$")
_GREATER = re.compile(r"^(?P<value>.+?) is greater than the maximum of (?P<n>\S+)$")
_REQUIRED = re.compile(r"^'(?P<key>[^']+)' is a required property$")
_TYPE = re.compile(r"^(?P<value>.+?) is not of type (?P<types>.+)$")
_ENUM = re.compile(r"^(?P<value>.+?) is not one of (?P<options>\[.*\])$")
_SHORT = re.compile(r"^(?P<value>.+?) (?:is too short|should be non-empty)$")
_LONG = re.compile(r"^(?P<value>.+?) (?:is too long|is expected to be empty)$")
_EXTRA = re.compile(r"^Additional properties are not allowed")
_FEW = re.compile(r"does not have enough properties|should be non-empty$")

# Sentences the engine and services write for programs, said again for people (issue
# 29): a stale version, a change written "hp (11 -> 2)" (said "hp (from 11 to 2)" in
# the page's language: the engine's messages keep the arrow in every language), a
# possessive after an s (English's), a label's full stop before its value.
_REWRITES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(r"^(?P<who>.+?) is at version \d+, not \d+\b.*$", re.DOTALL),
        # the whole sentence replaced: the reader's language (the others rewrite the
        # engine's English sentences, English until the engine names messages)
        lambda match: (
            _(
                "%(who)s has changed since this page was loaded: it shows them as they are now; "
                "try again."
            )
            % {"who": match["who"]}
        ),
    ),
    (
        re.compile(r"\((?P<old>[^()\s]+) -> (?P<new>[^()\s]+)\)"),
        lambda match: _("(from %(old)s to %(new)s)") % {"old": match["old"], "new": match["new"]},
    ),
    (
        re.compile(r"(?P<old>\S+) -> (?P<new>\S+)"),
        lambda match: _("%(old)s to %(new)s") % {"old": match["old"], "new": match["new"]},
    ),
    (re.compile(r"(?<=\ws)'s\b"), "'"),
    (re.compile(r"\.: "), ": "),
)


def _rewrite(message: str) -> str:
    for pattern, replacement in _REWRITES:
        message = pattern.sub(replacement, message)
    return message


# Raw JSON Schema wording that must never reach a page (tests look for these).
RAW_SCHEMA_WORDS = (
    "is a required property",
    "is less than the minimum of",
    "is greater than the maximum of",
    "is not of type",
    "is not one of",
    "Additional properties are not allowed",
    "invalid params for",
    "invalid sheet:",
)


# A flash message from code whose words need the plain filter (an engine's summary, a
# service's refusal): ``messages.success(request, text, extra_tags=PLAIN)``. Every other
# flash message is the page's own sentence and is shown as written, names and codes with
# their underscores (issue 34; templates/base.html).
PLAIN = "plain"


def possessive(name: str) -> str:
    """A name's possessive in the page's language, for a message that puts it before
    what is theirs ("Open %(name)s sheet"): English "Grey Crows'", "Aldo's" (issue 29);
    German "Aldos", after s, ß, x or z "Hans'"; Spanish has none (its sentences say "la
    hoja de Aldo"): the name as written."""
    language = (get_language() or "en").split("-")[0]
    if language == "de":
        return f"{name}'" if name.lower().endswith(("s", "ß", "x", "z")) else f"{name}s"
    if language == "en":
        return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"
    return name


def error_text(error: BaseException) -> str:
    """A refusal's text: the engine's message when it raised one (rules.engine.words: a
    str, English, that :func:`plain_message` says in the page's language), else its text."""
    if error.args and isinstance(error.args[0], Message):
        return error.args[0]
    return str(error)


def error_said(error: BaseException) -> str:
    """A refusal's sentence in the page's language (:func:`error_text`, said)."""
    return said(error_text(error))


def summary_said(entry: Mapping[str, Any]) -> str:
    """An entry's summary (a dict of the log, the recap or a clock report) in the page's
    language: its message (a ``said`` of stored message data beside the English
    ``summary``, or the summary itself when it is a message), else the English as stored."""
    summary = entry.get("summary")
    if isinstance(summary, Message):
        return said(summary)
    return said_stored(str(summary or ""), entry.get("said"))


def choice_said(stored: dict[str, Any] | None) -> dict[str, Any] | None:
    """A character's stored pending choice as a page shows it (``characters.choices.
    public_choice``'s keys): its prompt and each option's label and confirmation in the
    page's language (their ``*_said`` message data), else as stored."""
    public = public_choice(stored)
    if stored is None or public is None:
        return None
    return {
        **public,
        "prompt": said(text_said("prompt", stored)),
        "options": [
            {
                **option,
                "label": said(text_said("label", option)),
                "confirm": said(text_said("confirm", option)) if option.get("confirm") else "",
            }
            for option in stored["options"]
        ],
    }


def roll_label(roll: Mapping[str, Any]) -> str:
    """A stored roll's label in the page's language (its ``label_said``), else as stored."""
    label = roll.get("label")
    if isinstance(label, Message):
        return said(label)
    return said(text_said("label", roll))


def strip_rulings(text: str) -> str:
    """The text without the ruling ids it cites: they are for code, tests and docs."""
    text = _PAREN_WITH_RULING.sub("", text)
    text = _BARE_RULING.sub("", text)
    return re.sub(r"\s+([.,;:])", r"\1", text).strip()


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _label(path: str, labels: Mapping[str, str]) -> str:
    """The label people saw for a field path ("wounds.0.description" -> its last part)."""
    parts = [p for p in path.split(".") if p and not p.isdigit()]
    if not parts:
        return ""
    key = parts[-1]
    if key in labels:
        return labels[key]
    if key.startswith("max_") and key[4:] in labels:  # the maximum follows the score
        return labels[key[4:]]
    return humanize(key)


def _one(path: str, message: str, labels: Mapping[str, str]) -> str:
    label = _label(path, labels)
    what = label or _("This value")
    said = _said(message, what, label)
    if said is None:
        said = _("%(what)s is not allowed here")
    return said % {"what": what, **_values(message, labels)}


def _values(message: str, labels: Mapping[str, str]) -> dict[str, str]:
    """The values a schema message names, for the sentence :func:`_said` picks."""
    if match := _REQUIRED.match(message):
        return {"key": _label(match["key"], labels)}
    if match := _LESS.match(message) or _GREATER.match(message):
        return {"n": match["n"]}
    if match := _ENUM.match(message):
        options = re.findall(r"'([^']*)'", match["options"])
        return {"listed": ", ".join(humanize(o) for o in options)}
    return {}


def _said(message: str, what: str, label: str) -> str | None:
    """The sentence (with its placeholders) for a JSON Schema message; None for one this
    does not know."""
    if _REQUIRED.match(message):
        return _("%(key)s is needed")
    if _LESS.match(message):
        return _("%(what)s must be at least %(n)s")
    if _GREATER.match(message):
        return _("%(what)s can be at most %(n)s")
    if match := _TYPE.match(message):
        if "integer" in match["types"]:
            return _("%(what)s must be a whole number")
        if "number" in match["types"]:
            return _("%(what)s must be a number")
        return _("%(what)s is not the right kind of value")
    if match := _ENUM.match(message):
        listed = re.findall(r"'([^']*)'", match["options"])
        return _("%(what)s must be one of: %(listed)s") if listed else _("%(what)s is not allowed")
    if _EXTRA.match(message):
        return _("The form sent something the rules do not know; reload the page")
    return _said_more(message, what, label)


def _said_more(message: str, what: str, label: str) -> str | None:
    if "not a dice expression" in message:  # the dice service's own word (a scars table)
        return _("%(what)s: write the dice like 2d6, d20 or 1d8+1")
    if "does not match" in message:
        if "d[1-9]" in message or "dice" in what.lower():
            return _("%(what)s: write the dice like 2d6, d20 or 1d8+1")
        return _("%(what)s: use plain letters, without spaces or signs")
    if "is not valid under any of the given schemas" in message or "is valid under each" in message:
        return _("%(what)s: fill in one of its choices (an amount or dice, say), not none or both")
    if "has non-unique elements" in message:
        return _("%(what)s lists the same thing twice")
    if message.startswith("'' ") or message.startswith('"" '):  # an empty text
        return _("%(what)s cannot be empty")
    if _FEW.search(message):
        return (
            _("%(what)s: fill in at least one of its boxes")
            if label
            else _("Fill in at least one box")
        )
    if _SHORT.match(message):
        return _("%(what)s cannot be empty")
    if _LONG.match(message):
        return _("%(what)s is too long")
    return None


def _split_item(item: str) -> tuple[str, str]:
    """ "amount: 0 is less..." -> ("amount", "0 is less..."); a message without a path."""
    head, sep, rest = item.partition(": ")
    if sep and re.fullmatch(r"[\w.]+", head) and not head.isdigit():
        return head, rest
    return "", item


def plain_message(message: str, labels: Mapping[str, str] | None = None) -> str:
    """Any message a page shows, in words: schema errors worded with the form's labels,
    ruling ids left out, snake_case names as words, a capital and a full stop."""
    labels = labels or {}
    # a JSON Schema refusal is read in its English words (worded again below); any
    # other engine message is said in the page's language
    match = _INVALID.match(str(message).strip())
    if match:
        items = [i for i in match["rest"].split("; ") if i]
        return " ".join(_sentence(_one(*_split_item(item), labels)) for item in items)
    message = _rewrite(strip_rulings(said(message).strip()))
    message = _SNAKE.sub(lambda m: labels.get(m.group(0), m.group(0).replace("_", " ")), message)
    return _sentence(message)


def plain_inline(text: str) -> str:
    """Words inside a sentence (a roll's label): ruling ids left out, snake_case names as
    words, the case and punctuation as written."""
    text = strip_rulings(said(text))
    return _SNAKE.sub(lambda m: m.group(0).replace("_", " "), text)


def plain_summary(text: str, name: str) -> str:
    """A resolution's summary in plain words, the character's name as written: the log
    writes it "Name: what happened", and a name is no code's word (issue 34: "old_garret"
    became "old garret")."""
    head = f"{name}: "
    if name and text.startswith(head):
        return head + plain_message(text.removeprefix(head))
    return plain_message(text)


def field_labels(fields: Iterable[Any]) -> dict[str, str]:
    """key -> label of schema-built form fields, nested groups included."""
    labels: dict[str, str] = {}
    for field in fields:
        labels[field.key] = field.label
        labels.update(field_labels(getattr(field, "children", ())))
    return labels


def plain_import_problem(message: str) -> str:
    """Why a campaign file was refused (rules.logbook.importing.campaign_import's messages, which
    the API keeps), as the import page says it (issue 29)."""
    return _import_problem(str(message).strip()) + " " + _("Nothing was imported.")


def _import_problem(message: str) -> str:
    if message.startswith("this is not a Sawbones campaign export"):
        return _("That file is not a campaign downloaded from Sawbones.")
    if re.match(r"this export is of version", message):
        return _(
            "That file was downloaded from another version of Sawbones, which this one cannot read."
        )
    if message.startswith("unknown ruleset"):
        return _("That campaign plays by rules this Sawbones does not have.")
    if message.startswith("no character in the export is played by "):
        who = message.removeprefix("no character in the export is played by ")
        return _(
            "No character in that file is played by %(who)s: write the names as the "
            "file has them (a character's player on its old sheet)."
        ) % {"who": who}
    if " are mapped to one person here, " in message:
        olds, _here, new = message.partition(" are mapped to one person here, ")
        return _(
            "%(olds)s would both be played by %(new)s here: each player of the file plays "
            "their own characters, so map each to a person of their own."
        ) % {"olds": olds, "new": new}
    if message.startswith("give each player's name"):
        return _("Write each player as their name in the file = a username here.")
    if message.startswith("at most "):
        return _("That campaign is too large to import at once.")
    if match := re.match(r"^invalid (sheet|[\w ]*table): (?P<rest>.*)$", message, re.DOTALL):
        said = plain_message(message)
        if match.group(1) == "sheet":
            return _("A character's sheet in that file does not fit the rules: %(said)s") % {
                "said": said
            }
        return _("A table in that file does not fit the rules: %(said)s") % {"said": said}
    return _("That file is damaged: part of it is missing or was changed after it was downloaded.")


_TABLE = re.compile(r"^invalid (?P<table>[\w ]*?table): (?P<rest>.*)$", re.DOTALL)
_UNEXPECTED = re.compile(r"'(?P<key>[^']+)' (?:was|were) unexpected")
_SHOWN_PROBLEMS = 5


def _table_item(item: str) -> str:
    head, sep, rest = item.partition(": ")
    path, message = (head, rest) if sep and re.fullmatch(r"[\w.]+", head) else ("", item)
    parts = path.split(".") if path else []
    rows = [int(p) for p in parts if p.isdigit()]
    names = [p for p in parts if not p.isdigit() and p != "rows"]
    where = _("Row %(number)s") % {"number": rows[0] + 1} if rows else _("The table")
    column = humanize(names[-1]) if names else ""
    if match := _REQUIRED.match(message):
        return _("%(where)s needs %(what)s") % {
            "where": where,
            "what": humanize(match["key"]).lower(),
        }
    if _EXTRA.match(message):
        extra = ", ".join(humanize(k).lower() for k in _UNEXPECTED.findall(message))
        return _("%(where)s has something this table does not have: %(extra)s") % {
            "where": where,
            "extra": extra or _("an extra column"),
        }
    if (match := _TYPE.match(message)) and not column:
        if "array" in match["types"]:
            return _("%(where)s must be a list of rows, between [ and ]") % {"where": where}
        if "object" in match["types"]:
            return _("%(where)s must be written between { and }, each entry with its name") % {
                "where": where
            }
    said = _one(names[-1] if names else "", message, {})
    return f"{where}, {said[:1].lower()}{said[1:]}" if column else f"{where}: {said.lower()}"


def plain_table_problem(message: str) -> str:
    """Why a table was refused (Ruleset.validate_table's JSON Schema messages, which the
    API keeps), in words: by row and column, at most a few at a time (issue 29)."""
    match = _TABLE.match(str(message).strip())
    if not match:
        return plain_message(message)  # an engine message, said in the page's language
    said = list(dict.fromkeys(_sentence(_table_item(i)) for i in match["rest"].split("; ") if i))
    more = len(said) - _SHOWN_PROBLEMS
    shown = " ".join(said[:_SHOWN_PROBLEMS])
    if more <= 0:
        return shown
    return shown + " " + _("And %(more)s more like these.") % {"more": more}


def plain_json_problem(error: ValueError) -> str:
    """Text that is not JSON, said with where it goes wrong (not Python's message)."""
    line, column = getattr(error, "lineno", None), getattr(error, "colno", None)
    if getattr(error, "doc", None) is not None and not str(getattr(error, "doc", "")).strip():
        return _("The table is empty: write its rows, or go back to the ruleset's table.")
    if line is not None:
        return _(
            "The table is not written correctly near line %(line)s, column %(column)s: "
            "check the commas, quotes and brackets there."
        ) % {"line": line, "column": column}
    return _("The table is not written correctly: check its commas, quotes and brackets.")
