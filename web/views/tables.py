"""The ruleset tables in the browser (issue 13): the referee edits the campaign's copy of
a table (critical injuries, diseases, scars...) row by row (web.table_editor, issue 29),
or as JSON (the advanced view), previews it as a table, checked by the ruleset
(``Ruleset.validate_table``) before anything is saved; or returns to the
ruleset's default. The API does the same (``PUT/DELETE campaigns/{id}/tables/{key}/``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from rules.engine.interface import RuleError, Ruleset
from rules.engine.registry import get_ruleset
from rules.log.selectors import campaign_tables_view
from rules.play.services import campaign_table_reset, campaign_table_set
from web.forms import humanize
from web.plain import error_text, plain_json_problem, plain_table_problem, strip_rulings
from web.referee import referee_membership
from web.table_editor import (
    CellProblem,
    Shape,
    edited,
    posted_rows,
    rows_of,
    shape_of,
    table_data,
)

MAX_TEXT = 500_000


def preview(data: Any) -> dict[str, Any]:
    """Rows and columns to draw a table: a list of entries, or named entries."""
    if isinstance(data, dict):
        items = [
            {"name": name, **(row if isinstance(row, dict) else {"value": row})}
            for name, row in data.items()
        ]
    elif isinstance(data, list):
        items = [row if isinstance(row, dict) else {"value": row} for row in data]
    else:
        items = [{"value": data}]
    columns: list[str] = []
    for row in items:
        for key in row:
            if key not in columns:
                columns.append(key)
    cells = [[_cell(row.get(column)) for column in columns] for row in items]
    return {"columns": [humanize(c) for c in columns], "rows": cells}


def _cell(value: Any) -> str:
    """A value as a referee reads it: yes and no, words for the rules' names, no ruling
    ids (they are for the docs), nothing for what is not set."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        shown = ((humanize(str(k)), _cell(v)) for k, v in value.items())
        return ", ".join(f"{k}: {v}" for k, v in shown if v)
    if isinstance(value, list):
        return "; ".join(_cell(v) for v in value)
    text = str(value)
    if re.fullmatch(r"[a-z]+(?:_[a-z0-9]+)+", text):
        return humanize(text).lower()
    return strip_rulings(text)


def _without_rows(data: Any) -> bool:
    """A table nothing can come up on: no entries, or (dice and rows) no rows."""
    if isinstance(data, dict) and isinstance(data.get("rows"), list):
        return not data["rows"]
    return not data


@dataclass
class _Edit:
    """A table's edit as posted: the editor's text (fields and rows, or the JSON), the
    table's data once read and checked (None otherwise), and what is wrong in words."""

    heads: dict[str, str]
    rows: list[dict[str, str]]
    text: str
    data: Any = None
    problem: str = ""


def _read_rows(edit: _Edit, shape: Shape, post: Any, ruleset: Ruleset, key: str, what: str) -> None:
    """The edit posted from the rows editor: a row added, removed or moved (not checked
    yet), or the rows read as the table's data and checked by the ruleset."""
    edit.heads, edit.rows = posted_rows(shape, post)
    if what not in {"preview", "save"}:  # add, remove or move a row: not checked yet
        edit.rows = edited(edit.rows, shape, what)
        return
    try:
        data = table_data(shape, edit.heads, edit.rows)
        ruleset.validate_table(key, data)
    except CellProblem as problem:
        edit.problem = str(problem)
    except RuleError as problem:
        edit.problem = plain_table_problem(error_text(problem))
    else:
        edit.data, edit.text = data, json.dumps(data, indent=2, ensure_ascii=False)


def _read_json(edit: _Edit, shape: Shape | None, post: Any, ruleset: Ruleset, key: str) -> None:
    """The edit posted as JSON text, read and checked by the ruleset; shown as rows too
    where the table is made of rows."""
    edit.text = str(post.get("data", ""))[:MAX_TEXT]
    try:
        data = json.loads(edit.text)
        ruleset.validate_table(key, data)
    except ValueError as problem:
        # RuleError is a ValueError, so the ruleset's refusal too is worded as JSON that
        # does not read: as before this step was split out (an "except RuleError"
        # after this one was never reached)
        edit.problem = plain_json_problem(problem)
    else:
        edit.data = data
        if shape is not None:
            edit.heads, edit.rows = rows_of(shape, data)


@login_required
def campaign_tables(request: HttpRequest, campaign_id: int, key: str = "") -> HttpResponse:
    membership = referee_membership(request, campaign_id)
    campaign = membership.campaign
    ruleset = get_ruleset(campaign.ruleset)
    tables = campaign_tables_view(campaign)
    if not tables:
        return render(request, "campaigns/tables.html", {"campaign": campaign, "tables": []})
    by_key = {table["key"]: table for table in tables}
    key = key or tables[0]["key"]
    if key not in by_key:
        raise Http404("no such table")
    table = by_key[key]
    shape = shape_of(ruleset.table_schema(key))
    heads, rows = rows_of(shape, table["data"]) if shape is not None else ({}, [])
    edit = _Edit(heads, rows, json.dumps(table["data"], indent=2, ensure_ascii=False))
    shown = table["data"]
    status = 200
    by_rows = shape is not None and request.POST.get("editor") == "rows"
    previewing = False
    if request.method == "POST":
        what = str(request.POST.get("do", "preview"))
        if what == "reset":
            campaign_table_reset(campaign=campaign, key=key)
            messages.success(
                request, _("%(table)s: back to the ruleset's own table.") % {"table": humanize(key)}
            )
            return redirect(reverse("campaign-table", args=[campaign.pk, key]))
        if by_rows and shape is not None:
            _read_rows(edit, shape, request.POST, ruleset, key, what)
        else:
            _read_json(edit, shape, request.POST, ruleset, key)
        if edit.data is not None and not edit.problem:
            shown, previewing = edit.data, True
            if what == "save":
                try:
                    campaign_table_set(campaign=campaign, key=key, data=edit.data)
                except RuleError as problem:
                    edit.problem = plain_table_problem(error_text(problem))
                else:
                    messages.success(request, _("%(table)s saved.") % {"table": humanize(key)})
                    return redirect(reverse("campaign-table", args=[campaign.pk, key]))
        status = 400 if edit.problem else 200
    context = {
        "campaign": campaign,
        "tables": [{**t, "label": humanize(t["key"])} for t in tables],
        "key": key,
        "label": humanize(key),
        "edited": table["edited"],
        "text": edit.text,
        "error": edit.problem,
        "rows_error": edit.problem if by_rows else "",
        "json_error": "" if by_rows else edit.problem,
        "shape": shape,
        "heads": [(c, edit.heads.get(c.key, "")) for c in shape.heads] if shape else [],
        "rows": (
            [[(c, row.get(c.key, "")) for c in shape.columns] for row in edit.rows] if shape else []
        ),
        "preview": preview(shown),
        "previewing": previewing and not edit.problem,
        "empty": _without_rows(shown),
    }
    return render(request, "campaigns/tables.html", context, status=status)
