"""Forms built from JSON Schemas: an action's params, a new character's first fields.

The rules engine describes every action's params as a closed JSON Schema
(``rules.engine.schemas.params_schema``). :func:`schema_fields` turns one into form
fields the templates draw (``templates/characters/_field.html``) and
:func:`parse_params` reads the posted form back into params through a django form
(:class:`ParamsForm`, one :class:`ControlField` per control). Only the conversion from
text lives here; whether the params make sense is the ruleset's decision
(``Ruleset.resolve`` raises ``RuleError`` with a sentence the page shows).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _

from core.said import said
from rules.engine.words import Message
from web import rulesets

PREFIX = "p."
PAIR_ROWS = 3  # empty name/value rows offered for an open object (ability losses...)
LONG_TEXT = 120  # strings allowed to be longer than this get a textarea


def humanize(key: str) -> str:
    """``major_wound_marks`` -> "Major wound marks", in the page's language: the English
    words are a message id (``web/engine_words.py`` lists every sheet, params, options
    and table key and enum value of every ruleset, so the catalogues hold them)."""
    text = english_words(key)
    return _(text) if text else text


def english_words(key: str) -> str:
    """``major_wound_marks`` -> "Major wound marks": :func:`humanize`'s message id."""
    text = key.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def schema_words(text: Any) -> str:
    """A JSON Schema's ``title`` or ``description`` in the page's language: the engine's
    message (rules.engine.words), else the text as a message id (the catalogue has it
    when the ruleset marks it), else as written."""
    if isinstance(text, Message):
        return said(text)
    text = "" if text is None else str(text)
    return _(text) if text.strip() else ""


def choice_words(value: Any) -> str:
    """A choice of a select in words: ``"none"`` reads "Nothing" (issue 34: "None" is
    what a program says), any other value as :func:`humanize` says it."""
    return _("Nothing") if value in ("none", None) else humanize(str(value))


@dataclass
class FormField:
    """One control (or group of controls) of a schema-built form."""

    key: str
    name: str  # the HTML name, PREFIX + dotted path
    label: str
    # number, checkbox, tristate, select, multiselect, text, textarea, list, group, pairs, json
    kind: str
    required: bool = False
    help: str = ""
    minimum: int | float | None = None
    maximum: int | float | None = None
    step: str = "1"
    max_length: int | None = None
    choices: list[tuple[str, str]] = field(default_factory=list)
    value: Any = None
    children: list[FormField] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    nullable: bool = False
    integer_choices: bool = False  # a select whose options stand for integers
    placeholder: str = ""  # what an empty control means (the rules' default)

    @property
    def html_id(self) -> str:
        return "f-" + self.name.replace(".", "-")


def _types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, list):
        return [str(k) for k in kind]
    if kind is None and "enum" in schema:
        return ["enum"]
    return [str(kind)] if kind else []


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def build_field(
    key: str,
    schema: Mapping[str, Any],
    *,
    name: str,
    required: bool,
    value: Any = None,
    choices: list[tuple[str, str]] | None = None,
) -> FormField:
    """The control for one property of a JSON Schema."""
    types = _types(schema)
    nullable = "null" in types
    types = [t for t in types if t != "null"]
    base = FormField(
        key=key,
        name=name,
        label=schema_words(schema.get("title")) or humanize(key),
        kind="json",
        required=required,
        help=schema_words(schema.get("description")),
        nullable=nullable,
    )
    current = value if value is not None else schema.get("default")
    if (
        _as_select(base, schema, types, current, choices)
        or _as_scalar(base, schema, types, current)
        or _as_word_list(base, schema, types, current)
        or _as_object(base, schema, types, current)
    ):
        return base
    base.value = "" if current is None else json.dumps(current)  # JSON typed by hand
    return base


def _as_select(
    base: FormField,
    schema: Mapping[str, Any],
    types: list[str],
    current: Any,
    choices: list[tuple[str, str]] | None,
) -> bool:
    """A select of the choices given, or of the schema's words; False if neither."""
    if choices is not None and types in (["integer"], ["string"]):
        base.kind = "select"
        base.choices = choices
        base.integer_choices = types == ["integer"]
        base.value = _text(current)
        return True
    if "enum" in schema and all(isinstance(v, str) for v in schema["enum"]):
        base.kind = "select"
        base.choices = [(v, choice_words(v)) for v in schema["enum"]]
        base.value = _text(current)
        return True
    return False


def _as_scalar(base: FormField, schema: Mapping[str, Any], types: list[str], current: Any) -> bool:
    """A number, a yes/no or a text control; False for other types."""
    if types == ["integer"] or types == ["number"]:
        base.kind = "number"
        base.minimum = schema.get("minimum")
        base.maximum = schema.get("maximum")
        base.step = "1" if types == ["integer"] else "any"
        base.value = _text(current)
        return True
    if types == ["boolean"]:
        if base.required or schema.get("default") is not None:
            base.kind = "checkbox"
            base.value = bool(current)
        else:  # no default: "leave it to the rules" must stay possible
            base.kind = "tristate"
            base.value = "" if current is None else _text(current)
            # a Yes/No select, not a box: its help says Yes and No (issue 29), in the
            # words the page's language has for them
            unticked, ticked = re.escape(_("Unticked")), re.escape(_("Ticked"))
            base.help = re.sub(rf"\b{unticked}\b", _("No"), base.help)
            base.help = re.sub(rf"\b{ticked}\b", _("Yes"), base.help)
        return True
    if types == ["string"]:
        base.max_length = schema.get("maxLength")
        base.kind = "textarea" if (base.max_length or 10**6) > LONG_TEXT else "text"
        base.value = _text(current)
        return True
    return False


def _as_word_list(
    base: FormField, schema: Mapping[str, Any], types: list[str], current: Any
) -> bool:
    """An array of strings: picked from its known words, or typed; False otherwise."""
    items = schema.get("items")
    if not (types == ["array"] and isinstance(items, Mapping) and _types(items) == ["string"]):
        return False
    default = schema.get("default")
    if isinstance(default, list) and schema.get("uniqueItems"):
        # a set of words with a known list (a warband turn's phases): picked, not typed;
        # the options keep their order, so the picks come back in it (issue 29)
        chosen = [str(v) for v in current] if isinstance(current, list) else []
        base.kind = "multiselect"
        base.choices = [(v, humanize(v)) for v in _merged(chosen, [str(d) for d in default])]
        base.value = chosen
        return True
    base.kind = "list"  # words separated by commas
    base.value = ", ".join(map(str, current)) if isinstance(current, list) else _text(current)
    return True


def _as_object(base: FormField, schema: Mapping[str, Any], types: list[str], current: Any) -> bool:
    """An object as a group of its properties' controls, or of named whole numbers, or as
    pairs of a name and a number; False for an object it cannot show so."""
    if types != ["object"]:
        return False
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    given = current if isinstance(current, Mapping) else {}
    if properties:
        needed = set(schema.get("required", ()))
        base.kind = "group"
        base.children = [
            build_field(
                sub,
                sub_schema,
                name=f"{base.name}.{sub}",
                required=sub in needed,
                value=given.get(sub),
            )
            for sub, sub_schema in properties.items()
        ]
        return True
    if not (isinstance(extra, Mapping) and _types(extra) == ["integer"]):
        return False
    names = schema.get("propertyNames", {}).get("enum")
    if names:
        base.kind = "group"
        base.children = [
            build_field(n, extra, name=f"{base.name}.{n}", required=False, value=given.get(n))
            for n in names
        ]
    else:
        base.kind = "pairs"
        rows = [(str(k), _text(v)) for k, v in given.items()]
        base.pairs = rows + [("", "")] * max(1, PAIR_ROWS - len(rows))
        base.minimum = extra.get("minimum")
        base.maximum = extra.get("maximum")
    return True


def _merged(chosen: list[str], known: list[str]) -> list[str]:
    """The chosen words in their order, with each known one not chosen put back after
    the known word before it (a phase left out returns to its place)."""
    merged = list(chosen)
    for index, word in enumerate(known):
        if word in merged:
            continue
        before = [k for k in known[:index] if k in merged]
        merged.insert(merged.index(before[-1]) + 1 if before else 0, word)
    return merged


def schema_fields(
    schema: Mapping[str, Any],
    *,
    values: Mapping[str, Any] | None = None,
    only: tuple[str, ...] | None = None,
    ruleset: str = "",
    sheet: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
    prefix: str = PREFIX,
) -> list[FormField]:
    """Controls for every property of an object schema (or the ``only`` ones, in order).

    With ``defaults`` (a new character's default sheet) every control is optional, says
    its default as a placeholder and leaves out the schema's description.
    """
    properties: Mapping[str, Any] = schema.get("properties", {})
    needed = set(schema.get("required", ()))
    keys = [k for k in only if k in properties] if only is not None else list(properties)
    given = values or {}
    fields = []
    for key in keys:
        source = rulesets.sheet_choices(ruleset, key) if ruleset else None
        choices = source(sheet or {}) if source is not None else None
        control = build_field(
            key,
            properties[key],
            name=prefix + key,
            required=key in needed and defaults is None,
            value=given.get(key),
            choices=choices or None,
        )
        if source is not None:  # picked from the sheet: the schema's note is for programs
            control.help = (
                ""
                if choices
                else _("No %(what)s on the sheet to pick.") % {"what": control.label.lower()}
            )
        if defaults is not None:
            control.help = ""
            if key in defaults:
                default = defaults[key]
                labels = dict(control.choices)
                control.placeholder = labels.get(_text(default)) or humanize(_text(default))
        fields.append(control)
    return fields


class ParamsError(ValueError):
    """A posted value cannot even be read (text in a number field...)."""


class _Posted(forms.Widget):
    """Reads one control's raw value from the posted data, as its template draws it."""

    def __init__(self, control: FormField) -> None:
        super().__init__()
        self.control = control

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        if self.control.kind == "checkbox":
            return data.get(name) in {"on", "true", "1"}
        if self.control.kind == "pairs":
            names, numbers = data.getlist(name + ".key"), data.getlist(name + ".value")
            return list(zip(names, numbers, strict=False))
        if self.control.kind == "multiselect":
            # the picks, in the options' order (a client may send them as words with
            # commas too), then the ones typed in beside, before the last pick
            picked = [w.strip() for v in data.getlist(name) for w in str(v).split(",")]
            picked = [w for w in picked if w]
            more = [w.strip() for w in str(data.get(name + ".more", "")).split(",") if w.strip()]
            return [*picked[:-1], *more, *picked[-1:]] if more else picked
        return data.get(name)


class ControlField(forms.Field):
    """The django form field of one control: ``clean`` turns the posted text into the
    param's JSON value, or :data:`ABSENT` when the control leaves it to the rules. Whether
    the value makes sense is the ruleset's decision, so no range is checked here."""

    def __init__(self, control: FormField) -> None:
        super().__init__(required=False, widget=_Posted(control))
        self.control = control

    def clean(self, value: Any) -> Any:
        control = self.control
        if control.kind == "checkbox":
            return bool(value)
        if control.kind == "pairs":
            pairs: dict[str, Any] = {}
            for pair_name, number in value:
                pair_name, number = pair_name.strip(), number.strip()
                if not pair_name and not number:
                    continue
                if not pair_name:
                    raise forms.ValidationError(
                        _("%(label)s: give a name for %(number)s")
                        % {"label": control.label, "number": number}
                    )
                pairs[pair_name] = _number(control, number)
            return pairs if pairs or control.required else ABSENT
        if control.kind == "multiselect":
            return list(value)
        if value is None:
            return ABSENT
        raw = str(value).strip()
        if raw == "":
            if control.kind in {"text", "textarea"} and control.required:
                return ""
            if control.nullable and control.required:
                return None
            return ABSENT
        if control.kind == "number" or control.integer_choices:
            return _number(control, raw)
        if control.kind == "tristate":
            return raw == "true"
        if control.kind == "list":
            return [word.strip() for word in raw.split(",") if word.strip()]
        if control.kind == "json":
            try:
                return json.loads(raw)
            except json.JSONDecodeError:
                raise forms.ValidationError(
                    _("%(label)s: not valid JSON") % {"label": control.label}
                ) from None
        return raw


ABSENT: Any = object()  # a control left empty: the param is not sent


def _number(control: FormField, raw: str) -> int | float:
    try:
        return int(raw) if control.step == "1" else float(raw)
    except ValueError:
        words = (
            _("%(label)s: enter a whole number, not %(raw)s")
            if control.step == "1"
            else _("%(label)s: enter a number, not %(raw)s")
        )
        raise forms.ValidationError(words % {"label": control.label, "raw": repr(raw)}) from None


def _leaves(controls: list[FormField]) -> list[FormField]:
    return [
        leaf
        for control in controls
        for leaf in (_leaves(control.children) if control.kind == "group" else [control])
    ]


class ParamsForm(forms.Form):
    """A django form over schema-built controls (fields named by their HTML names);
    ``cleaned_data["params"]`` is the params object, groups folded back together."""

    def __init__(self, controls: list[FormField], data: QueryDict) -> None:
        super().__init__(data)
        self.controls = controls
        for control in _leaves(controls):
            self.fields[control.name] = ControlField(control)

    def _gather(self, controls: list[FormField]) -> dict[str, Any]:
        gathered: dict[str, Any] = {}
        for control in controls:
            if control.kind == "group":
                group = self._gather(control.children)
                if group or control.required:
                    gathered[control.key] = group
                continue
            value = self.cleaned_data.get(control.name, ABSENT)
            if value is not ABSENT:
                gathered[control.key] = value
        return gathered

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.errors:
            cleaned["params"] = self._gather(self.controls)
        return cleaned


def parse_params(fields: list[FormField], data: QueryDict) -> dict[str, Any]:
    """The params a posted form means; absent optional controls are left out."""
    form = ParamsForm(fields, data)
    if not form.is_valid():
        first = next(iter(form.errors.values()))
        raise ParamsError(first[0])
    params: dict[str, Any] = form.cleaned_data["params"]
    return params


def posted_values(fields: list[FormField], data: QueryDict) -> dict[str, Any]:
    """What the user typed, to draw the form again beside an error."""
    values: dict[str, Any] = {}
    for field_ in fields:
        if field_.kind == "checkbox":
            values[field_.key] = data.get(field_.name) in {"on", "true", "1"}
        elif field_.kind == "group":
            values[field_.key] = {
                child.key: data.get(child.name) for child in field_.children if data.get(child.name)
            }
        elif field_.kind == "pairs":
            names = data.getlist(field_.name + ".key")
            numbers = data.getlist(field_.name + ".value")
            values[field_.key] = {
                k.strip(): v.strip() for k, v in zip(names, numbers, strict=False) if k.strip()
            }
        elif field_.kind == "multiselect":
            values[field_.key] = _Posted(field_).value_from_datadict(data, None, field_.name)
        elif data.get(field_.name) not in (None, ""):
            values[field_.key] = data.get(field_.name)
    return values
