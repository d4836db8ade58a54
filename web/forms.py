"""Forms built from JSON Schemas: an action's params, a new character's first fields.

The rules engine describes every action's params as a closed JSON Schema
(``rules.engine.interface.params_schema``). :func:`schema_fields` turns one into form
fields the templates draw (``templates/characters/_field.html``) and
:func:`parse_params` reads the posted form back into params. Only the conversion from
text lives here; whether the params make sense is the ruleset's decision
(``Ruleset.resolve`` raises ``RuleError`` with a sentence the page shows).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict

from web import rulesets

PREFIX = "p."
PAIR_ROWS = 3  # empty name/value rows offered for an open object (ability losses...)
LONG_TEXT = 120  # strings allowed to be longer than this get a textarea


def humanize(key: str) -> str:
    """``major_wound_marks`` -> "Major wound marks"."""
    text = key.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


@dataclass
class FormField:
    """One control (or group of controls) of a schema-built form."""

    key: str
    name: str  # the HTML name, PREFIX + dotted path
    label: str
    kind: str  # number, checkbox, tristate, select, text, textarea, list, group, pairs, json
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
        label=str(schema.get("title") or humanize(key)),
        kind="json",
        required=required,
        help=str(schema.get("description", "")),
        nullable=nullable,
    )
    default = schema.get("default")
    current = value if value is not None else default
    if choices is not None and types in (["integer"], ["string"]):
        base.kind = "select"
        base.choices = choices
        base.integer_choices = types == ["integer"]
        base.value = _text(current)
        return base
    if "enum" in schema and all(isinstance(v, str) for v in schema["enum"]):
        base.kind = "select"
        base.choices = [(v, humanize(v)) for v in schema["enum"]]
        base.value = _text(current)
        return base
    if types == ["integer"] or types == ["number"]:
        base.kind = "number"
        base.minimum = schema.get("minimum")
        base.maximum = schema.get("maximum")
        base.step = "1" if types == ["integer"] else "any"
        base.value = _text(current)
        return base
    if types == ["boolean"]:
        if required or default is not None:
            base.kind = "checkbox"
            base.value = bool(current)
        else:  # no default: "leave it to the rules" must stay possible
            base.kind = "tristate"
            base.value = "" if current is None else _text(current)
        return base
    if types == ["string"]:
        base.max_length = schema.get("maxLength")
        base.kind = "textarea" if (base.max_length or 10**6) > LONG_TEXT else "text"
        base.value = _text(current)
        return base
    items = schema.get("items")
    if types == ["array"] and isinstance(items, Mapping) and _types(items) == ["string"]:
        base.kind = "list"  # words separated by commas (a warband turn's phases)
        base.value = ", ".join(map(str, current)) if isinstance(current, list) else _text(current)
        return base
    if types == ["object"]:
        properties = schema.get("properties")
        extra = schema.get("additionalProperties")
        if properties:
            needed = set(schema.get("required", ()))
            given = current if isinstance(current, Mapping) else {}
            base.kind = "group"
            base.children = [
                build_field(
                    sub,
                    sub_schema,
                    name=f"{name}.{sub}",
                    required=sub in needed,
                    value=given.get(sub),
                )
                for sub, sub_schema in properties.items()
            ]
            return base
        if isinstance(extra, Mapping) and _types(extra) == ["integer"]:
            names = schema.get("propertyNames", {}).get("enum")
            given = current if isinstance(current, Mapping) else {}
            if names:
                base.kind = "group"
                base.children = [
                    build_field(n, extra, name=f"{name}.{n}", required=False, value=given.get(n))
                    for n in names
                ]
            else:
                base.kind = "pairs"
                rows = [(str(k), _text(v)) for k, v in given.items()]
                base.pairs = rows + [("", "")] * max(1, PAIR_ROWS - len(rows))
                base.minimum = extra.get("minimum")
                base.maximum = extra.get("maximum")
            return base
    base.value = "" if current is None else json.dumps(current)
    return base


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


def _read(field_: FormField, data: QueryDict) -> tuple[bool, Any]:
    """(present, value) of one control in the posted data."""
    if field_.kind == "checkbox":
        return True, data.get(field_.name) in {"on", "true", "1"}
    if field_.kind == "group":
        group: dict[str, Any] = {}
        for child in field_.children:
            present, value = _read(child, data)
            if present:
                group[child.key] = value
        return bool(group) or field_.required, group
    if field_.kind == "pairs":
        pairs: dict[str, Any] = {}
        names = data.getlist(field_.name + ".key")
        numbers = data.getlist(field_.name + ".value")
        for pair_name, number in zip(names, numbers, strict=False):
            pair_name, number = pair_name.strip(), number.strip()
            if not pair_name and not number:
                continue
            if not pair_name:
                raise ParamsError(f"{field_.label}: give a name for {number}")
            pairs[pair_name] = _number(field_, number)
        return bool(pairs) or field_.required, pairs
    raw = data.get(field_.name)
    if raw is None:
        return False, None
    raw = raw.strip()
    if raw == "":
        if field_.kind in {"text", "textarea"} and field_.required:
            return True, ""
        if field_.nullable and field_.required:
            return True, None
        return False, None
    if field_.kind == "number":
        return True, _number(field_, raw)
    if field_.kind == "list":
        return True, [word.strip() for word in raw.split(",") if word.strip()]
    if field_.kind == "tristate":
        return True, raw == "true"
    if field_.integer_choices:  # choices drawn from the sheet (a wound's id)
        return True, _number(field_, raw)
    if field_.kind == "json":
        try:
            return True, json.loads(raw)
        except json.JSONDecodeError:
            raise ParamsError(f"{field_.label}: not valid JSON") from None
    return True, raw


def _number(field_: FormField, raw: str) -> int | float:
    try:
        return int(raw) if field_.step == "1" else float(raw)
    except ValueError:
        what = "a whole number" if field_.step == "1" else "a number"
        raise ParamsError(f"{field_.label}: enter {what}, not {raw!r}") from None


def parse_params(fields: list[FormField], data: QueryDict) -> dict[str, Any]:
    """The params a posted form means; absent optional controls are left out."""
    params: dict[str, Any] = {}
    for field_ in fields:
        present, value = _read(field_, data)
        if present:
            params[field_.key] = value
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
        elif data.get(field_.name) not in (None, ""):
            values[field_.key] = data.get(field_.name)
    return values
