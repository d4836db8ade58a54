"""The engine's words as messages: what to say and with which values, not an English text.

The engine is pure Python and does not translate; it *names* what it says. A
:class:`Message` is the English sentence (it is a ``str``, so everything that reads a
summary, a prompt or a label as text keeps working) that also remembers its message id
(the English template with ``{name}`` placeholders, gettext's ``msgid``) and its values.
The Django side renders it in the reader's language with :meth:`Message.render`, giving
it gettext; the log stores :meth:`Message.data` so an entry renders in any language later.

Three ways to make one, each a keyword ``manage.py makemessages`` extracts
(``core/management/commands/makemessages.py``):

* ``say("takes {amount} damage", amount=4)``: a sentence or part with values;
* ``say_plural("{count} day", "{count} days", 3)``: the same with a plural, its number
  given as the value ``count``;
* ``word("collapsed")``: a word or label with no values (a state, an action's label).

A value is a number, a bool, ``None``, a text people typed (a name, a wound's
description: it stays as typed), another message (rendered in the same language) or a
list of those (joined with ", "). :func:`joined` puts parts together ("; " between them,
a capital and a full stop: one summary sentence).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

Translate = Callable[[str], str]
TranslatePlural = Callable[[str, str, int], str]

# A value a message may hold (checked when it is made, so a stored entry always renders).
Value = Any


def _english(text: str) -> str:
    return text


def _english_plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


class Message(str):
    """An English text that remembers how to say itself in another language.

    ``template`` is the message id; ``values`` fill its ``{name}`` placeholders;
    ``plural`` is the English plural template (then ``values["count"]`` chooses);
    ``parts`` and ``separator`` make a joined message (``template`` empty).
    """

    template: str
    values: Mapping[str, Value]
    plural: str
    parts: tuple[Message, ...]
    separator: str
    sentence: bool
    case: str  # "lower" or "capital": the first letter so (a label inside a sentence)

    def __new__(
        cls,
        template: str,
        values: Mapping[str, Value] | None = None,
        *,
        plural: str = "",
        parts: Sequence[Message] = (),
        separator: str = "",
        sentence: bool = False,
        case: str = "",
    ) -> Message:
        values = dict(values) if values else {}
        for key, value in values.items():
            _check_value(key, value)
        if plural and not isinstance(values.get("count"), int):
            raise TypeError(f"a plural message needs an int 'count': {template!r}")
        parts = tuple(parts)
        if values or plural or parts or separator or sentence or case:
            english = _render(template, values, plural, parts, separator, sentence, case)
        else:  # a word: its English is its template (what _render gives back)
            english = template
        self = super().__new__(cls, english)
        self.template = template
        self.values = values
        self.plural = plural
        self.parts = parts
        self.separator = separator
        self.sentence = sentence
        self.case = case
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Message.from_data, (self.data(),))

    def __deepcopy__(self, memo: dict[int, Any]) -> Message:
        return self  # immutable

    def __copy__(self) -> Message:
        return self

    def render(
        self, translate: Translate = _english, translate_plural: TranslatePlural = _english_plural
    ) -> str:
        """The text in the language ``translate`` (gettext) and ``translate_plural``
        (ngettext) speak; with no arguments, English."""
        return _render(
            self.template,
            self.values,
            self.plural,
            self.parts,
            self.separator,
            self.sentence,
            self.case,
            translate,
            translate_plural,
        )

    def data(self) -> dict[str, Any]:
        """JSON to store with what said it (:meth:`from_data` reads it back)."""
        if self.parts or self.separator:
            out: dict[str, Any] = {"j": [part.data() for part in self.parts], "s": self.separator}
            if self.sentence:
                out["f"] = True
            if self.case:
                out["c"] = self.case
            return out
        out = {"t": self.template}
        if self.values:
            out["v"] = {key: _value_data(value) for key, value in self.values.items()}
        if self.plural:
            out["p"] = self.plural
        if self.sentence:
            out["f"] = True
        return out

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Message:
        if "j" in data:
            return cls(
                "",
                parts=[cls.from_data(part) for part in data["j"]],
                separator=str(data.get("s", "")),
                sentence=bool(data.get("f")),
                case=str(data.get("c", "")),
            )
        values = {key: _value_from_data(value) for key, value in data.get("v", {}).items()}
        return cls(
            str(data["t"]), values, plural=str(data.get("p", "")), sentence=bool(data.get("f"))
        )


def say(template: str, /, **values: Value) -> Message:
    """A sentence or part with values: ``say("takes {amount} damage", amount=4)``."""
    if not values:
        return word(template)
    # What Message() does for these arguments, without its general case (the clock's
    # catch-up makes about 40,000; issue 39): ``values`` is this call's own dict.
    for key, value in values.items():
        if type(value) not in _PLAIN_VALUES:
            _check_value(key, value)
    self = str.__new__(Message, _render_values(template, values))
    self.template = template
    self.values = values
    self.plural = ""
    self.parts = ()
    self.separator = ""
    self.sentence = False
    self.case = ""
    return self


def say_plural(singular: str, plural: str, count: int, /, **values: Value) -> Message:
    """A message whose words follow ``count`` (given to the templates as ``{count}``)."""
    return Message(singular, {**values, "count": count}, plural=plural)


def word(text: str, /) -> Message:
    """A word or a label with no values: a state's name, an action's label.

    Made once per text: a message is never changed once made, and the engine says the
    same few words on every effect (a state, "slept through the night": about 47,000 in
    the clock's catch-up, issue 39). The texts are the code's literals, so the cache
    stays small; it stops growing at a bound all the same."""
    said = _WORDS.get(text)
    if said is None:
        said = Message(text)
        if len(_WORDS) < _WORDS_KEPT:
            _WORDS[text] = said
    return said


_WORDS: dict[str, Message] = {}
_WORDS_KEPT = 4096


def joined(parts: Iterable[str], separator: str = "; ") -> Message:
    """Parts said as one sentence: joined by ``separator``, a capital first, a full stop
    last. A part that is a plain str (not a message) is said as it is."""
    kept = [
        part if isinstance(part, Message) else Message("{text}", {"text": part})
        for part in parts
        if part
    ]
    return Message("", parts=kept, separator=separator, sentence=True)


def listed(parts: Iterable[str]) -> Message:
    """Parts joined with ", " inside a sentence (no capital, no full stop)."""
    kept = [
        part if isinstance(part, Message) else Message("{text}", {"text": part})
        for part in parts
        if part
    ]
    return Message("", parts=kept, separator=", ")


def lowered(text: str) -> Message:
    """``text`` with its first letter in lower case, in every language: an action's label
    inside a sentence ("The odds of take damage ...")."""
    return Message("", parts=[_as_message(text)], case="lower")


def capitalised(text: str) -> Message:
    """``text`` with its first letter in upper case (a state word as a label)."""
    return Message("", parts=[_as_message(text)], case="capital")


def as_sentence(message: Message) -> Message:
    """``message`` with a capital first and a full stop last (when it has none)."""
    if message.parts or message.separator:
        return Message("", parts=message.parts, separator=message.separator, sentence=True)
    return Message(message.template, message.values, plural=message.plural, sentence=True)


def sentences(parts: Iterable[str]) -> Message:
    """Parts said as sentences one after the other (each a capital and a full stop)."""
    kept = [as_sentence(_as_message(part)) for part in parts if part.strip()]
    return Message("", parts=kept, separator=" ")


def text_dict(name: str, text: str) -> dict[str, Any]:
    """``{name: text}`` to store, and ``{name}_said`` beside it when ``text`` is a message
    (its data, to say it in another language later)."""
    if isinstance(text, Message):
        return {name: str(text), f"{name}_said": text.data()}
    return {name: str(text)}


def text_said(name: str, data: Mapping[str, Any]) -> str:
    """The text stored under ``name`` (:func:`text_dict`): the message when its data is
    stored beside it, else the English text as stored (entries older than messages)."""
    said = data.get(f"{name}_said")
    if isinstance(said, Mapping):
        try:
            return Message.from_data(said)
        except (KeyError, TypeError, ValueError):
            pass
    return str(data.get(name, ""))


# The template of a plain text (not a message) put into a sentence: said as it is.
PLAIN = "{text}"


def stored_text(
    text: str,
    data: Mapping[str, Any] | None,
    translate: Translate = _english,
    translate_plural: TranslatePlural = _english_plural,
) -> str:
    """A stored text said again from its message ``data`` (:meth:`Message.data`) in the
    language ``translate`` speaks; ``text`` as stored when there is no data or it does
    not read (rows written before messages)."""
    if data:
        try:
            return Message.from_data(data).render(translate, translate_plural)
        except (KeyError, TypeError, ValueError, AttributeError):
            pass
    return text


def _as_message(part: str) -> Message:
    return part if isinstance(part, Message) else Message(PLAIN, {"text": part.strip()})


# A message's values that need no check: the common ones, by their exact type.
_PLAIN_VALUES = frozenset({int, str, float, bool, type(None)})


def _check_value(key: str, value: Value) -> None:
    if value is None or isinstance(value, bool | int | float | str):
        return
    if isinstance(value, list | tuple):
        for item in value:
            _check_value(key, item)
        return
    raise TypeError(f"message value {key!r} is a {type(value).__name__}")


def _value_data(value: Value) -> Any:
    if isinstance(value, Message):
        return {"m": value.data()}
    if isinstance(value, list | tuple):
        return [_value_data(item) for item in value]
    if isinstance(value, str):
        return str(value)
    return value


def _value_from_data(value: Any) -> Value:
    if isinstance(value, dict):
        return Message.from_data(value["m"])
    if isinstance(value, list):
        return [_value_from_data(item) for item in value]
    return value


def _render_values(template: str, values: Mapping[str, Value]) -> str:
    """:func:`_render`'s English for a message of ``template`` and its ``values`` alone
    (no plural, parts or case): a value that is a message says its own English."""
    shown = {
        key: value
        if type(value) is str or type(value) is Message
        else str(value)
        if type(value) is int
        else _value_text(value, _english, _english_plural)
        for key, value in values.items()
    }
    try:
        return template.format(**shown)
    except (KeyError, IndexError, ValueError):
        return template  # as _render: a broken placeholder must not hide what happened


def _render(
    template: str,
    values: Mapping[str, Value],
    plural: str,
    parts: tuple[Message, ...],
    separator: str,
    sentence: bool,
    case: str = "",
    translate: Translate = _english,
    translate_plural: TranslatePlural = _english_plural,
) -> str:
    if parts or separator:
        text = separator.join(
            _said_part(part, translate, translate_plural) for part in parts if str(part)
        )
    else:
        if plural:
            chosen = translate_plural(template, plural, int(values["count"]))
        else:
            chosen = translate(template) if template else template
        if values:
            shown = {
                key: _value_text(value, translate, translate_plural)
                for key, value in values.items()
            }
            try:
                text = chosen.format(**shown)
            except (KeyError, IndexError, ValueError):
                # A catalogue's broken placeholder must not hide what happened.
                text = template.format(**shown) if chosen != template else chosen
        else:
            text = chosen
    if case == "lower":
        text = text[:1].lower() + text[1:]
    elif case == "capital":
        text = text[:1].upper() + text[1:]
    if sentence and text:
        text = text[:1].upper() + text[1:]
        if text[-1] not in ".!?":
            text += "."
    return text


def _said_part(part: Message, translate: Translate, translate_plural: TranslatePlural) -> str:
    # In English a message is its own text, rendered once when it was made: a sentence
    # of many parts is not rendered again part by part (the clock makes thousands).
    if translate is _english and translate_plural is _english_plural:
        return str.__str__(part)
    return part.render(translate, translate_plural)


def _value_text(value: Value, translate: Translate, translate_plural: TranslatePlural) -> str:
    if isinstance(value, Message):
        return _said_part(value, translate, translate_plural)
    if isinstance(value, list | tuple):
        return ", ".join(_value_text(item, translate, translate_plural) for item in value)
    if isinstance(value, bool):
        return (YES if value else NO).render(translate, translate_plural)
    if value is None:
        return NONE.render(translate, translate_plural)
    if isinstance(value, str):
        return value
    return json.dumps(value) if not isinstance(value, int | float) else str(value)


# How a bool or an empty value reads inside a sentence.
YES = word("yes")
NO = word("no")
NONE = word("none")
