"""Export a campaign (JSON to restore it, CSV of its log) and import the JSON into a new
campaign (issue 13).

The JSON holds what the campaign is: its name, ruleset, options, clock and dice counter,
its tables, every character (sheet, version, pending choice, retired or not, and who
played it: ``owner``, a username), the whole log and every scheduled effect, each
pointing at the others by their ids in the export. Importing it makes a new campaign
with the importer as its referee: the sheets, the log and the effects come back
identical, under new ids. The people of the old campaign are not members of the new
one, so every character is the importer's, unless the importer maps the export's
players to people here (``players``: the export's username -> a username here, issue
29): those join the new campaign as players, play the characters the export says they
played, and the log's entries the export says they made name them (docs/api.md,
"Export and import").

The dice seed is the one thing not exported: it is the campaign's secret (docs/dice.md).
The new campaign draws from a fresh seed, its counter going on from the exported one;
the old rolls are checked against the old campaign's seed once it is revealed.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from campaigns.models import Campaign, Membership, Role
from campaigns.services import campaign_create
from characters.models import Character
from core.cleaning import reject_nul_characters
from rules.engine.calendar import CalendarError, calendar_data, parse_calendar
from rules.engine.interface import RuleError
from rules.engine.registry import get_ruleset
from rules.play.models import CampaignTable, Resolution, ScheduledEffect

FORMAT = "sawbones-campaign"
VERSION = 1
MAX_ROWS = 200_000

_RESOLUTION_FIELDS = (
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
_EFFECT_FIELDS = ("kind", "key", "due_at", "payload", "hidden", "state")


def campaign_export(campaign: Campaign) -> dict[str, Any]:
    """Everything needed to restore the campaign (a handful of queries)."""
    characters = list(
        Character.objects.filter(campaign=campaign).select_related("owner").order_by("pk")
    )
    resolutions = list(
        Resolution.objects.filter(campaign=campaign).select_related("actor").order_by("pk")
    )
    effects = list(ScheduledEffect.objects.filter(campaign=campaign).order_by("pk"))
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
            for c in characters
        ],
        "resolutions": [
            {
                "id": r.pk,
                "character": r.character_id,
                "actor": r.actor.get_username() if r.actor else None,
                "undoes": r.undoes_id,
                "batch": str(r.batch) if r.batch else None,
                **{name: getattr(r, name) for name in _RESOLUTION_FIELDS},
            }
            for r in resolutions
        ],
        "effects": [
            {
                "id": e.pk,
                "character": e.character_id,
                "created_by": e.created_by_id,
                "resolution": e.resolution_id,
                # the entry that cancelled it: an undo of that entry brings it back (G-6)
                "cancelled_by": e.cancelled_by_id,
                **{name: getattr(e, name) for name in _EFFECT_FIELDS},
            }
            for e in effects
        ],
    }


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
                r.actor.get_username() if r.actor else "the clock",
                r.elapsed_minutes,
                r.summary,
                rolls,
            ]
        )
    return out.getvalue()


def _bad(message: str) -> ValidationError:
    return ValidationError({"data": [message]})


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad(f"{what} must be a whole number from 0")
    return value


def _remap(
    params: Any, resolutions: dict[int, Resolution], effects: dict[int, ScheduledEffect]
) -> Any:
    """The ids a log entry's params hold (the effect it applied, the entry an undo undid,
    the effects it cancelled), as the new campaign's."""
    if not isinstance(params, dict):
        return params
    params = dict(params)
    if isinstance(params.get("scheduled_effect"), int):
        params["scheduled_effect"] = effects[params["scheduled_effect"]].pk
    for key in ("resolution", "undo"):
        if isinstance(params.get(key), int) and params[key] in resolutions:
            params[key] = resolutions[params[key]].pk
    if isinstance(params.get("cancelled_effects"), list):
        params["cancelled_effects"] = [
            effects[pk].pk for pk in params["cancelled_effects"] if pk in effects
        ]
    return params


def export_players(data: Any) -> list[str]:
    """Who played the export's characters (their usernames in the old campaign), in the
    order of their first character; none for an export from before issue 29."""
    rows = data.get("characters") if isinstance(data, dict) else None
    names = [row.get("owner") for row in rows or [] if isinstance(row, dict)]
    return list(dict.fromkeys(name for name in names if isinstance(name, str) and name))


def _players(data: Any, players: Any) -> dict[str, Any]:
    """The importer's mapping of the export's players to users here, checked: each name
    one the export's characters are played by, each user someone here. 400 otherwise."""
    if players is None:
        return {}
    if not isinstance(players, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in players.items()
    ):
        raise ValidationError(
            {"players": ["give each player's name in the export and a username here"]}
        )
    known = set(export_players(data))
    stranger = sorted(name for name in players if name not in known)
    if stranger:
        raise ValidationError(
            {"players": [f"no character in the export is played by {', '.join(stranger)}"]}
        )
    wanted = {name.strip() for name in players.values()}
    found = {u.get_username(): u for u in get_user_model().objects.filter(username__in=wanted)}
    missing = sorted(name for name in wanted if name not in found)
    if missing:
        raise ValidationError({"players": [f"there is no one called {', '.join(missing)} here"]})
    # Two of the export's players mapped to one person here would merge their characters
    # under one player: refused (issue 34).
    by_user: dict[str, list[str]] = {}
    for old, new in players.items():
        by_user.setdefault(new.strip(), []).append(old)
    for new, olds in sorted(by_user.items()):
        if len(olds) > 1:
            raise ValidationError(
                {"players": [f"{' and '.join(sorted(olds))} are mapped to one person here, {new}"]}
            )
    return {old: found[new.strip()] for old, new in players.items()}


def _people(row: dict[str, Any], params: Any, users: dict[str, Any]) -> Any:
    """An edit of who plays a character names the players by id and username: the ids
    of this server's users, those the import knows (the importer, the mapped players)."""
    if row.get("kind") != "edit" or row.get("action") != "owner" or not isinstance(params, dict):
        return params
    people = {}
    for side in ("from", "to"):
        who = params.get(side)
        name = who.get("username") if isinstance(who, dict) else None
        user = users.get(name) if isinstance(name, str) else None
        people[side] = {"id": user.pk if user is not None else None, "username": name}
    return {**params, **people}


def campaign_import(*, user: Any, data: Any, players: Any = None) -> Campaign:
    """A new campaign from an export, the importer its referee; 400 for a bad export.

    ``players`` maps the export's players (usernames there) to usernames here: those
    join as players, own the characters they played and name the entries they made."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _bad("this is not a Sawbones campaign export")
    if data.get("version") != VERSION:
        raise _bad(f"this export is of version {data.get('version')!r}, not {VERSION}")
    try:
        reject_nul_characters(data, "the export")
    except RuleError as error:
        raise _bad(str(error)) from None
    meta = data.get("campaign")
    characters, resolutions, effects = (
        data.get("characters"),
        data.get("resolutions"),
        data.get("effects"),
    )
    if not (
        isinstance(meta, dict)
        and isinstance(characters, list)
        and isinstance(resolutions, list)
        and isinstance(effects, list)
    ):
        raise _bad("the export lacks its campaign, characters, resolutions or effects")
    if len(characters) + len(resolutions) + len(effects) > MAX_ROWS:
        raise _bad(f"at most {MAX_ROWS} rows can be imported at once")
    mapped = _players(data, players)
    try:
        with transaction.atomic():
            campaign = campaign_create(
                user=user,
                name=str(meta.get("name", "")),
                ruleset=str(meta.get("ruleset", "")),
                options=meta.get("options") or None,
            )
            campaign.clock = _int(meta.get("clock", 0), "the clock")
            campaign.dice_counter = _int(meta.get("dice_counter", 0), "the dice counter")
            campaign.dice_seed_first_counter = campaign.dice_counter
            campaign.actions_move_clock = bool(meta.get("actions_move_clock", True))
            try:  # how the clock reads (issue 25); an export from before has none
                campaign.calendar = calendar_data(parse_calendar(meta.get("calendar") or None))
            except CalendarError as error:
                raise _bad(str(error)) from None
            campaign.save()
            ruleset = get_ruleset(campaign.ruleset)
            tables = data.get("tables") or {}
            if not isinstance(tables, dict):
                raise _bad("tables must be an object")
            for key, table in tables.items():
                ruleset.validate_table(key, table)
                CampaignTable.objects.create(campaign=campaign, key=key, data=table)
            new_characters: dict[int, Character] = {}
            for row in characters:
                ruleset.validate_sheet(row["sheet"])
                character = Character(
                    campaign=campaign,
                    owner=mapped.get(row.get("owner"), user),
                    name=str(row["name"]),
                    sheet=row["sheet"],
                    version=_int(row["version"], "a version"),
                    pending_choice=row.get("pending_choice"),
                )
                character.full_clean(exclude=["sheet"])
                character.save()
                if row.get("retired"):
                    character.retired_at = timezone.now()
                    character.save(update_fields=["retired_at"])
                new_characters[row["id"]] = character
            users = {user.get_username(): user, **mapped}
            Membership.objects.bulk_create(
                [
                    Membership(campaign=campaign, user=player, role=Role.PLAYER)
                    for player in {p.pk: p for p in mapped.values() if p.pk != user.pk}.values()
                ]
            )
            # Effects first (pending, unlinked): the log's params point at their new ids.
            new_effects: dict[int, ScheduledEffect] = {}
            for row in effects:
                effect = ScheduledEffect(
                    campaign=campaign,
                    character=new_characters[row["character"]],
                    **{name: row[name] for name in _EFFECT_FIELDS if name != "state"},
                )
                new_effects[row["id"]] = effect
            ScheduledEffect.objects.bulk_create(list(new_effects.values()))
            new_resolutions: dict[int, Resolution] = {}
            for row in sorted(resolutions, key=lambda r: r["id"]):
                undoes = row.get("undoes")
                fields = {name: row[name] for name in _RESOLUTION_FIELDS}
                fields["params"] = _people(
                    row, _remap(fields["params"], new_resolutions, new_effects), users
                )
                resolution = Resolution(
                    campaign=campaign,
                    character=new_characters[row["character"]],
                    actor=users.get(row.get("actor") or ""),
                    undoes=new_resolutions[undoes] if undoes is not None else None,
                    batch=row.get("batch"),
                    **fields,
                )
                resolution.save()
                new_resolutions[row["id"]] = resolution
            for row in effects:
                effect = new_effects[row["id"]]
                effect.state = row["state"]
                effect.created_by = new_resolutions.get(row.get("created_by"))
                effect.resolution = new_resolutions.get(row.get("resolution"))
                # an export from before it has none: those undos revive nothing
                effect.cancelled_by = new_resolutions.get(row.get("cancelled_by"))
            ScheduledEffect.objects.bulk_update(
                list(new_effects.values()), ["state", "created_by", "resolution", "cancelled_by"]
            )
            Membership.objects.filter(campaign=campaign, user=user).update(role=Role.REFEREE)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise _bad(f"the export is damaged: {type(error).__name__} {error}") from None
    except RuleError as error:
        raise _bad(str(error)) from None
    return campaign
