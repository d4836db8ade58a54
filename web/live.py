"""The live regions' polls (the sheet, the dashboard, the battle board): each page
carries its stamp, sent back by the poll as ``If-None-Match`` (static/js/sawbones.js);
while the stamp holds the answer is ``304 Not Modified`` with no body, which htmx
leaves unswapped (base.html's ``responseHandling``), else the fresh fragment with its
new ``ETag``.

An unchanged poll costs the session, the user and one query: the ``*_unchanged``
helpers read the stamp and the viewer's place in the campaign together
(``rules.log.selectors.live_witness`` / ``sheet_witness``) and answer 304 only when that
row admits the viewer as ``campaigns.access`` / ``characters.access`` would (a member;
on a sheet, its owner or the referee). Anything else (no tag, a token's request, not a
member, a changed stamp) goes the whole way through the view's own access check, which
stays the one that refuses (bench/live_pages.py measures it; docs/performance.md).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified

from campaigns.access import grant_of
from campaigns.models import Campaign, Role
from rules.battles.selectors import LATEST_BATTLE, warband_rules
from rules.clock.selectors import LATEST_CLOCK_JOB
from rules.log.selectors import LatestRow, live_witness, sheet_witness


def etag(stamp: str) -> str:
    return f'"{stamp}"'


def unchanged(request: HttpRequest, stamp: str) -> HttpResponse | None:
    """304 when the poll's ``If-None-Match`` names the stamp still in force, else None."""
    sent = {tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")}
    if etag(stamp) not in sent:
        return None
    response = HttpResponseNotModified()
    response["ETag"] = etag(stamp)
    return response


def tagged(response: HttpResponse, stamp: str) -> HttpResponse:
    response["ETag"] = etag(stamp)
    return response


# -- the stamps: each changes whenever its fragment would --------------------------------


def sheet_stamp(version: int, clock: int) -> str:
    """The sheet: the character's version and the campaign's clock."""
    return f"{version}.{clock}"


def party_stamp(row: dict[str, Any], *, referee: bool) -> str:
    """The dashboard, from a ``live_witness`` row: the clock, a character added or changed,
    and for the referee the latest clock job. Versions only grow (every change is a
    resolution), so their sum is a cheap witness."""
    marker = ""
    if referee and row.get("job_pk") is not None:
        marker = f"{row['job_pk']}{row['job_state']}"
    return f"{row['clock']}.{row['count']}.{row['versions']}.{marker}"


def board_stamp(row: dict[str, Any]) -> str:
    """The battle board, from a ``live_witness`` row with ``LATEST_BATTLE``: the battle's
    step, any unit's version."""
    step = "-"
    if row["battle_pk"] is not None:
        running = row["battle_ended_at"] is None
        where = f"{row['battle_turn']}.{row['battle_active']}.{row['battle_phase']}"
        step = f"{row['battle_pk']}.{where}.{running}"
    return f"{step}.{row['count']}.{row['versions']}"


# -- an unchanged poll in one query ----------------------------------------------------------


def _viewer(request: HttpRequest) -> int | None:
    """The signed-in person whose poll may take the short way: one that sent a tag, with
    a session (a token's narrower grant goes the whole way)."""
    user = request.user
    if not request.headers.get("If-None-Match") or not user.is_authenticated:
        return None
    return None if grant_of(user) is not None else int(user.pk)


def sheet_unchanged(request: HttpRequest, character_id: int) -> HttpResponse | None:
    """304 for an open sheet whose stamp holds, to its owner or the campaign's referee."""
    viewer = _viewer(request)
    row = sheet_witness(character_id, viewer) if viewer is not None else None
    if row is None or row["role"] is None:
        return None
    if row["role"] != Role.REFEREE and row["owner_id"] != viewer:
        return None
    return unchanged(request, sheet_stamp(row["version"], row["clock"]))


def _member_row(request: HttpRequest, campaign_id: int, latest: LatestRow) -> dict[str, Any] | None:
    """The ``live_witness`` row (with ``latest``) of a poll that may take the short way,
    when its viewer is a member of the campaign; else None."""
    viewer = _viewer(request)
    if viewer is None:
        return None
    row = live_witness(campaign_id, latest=(latest,), viewer=viewer)
    return row if row is not None and row["role"] is not None else None


def party_unchanged(request: HttpRequest, campaign_id: int) -> HttpResponse | None:
    """304 for a member's dashboard whose stamp holds."""
    row = _member_row(request, campaign_id, LATEST_CLOCK_JOB)
    if row is None:
        return None
    return unchanged(request, party_stamp(row, referee=row["role"] == Role.REFEREE))


def board_unchanged(request: HttpRequest, campaign_id: int) -> HttpResponse | None:
    """304 for a member's battle board (a warband campaign) whose stamp holds."""
    row = _member_row(request, campaign_id, LATEST_BATTLE)
    if row is None:
        return None
    if warband_rules(Campaign(ruleset=row["ruleset"])) is None:
        return None
    return unchanged(request, board_stamp(row))
