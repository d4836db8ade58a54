"""Export a campaign (JSON to restore it, CSV of its log); rules.logbook.importing takes the
JSON back into a new campaign (issue 13).

The JSON holds what the campaign is: its name, ruleset, options, clock and dice counter,
its tables, every character (sheet, version, pending choice, retired or not, and who
played it: ``owner``, a username), the whole log and every scheduled effect, each
pointing at the others by their ids in the export. Importing it makes a new campaign
with the importer as its referee: the sheets, the log and the effects come back
identical, under new ids. The people of the old campaign are not members of the new
one, so every character is the importer's, and every entry someone else made names
them as the export did (``imported_actor``: "alice (imported)"), never an account here.
The importer may name people here for the export's players (``players``: the export's
username -> a username here, issues 29 and 36): each is *invited*
(campaigns.invitations), and only once they accept do they join, play the characters
the export says they played and become the authors of the entries they made
(rules.logbook.invitations; docs/api.md, "Export and import").

The dice seed is the one thing not exported: it is the campaign's secret (docs/dice.md).
The new campaign draws from a fresh seed, its counter going on from the exported one;
the old rolls are checked against the old campaign's seed once it is revealed.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from typing import Any

from campaigns.models import Campaign
from characters.models import Character
from rules.log.models import CampaignTable, Resolution, ScheduledEffect
from rules.log.selectors import entry_author, entry_author_words

FORMAT = "sawbones-campaign"
FORMATS = [FORMAT]  # as an enum of the API schema (ExportFormatEnum)
VERSION = 1
MAX_ROWS = 200_000
CHUNK = 500  # rows of the log read, and written, at a time
USERNAME_LENGTH = 150  # Django's: the longest name an export can give a player

RESOLUTION_FIELDS = (
    "kind",
    "action",
    "params",
    "rolls",
    "summary",
    "outcome",
    "sheet_before",
    "sheet_after",
    "version",
    "pending_choice",
    "clock",
    "dice_counter_start",
    "dice_counter_end",
    "revealed",
    "elapsed_minutes",
)
EFFECT_FIELDS = ("kind", "key", "due_at", "payload", "hidden", "state")


def _export_head(campaign: Campaign) -> dict[str, Any]:
    """The export but its log and effects: the campaign, its tables, its characters."""
    characters = Character.objects.filter(campaign=campaign).select_related("owner")
    return {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {
            "name": campaign.name,
            "ruleset": campaign.ruleset,
            "options": campaign.options,
            "clock": campaign.clock,
            "dice_counter": campaign.dice_counter,
            "actions_move_clock": campaign.actions_move_clock,
            "calendar": campaign.calendar,
        },
        "tables": {t.key: t.data for t in CampaignTable.objects.filter(campaign=campaign)},
        "characters": [
            {
                "id": c.pk,
                "name": c.name,
                "owner": c.owner.get_username(),
                "sheet": c.sheet,
                "version": c.version,
                "pending_choice": c.pending_choice,
                "retired": c.retired_at is not None,
            }
            for c in characters.order_by("pk")
        ],
    }


def _resolution_rows(campaign: Campaign) -> Iterator[dict[str, Any]]:
    """The log's rows, read a chunk at a time: a long log is never held whole."""
    rows = Resolution.objects.filter(campaign=campaign).select_related("actor").order_by("pk")
    for r in rows.iterator(chunk_size=CHUNK):
        yield {
            "id": r.pk,
            "character": r.character_id,
            "actor": entry_author(r),
            "undoes": r.undoes_id,
            "batch": str(r.batch) if r.batch else None,
            **{name: getattr(r, name) for name in RESOLUTION_FIELDS},
            # the summary's message, to read it in another language (issue 37); exports
            # made before it have none, and their entries keep their English summary
            "said": r.said,
        }


def _effect_rows(campaign: Campaign) -> Iterator[dict[str, Any]]:
    rows = ScheduledEffect.objects.filter(campaign=campaign).order_by("pk")
    for e in rows.iterator(chunk_size=CHUNK):
        yield {
            "id": e.pk,
            "character": e.character_id,
            "created_by": e.created_by_id,
            "resolution": e.resolution_id,
            # the entry that cancelled it: an undo of that entry brings it back (G-6)
            "cancelled_by": e.cancelled_by_id,
            **{name: getattr(e, name) for name in EFFECT_FIELDS},
        }


def campaign_export(campaign: Campaign) -> dict[str, Any]:
    """Everything needed to restore the campaign (a handful of queries)."""
    return {
        **_export_head(campaign),
        "resolutions": list(_resolution_rows(campaign)),
        "effects": list(_effect_rows(campaign)),
    }


def campaign_export_chunks(
    campaign: Campaign, dumps: Callable[[Any], bytes], comma: bytes, colon: bytes
) -> Iterator[bytes]:
    """:func:`campaign_export` as JSON, a few hundred rows at a time (issue 39): the
    memory it takes does not grow with the log. ``dumps`` writes one JSON value as the
    whole export would be written (``comma`` and ``colon`` its separators), so the
    bytes are those of ``dumps(campaign_export(campaign))``: JSON written without
    indent is its values', separated."""
    head = dumps(_export_head(campaign))
    yield head[:-1]  # the object goes on: without its closing brace
    for key, rows in (
        ("resolutions", _resolution_rows(campaign)),
        ("effects", _effect_rows(campaign)),
    ):
        yield comma + dumps(key) + colon + b"["
        first = True
        batch: list[bytes] = []
        for row in rows:
            batch.append(dumps(row))
            if len(batch) == CHUNK:
                yield (b"" if first else comma) + comma.join(batch)
                first, batch = False, []
        if batch:
            yield (b"" if first else comma) + comma.join(batch)
        yield b"]"
    yield b"}"


def log_csv(campaign: Campaign) -> str:
    """The log as CSV, oldest first: one row per entry."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "id",
            "minute",
            "character",
            "version",
            "kind",
            "action",
            "by",
            "took_minutes",
            "summary",
            "rolls",
        ]
    )
    rows = (
        Resolution.objects.filter(campaign=campaign)
        .select_related("actor", "character")
        .order_by("clock", "pk")
    )
    for r in rows.iterator():
        rolls = "; ".join(
            f"{roll.get('label', '')}: {roll.get('expression', '')} = {roll.get('total', '')}"
            for roll in r.rolls
        )
        writer.writerow(
            [
                r.pk,
                r.clock,
                r.character.name,
                r.version,
                r.kind,
                r.action,
                entry_author_words(r),
                r.elapsed_minutes,
                r.summary,
                rolls,
            ]
        )
    return out.getvalue()
