"""The engine says everything a person reads as a message, and the catalogues say it all.

Issue 37: the engine names messages and values (``rules.engine.words``), never English
sentences; the Django side says them in the reader's language. Two checks per module:

* what a person reads is never an English text made on the spot: no f-string with words
  in it, and no plain text given as a summary, a prompt, an option's label, a refusal
  or a roll's label (the AST of each module);
* every action of every ruleset, on the sample states of ``action_walk``, with its
  choices answered every way and its scheduled effects applied, says only messages, and
  the German and Spanish catalogues translate each (read with polib, pure Python).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import polib
import pytest

from rules.engine.data import PendingChoice, Result
from rules.engine.dice import Dice, DiceError, HmacGenerator
from rules.engine.interface import ActionBlocked, RuleError, Ruleset
from rules.engine.registry import all_rulesets
from rules.engine.tests.action_walk import CONTEXT, sample_params, sample_sheets
from rules.engine.words import PLAIN, Message

ENGINE = Path(__file__).resolve().parents[1]
ROOT = ENGINE.parents[1]
LANGUAGES = ("de", "es")

# Calls whose text arguments a person reads: (keyword names, positional indexes).
_SHOWN_ARGUMENTS: dict[str, tuple[frozenset[str], frozenset[int]]] = {
    "Result": (frozenset({"summary"}), frozenset({1})),
    "PendingChoice": (frozenset({"prompt"}), frozenset({1})),
    "ChoiceOption": (frozenset({"label", "confirm"}), frozenset({1, 2})),
    "ActionSpec": (frozenset({"label"}), frozenset()),
    "OutOfBounds": (frozenset({"why"}), frozenset({1})),
    "RuleError": (frozenset(), frozenset({0})),
    "ActionBlocked": (frozenset(), frozenset({0})),
    "OddsUnavailable": (frozenset(), frozenset({0})),
    "roll": (frozenset({"label"}), frozenset({1})),
    "shuffle": (frozenset({"label"}), frozenset({1})),
    "pick": (frozenset({"label"}), frozenset({1})),
}
# Errors no person reads (a programming error surfaces as a 500 and a log line).
_PROGRAMMER_ERRORS = {"TypeError", "AssertionError", "KeyError", "NotImplementedError"}


def engine_modules() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py") if "tests" not in p.relative_to(ENGINE).parts)


def _has_words(text: str) -> bool:
    return " " in text and any(c.isalpha() for c in text)


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _plain_text(node: ast.AST) -> bool:
    """A text made on the spot: a str constant with letters, an f-string, a + or %."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and any(c.isalpha() for c in node.value)
    if isinstance(node, ast.JoinedStr):
        return True
    return isinstance(node, ast.BinOp) and (_plain_text(node.left) or _plain_text(node.right))


def unsaid_texts(path: Path) -> Iterator[str]:
    """Where ``path`` makes a text a person reads without a message."""
    tree = ast.parse(path.read_text(), str(path))
    exempt: set[int] = set()
    for node in ast.walk(tree):
        call = node.exc if isinstance(node, ast.Raise) else None
        if isinstance(call, ast.Call) and _call_name(call) in _PROGRAMMER_ERRORS:
            exempt |= {id(n) for n in ast.walk(call)}
    for node in ast.walk(tree):
        if id(node) in exempt:
            continue
        if isinstance(node, ast.JoinedStr):
            literal = "".join(
                v.value
                for v in node.values
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            if _has_words(literal):
                yield f"{path.relative_to(ROOT)}:{node.lineno}: f-string {literal[:50]!r}"
        if isinstance(node, ast.Call) and _call_name(node) in _SHOWN_ARGUMENTS:
            names, positions = _SHOWN_ARGUMENTS[_call_name(node)]
            shown = [a for i, a in enumerate(node.args) if i in positions]
            shown += [k.value for k in node.keywords if k.arg in names]
            for arg in shown:
                if _plain_text(arg):
                    to = _call_name(node)
                    yield f"{path.relative_to(ROOT)}:{arg.lineno}: plain text given to {to}"


@pytest.mark.parametrize("path", engine_modules(), ids=lambda p: str(p.relative_to(ENGINE)))
def test_the_engine_makes_no_english_text_on_the_spot(path: Path) -> None:
    found = list(unsaid_texts(path))
    assert not found, "say it with rules.engine.words (say, say_plural, word):\n" + "\n".join(found)


@cache
def catalogue(language: str) -> dict[str, polib.POEntry]:
    po = polib.pofile(str(ROOT / "locale" / language / "LC_MESSAGES" / "django.po"))
    return {entry.msgid: entry for entry in po if not entry.obsolete}


def message_ids(text: str) -> Iterator[tuple[str, str]]:
    """(msgid, plural) of ``text`` and of every message among its values and parts."""
    if not isinstance(text, Message):
        return
    if text.template == PLAIN:
        # a plain text joined into a sentence (rules.engine.words.joined): not a message
        yield PLAIN, str(text.values.get("text", ""))
        return
    if text.template:
        yield text.template, text.plural
    for part in text.parts:
        yield from message_ids(part)
    for value in text.values.values():
        for item in value if isinstance(value, list | tuple) else [value]:
            yield from message_ids(item)


def _texts_of_result(result: Result) -> Iterator[tuple[str, str]]:
    yield "summary", result.summary
    for roll in result.rolls:
        yield "roll label", roll.label
    if result.pending_choice is not None:
        yield from _texts_of_choice(result.pending_choice)


def _texts_of_choice(choice: PendingChoice) -> Iterator[tuple[str, str]]:
    yield "prompt", choice.prompt
    for option in choice.options:
        yield "option", option.label
        if option.confirm:
            yield "confirm", option.confirm


def said_by(ruleset: Ruleset) -> Iterator[tuple[str, str]]:
    """(where, text) of everything the walk over ``ruleset``'s actions says."""
    generator = HmacGenerator(f"words-{ruleset.key}".encode())
    for sheet, spec in itertools.product(sample_sheets(ruleset), ruleset.actions):
        for params in sample_params(ruleset, spec):
            where = f"{ruleset.key} {spec.key} {params}"
            yield f"{where} label", spec.label
            try:
                result = ruleset.resolve(sheet, spec.key, params, Dice(generator), CONTEXT)
            except (RuleError, ActionBlocked) as refusal:
                yield f"{where} refusal", refusal.args[0] if refusal.args else ""
                continue
            except DiceError:
                continue
            for what, text in _texts_of_result(result):
                yield f"{where} {what}", text
            yield from _followed(ruleset, result, generator, where)


def _followed(
    ruleset: Ruleset, result: Result, generator: HmacGenerator, where: str
) -> Iterator[tuple[str, str]]:
    """What the choices and the scheduled effects of ``result`` say (one level down)."""
    choice = result.pending_choice
    if choice is not None:
        for option in choice.option_keys():
            try:
                chosen = ruleset.choose(result.sheet, choice, option, Dice(generator), CONTEXT)
            except (RuleError, ActionBlocked) as refusal:
                yield f"{where} choice {option} refusal", refusal.args[0] if refusal.args else ""
                continue
            for what, text in _texts_of_result(chosen):
                yield f"{where} choice {option} {what}", text
    for effect in result.effects:
        try:
            applied = ruleset.apply_effect(
                result.sheet, effect.kind, effect.payload, Dice(generator), CONTEXT
            )
        except (RuleError, ActionBlocked) as refusal:
            yield f"{where} effect {effect.kind} refusal", refusal.args[0] if refusal.args else ""
            continue
        for what, text in _texts_of_result(applied):
            yield f"{where} effect {effect.kind} {what}", text


def _problems(ruleset: Ruleset) -> list[str]:
    problems: dict[str, str] = {}
    for where, text in said_by(ruleset):
        if not str(text).strip():
            continue
        if not isinstance(text, Message):
            problems.setdefault(str(text), f"{where}: not a message: {str(text)[:80]!r}")
            continue
        for msgid, plural in message_ids(text):
            if msgid == PLAIN:
                problems.setdefault(plural, f"{where}: a plain text in a sentence: {plural[:80]!r}")
                continue
            for language in LANGUAGES:
                entry: Any = catalogue(language).get(msgid)
                if entry is None:
                    problems.setdefault(
                        f"{language}{msgid}", f"{language}: not in the catalogue: {msgid!r}"
                    )
                elif "fuzzy" in entry.flags or not (
                    entry.msgstr or any(entry.msgstr_plural.values())
                ):
                    problems.setdefault(
                        f"{language}{msgid}", f"{language}: not translated: {msgid!r}"
                    )
                elif plural and entry.msgid_plural != plural:
                    problems.setdefault(
                        f"{language}{msgid}", f"{language}: plural differs: {msgid!r}"
                    )
    return sorted(problems.values())


@pytest.mark.parametrize("ruleset", all_rulesets(), ids=lambda r: r.key)
def test_every_action_says_messages_the_catalogues_translate(ruleset: Ruleset) -> None:
    problems = _problems(ruleset)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:80])
