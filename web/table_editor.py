"""A table as rows to edit (issue 29): one line per row, one field per column, rows
added, removed and moved; the JSON stays as the advanced view.

The shape comes from the table's JSON Schema (``Ruleset.table_schema``), in one of
three forms the rulesets use:

* a list of rows (old school's critical injuries);
* an object holding its ``rows`` beside a few fields of the whole table (the warband
  Scars table: its dice, then its rows);
* named entries (old school's diseases): each row's name is its key.

A column of plain values (whole numbers, words, yes/no) is a field of its own; a
column holding more (an effect with its kind and amounts) is written as JSON in its
cell. The posted rows become the table's data again, checked by the ruleset as any edit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from web.forms import humanize

NAME = "name"  # the column holding a named entry's key


@dataclass
class Column:
    key: str
    label: str
    kind: str  # number, text, yesno, json
    required: bool = False
    nullable: bool = False


@dataclass
class Shape:
    form: str  # list, rows, named
    columns: list[Column]
    heads: list[Column] = field(default_factory=list)  # the whole table's own fields


def _types(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return []
    kind = schema.get("type")
    if isinstance(kind, list):
        return [str(k) for k in kind]
    return [str(kind)] if kind else []


def _column(key: str, schema: Any, required: bool) -> Column:
    types = _types(schema)
    nullable = "null" in types or any(
        _types(s) == ["null"] for s in (schema.get("anyOf", []) if isinstance(schema, dict) else [])
    )
    plain = [t for t in types if t != "null"]
    kind = {"integer": "number", "number": "number", "string": "text", "boolean": "yesno"}.get(
        plain[0] if len(plain) == 1 else "", "json"
    )
    return Column(key, humanize(key), kind, required, nullable)


def _columns(row_schema: Any) -> list[Column]:
    if not isinstance(row_schema, dict) or not isinstance(row_schema.get("properties"), dict):
        return []
    needed = set(row_schema.get("required", ()))
    return [_column(k, s, k in needed) for k, s in row_schema["properties"].items()]


def shape_of(schema: dict[str, Any]) -> Shape | None:
    """How the table is edited as rows; None when it is not made of rows."""
    types = _types(schema)
    if types == ["array"] and (columns := _columns(schema.get("items"))):
        return Shape("list", columns)
    properties = schema.get("properties")
    if types == ["object"] and isinstance(properties, dict) and "rows" in properties:
        rows = properties["rows"]
        if _types(rows) == ["array"] and (columns := _columns(rows.get("items"))):
            needed = set(schema.get("required", ()))
            heads = [_column(k, s, k in needed) for k, s in properties.items() if k != "rows"]
            return Shape("rows", columns, heads)
    entries = schema.get("additionalProperties")
    if types == ["object"] and (columns := _columns(entries)):
        return Shape("named", [Column(NAME, _("Name"), "text", True), *columns])
    return None


def _shown(column: Column, value: Any) -> str:
    if value is None:
        return ""
    if column.kind == "yesno":
        return "yes" if value else "no"
    if column.kind == "json":
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def rows_of(shape: Shape, data: Any) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The table's fields and rows as the editor's text, column by column."""
    heads: dict[str, str] = {}
    if shape.form == "list":
        rows = data if isinstance(data, list) else []
    elif shape.form == "rows":
        data = data if isinstance(data, dict) else {}
        heads = {c.key: _shown(c, data.get(c.key)) for c in shape.heads}
        rows = data.get("rows") if isinstance(data.get("rows"), list) else []
    else:
        entries = data if isinstance(data, dict) else {}
        rows = [
            {NAME: name, **(row if isinstance(row, dict) else {})} for name, row in entries.items()
        ]
    return heads, [
        {c.key: _shown(c, row.get(c.key)) for c in shape.columns}
        for row in rows
        if isinstance(row, dict)
    ]


def posted_rows(shape: Shape, post: Any) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The editor's text as posted: the table's fields and every row, in order."""
    heads = {c.key: str(post.get(f"head-{c.key}", "")) for c in shape.heads}
    count = min(int(post.get("rows", "0") or 0) if str(post.get("rows", "0")).isdigit() else 0, 500)
    rows = [
        {c.key: str(post.get(f"row-{i}-{c.key}", "")) for c in shape.columns} for i in range(count)
    ]
    return heads, rows


def edited(rows: list[dict[str, str]], shape: Shape, what: str) -> list[dict[str, str]]:
    """The rows after the button pressed: add a row, remove, move one up or down."""
    rows = list(rows)
    if what == "add":
        return [*rows, {c.key: "" for c in shape.columns}]
    verb, _dash, number = what.partition("-")
    if not number.isdigit() or not 0 <= int(number) < len(rows):
        return rows
    index = int(number)
    if verb == "remove":
        del rows[index]
    elif verb == "up" and index > 0:
        rows[index - 1], rows[index] = rows[index], rows[index - 1]
    elif verb == "down" and index < len(rows) - 1:
        rows[index + 1], rows[index] = rows[index], rows[index + 1]
    return rows


class CellProblem(ValueError):
    """A cell that cannot even be read (words in a number, JSON that is not)."""


def _value(column: Column, text: str, where: str) -> Any:
    text = text.strip()
    if text == "":
        return None
    if column.kind == "number":
        try:
            return int(text)
        except ValueError:
            raise CellProblem(
                _("%(where)s, %(column)s: write a whole number.")
                % {"where": where, "column": column.label.lower()}
            ) from None
    if column.kind == "yesno":
        return text.lower() in {"yes", "true", "on", "1"}
    if column.kind == "json":
        try:
            return json.loads(text)
        except ValueError:
            raise CellProblem(
                _(
                    "%(where)s, %(column)s: not written correctly; see the table as JSON for "
                    "its form."
                )
                % {"where": where, "column": column.label.lower()}
            ) from None
    return text


def _row(columns: list[Column], texts: dict[str, str], where: str) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for column in columns:
        value = _value(column, texts.get(column.key, ""), where)
        if value is None and not column.nullable:
            if column.kind == "text" and column.required:
                row[column.key] = ""  # said by the rules: it cannot be empty
            continue
        row[column.key] = value
    return row


def table_data(shape: Shape, heads: dict[str, str], rows: list[dict[str, str]]) -> Any:
    """The table's JSON from the editor's text (the ruleset checks it next)."""
    built = [
        _row(shape.columns, texts, _("Row %(number)s") % {"number": n})
        for n, texts in enumerate(rows, start=1)
    ]
    if shape.form == "list":
        return built
    if shape.form == "rows":
        top = _row(shape.heads, heads, _("The table"))
        return {**top, "rows": built}
    named: dict[str, Any] = {}
    for number, row in enumerate(built, start=1):
        name = str(row.pop(NAME, "")).strip()
        if not name:
            raise CellProblem(_("Row %(number)s needs a name.") % {"number": number})
        if name in named:
            raise CellProblem(
                _("Row %(number)s: another row already has the name %(name)s.")
                % {"number": number, "name": name}
            )
        named[name] = row
    return named
