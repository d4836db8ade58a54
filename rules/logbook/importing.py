"""Import a campaign's JSON export into a new campaign (issue 13; the export's shape and
what an import gives back: rules.logbook.export).

The export is read a row at a time (rules.logbook.reading, issue 39): the campaign, its
tables and characters are written first, then the effects and the log in chunks, each
checked as it is read, so memory stays flat however long the log. Every refusal is a
ValidationError in plain words and nothing is written (one transaction).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from django.core.exceptions import ValidationError
from django.db import DataError, connection, transaction
from django.utils.translation import gettext

from campaigns.invitations import invitations_create
from campaigns.models import Campaign, Membership, Role
from campaigns.services import campaign_create
from characters.models import Character
from characters.services import character_insert
from core.cleaning import MAX_ID, reject_nul_characters
from core.said import said_error
from rules.engine.calendar import CalendarError, calendar_data, parse_calendar
from rules.engine.interface import RuleError
from rules.engine.registry import get_ruleset
from rules.engine.words import Message
from rules.log.models import CampaignTable, Resolution, ScheduledEffect
from rules.logbook.export import (
    CHUNK,
    EFFECT_FIELDS,
    FORMAT,
    MAX_ROWS,
    RESOLUTION_FIELDS,
    USERNAME_LENGTH,
    VERSION,
)
from rules.logbook.reading import ROWS, ExportData, ExportFile, ExportSource, IdMap, Scan


def _said(data: Any) -> dict[str, Any] | None:
    """An entry's message as the export gives it, if it says something; else None (the
    entry keeps its English summary). A message that does not read is a damaged export."""
    if data is None:
        return None
    try:
        Message.from_data(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise _bad(gettext("the export is damaged: an entry's message cannot be read")) from None
    return dict(data)


def _bad(message: str) -> ValidationError:
    return ValidationError({"data": [message]})


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ID:
        raise _bad(gettext("%(what)s must be a whole number from 0") % {"what": what})
    return value


def _fits(model: type[Resolution] | type[ScheduledEffect], values: dict[str, Any]) -> None:
    """Each text of a row fits its column, and one with choices is one of them (the
    import's schema says so; SQLite would store anything): 400 otherwise."""
    for name, value in values.items():
        field = model._meta.get_field(name)
        limit = getattr(field, "max_length", None)
        if not isinstance(value, str) or limit is None:
            continue
        choices = [str(key) for key, _ in getattr(field, "choices", None) or []]
        if len(value) > limit or (choices and value not in choices):
            raise _bad(
                gettext("the export is damaged: %(field)s %(value)s cannot be")
                % {"field": name, "value": repr(value[:20])}
            )


def _remap(params: Any, resolutions: IdMap, effects: IdMap) -> Any:
    """The ids a log entry's params hold (the effect it applied, the entry an undo undid,
    the effects it cancelled), as the new campaign's."""
    if not isinstance(params, dict):
        return params
    params = dict(params)
    if isinstance(params.get("scheduled_effect"), int):
        params["scheduled_effect"] = effects[params["scheduled_effect"]]
    for key in ("resolution", "undo"):
        if isinstance(params.get(key), int) and params[key] in resolutions:
            params[key] = resolutions[params[key]]
    if isinstance(params.get("cancelled_effects"), list):
        params["cancelled_effects"] = [
            effects[pk] for pk in params["cancelled_effects"] if pk in effects
        ]
    return params


def export_players(data: Any) -> list[str]:
    """Who played the export's characters (their usernames in the old campaign), in the
    order of their first character; none for an export from before issue 29."""
    rows = data.get("characters") if isinstance(data, dict) else None
    names = [row.get("owner") for row in rows or [] if isinstance(row, dict)]
    return list(dict.fromkeys(name for name in names if isinstance(name, str) and name))


def _players(data: Any, players: Any, importer: str) -> dict[str, str]:
    """The importer's mapping of the export's players to usernames here, checked: each
    name one the export's characters are played by (400 otherwise); the usernames are
    not looked up here (an invitation each, campaigns.invitations), so the answer is the
    same whether someone has that name or not. Those mapped to the importer are left out:
    they are the importer's already."""
    if players is None:
        return {}
    if not isinstance(players, dict) or not all(
        isinstance(k, str)
        and isinstance(v, str)
        and v.strip()
        and len(k) <= USERNAME_LENGTH
        and len(v.strip()) <= USERNAME_LENGTH
        for k, v in players.items()
    ):
        raise ValidationError(
            {"players": [gettext("give each player's name in the export and a username here")]}
        )
    known = set(export_players(data))
    stranger = sorted(name for name in players if name not in known)
    if stranger:
        raise ValidationError(
            {
                "players": [
                    gettext("no character in the export is played by %(names)s")
                    % {"names": ", ".join(stranger)}
                ]
            }
        )
    # Two of the export's players mapped to one person here would merge their characters
    # under one player: refused (issue 34). Told by the names as written, never by whether
    # an account has them (issue 36).
    by_user: dict[str, list[str]] = {}
    for old, new in players.items():
        by_user.setdefault(new.strip(), []).append(old)
    for new, olds in sorted(by_user.items()):
        if len(olds) > 1:
            raise ValidationError(
                {
                    "players": [
                        gettext("%(names)s are mapped to one person here, %(user)s")
                        % {"names": gettext(" and ").join(sorted(olds)), "user": new}
                    ]
                }
            )
    return {old: new.strip() for old, new in players.items() if new.strip() != importer}


def _people(row: dict[str, Any], params: Any, importer: Any, yours: set[str]) -> Any:
    """An edit of who plays a character names the players by id and username: the id of
    the importer where the export's name is theirs (``yours``); no id for the others
    until they accept their invitation (rules.logbook.invitations names them then)."""
    if row.get("kind") != "edit" or row.get("action") != "owner" or not isinstance(params, dict):
        return params
    people = {}
    for side in ("from", "to"):
        who = params.get(side)
        name = who.get("username") if isinstance(who, dict) else None
        people[side] = {"id": importer.pk if name in yours else None, "username": name}
    return {**params, **people}


def campaign_import(*, user: Any, data: Any, players: Any = None) -> Campaign:
    """A new campaign from an export, the importer its referee; 400 for a bad export.

    ``players`` maps the export's players (usernames there) to usernames here: each is
    invited (campaigns.invitations) to join as a player, play the characters they played
    and name the entries they made, which happens only when they accept."""
    return _import(user, ExportData(data), players)


def campaign_import_file(*, user: Any, file: IO[bytes], players: Any = None) -> Campaign:
    """:func:`campaign_import` of an export in a file (binary, seekable), read a row at a
    time (issue 39, rules.logbook.reading): the memory it takes does not grow with the
    log."""
    return _import(user, ExportFile(file), players)


def _import(user: Any, source: ExportSource, players: Any) -> Campaign:
    head, meta, characters = _export_parts(source.scan())
    importer = user.get_username()
    mapped = _players(head, players, importer)
    # the export's names that are the importer's: those mapped to them, and their own
    # unless they name someone else for it
    yours = ({importer} - set(mapped)) | {
        old for old, new in (players or {}).items() if new.strip() == importer
    }
    try:
        with transaction.atomic():
            campaign = _import_campaign(user, meta)
            _import_tables(campaign, head.get("tables") or {})
            new_characters, played = _import_characters(campaign, user, characters, mapped)
            invitations_create(
                membership=Membership.objects.select_related("campaign", "user").get(
                    campaign=campaign, user=user
                ),
                named=mapped,
                characters=played,
            )
            # Effects first (pending, unlinked): the log's params point at their new ids.
            new_effects = _import_effects(campaign, source.rows("effects"), new_characters)
            new_resolutions = _import_resolutions(
                campaign,
                source.rows("resolutions"),
                new_characters=new_characters,
                new_effects=new_effects,
                user=user,
                yours=yours,
            )
            _link_effects(source.rows("effects"), new_effects, new_resolutions)
            Membership.objects.filter(campaign=campaign, user=user).update(role=Role.REFEREE)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
        raise _bad(
            gettext("the export is damaged: %(error)s")
            % {"error": f"{type(error).__name__} {error}"}
        ) from None
    except DataError:  # a value too long or too large for its column (PostgreSQL)
        raise _bad(gettext("the export is damaged: a value does not fit where it goes")) from None
    except RuleError as error:
        raise _bad(said_error(error)) from None
    return campaign


def _export_parts(found: Scan) -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
    """The export's head, campaign and characters, once it is known to be a Sawbones
    export of this version, without NUL, of no more rows than an import takes."""
    head = found.head
    if not found.is_object or head.get("format") != FORMAT:
        raise _bad(gettext("this is not a Sawbones campaign export"))
    if head.get("version") != VERSION:
        raise _bad(
            gettext("this export is of version %(version)s, not %(expected)s")
            % {"version": repr(head.get("version")), "expected": VERSION}
        )
    if found.nul:  # the same refusal as for any other input (core.cleaning)
        try:
            reject_nul_characters("\x00", "the export")
        except RuleError as error:
            raise _bad(said_error(error)) from None
    meta, characters = head.get("campaign"), head.get("characters")
    if not (
        isinstance(meta, dict)
        and isinstance(characters, list)
        and all(found.kinds.get(key) == "array" for key in ROWS)
    ):
        raise _bad(gettext("the export lacks its campaign, characters, resolutions or effects"))
    if len(characters) + sum(found.counts[key] for key in ROWS) > MAX_ROWS:
        raise _bad(gettext("at most %(count)s rows can be imported at once") % {"count": MAX_ROWS})
    return head, meta, characters


def _import_campaign(user: Any, meta: dict[str, Any]) -> Campaign:
    """The new campaign, its clock, dice counter and calendar as exported."""
    campaign = campaign_create(
        user=user,
        name=str(meta.get("name", "")),
        ruleset=str(meta.get("ruleset", "")),
        options=meta.get("options") or None,
    )
    campaign.clock = _int(meta.get("clock", 0), gettext("the clock"))
    campaign.dice_counter = _int(meta.get("dice_counter", 0), gettext("the dice counter"))
    campaign.dice_seed_first_counter = campaign.dice_counter
    campaign.actions_move_clock = bool(meta.get("actions_move_clock", True))
    try:  # how the clock reads (issue 25); an export from before has none
        campaign.calendar = calendar_data(parse_calendar(meta.get("calendar") or None))
    except CalendarError as error:
        raise _bad(said_error(error)) from None
    campaign.save()
    return campaign


def _import_tables(campaign: Campaign, tables: Any) -> None:
    """The campaign's edited tables, each checked by its ruleset."""
    if not isinstance(tables, dict):
        raise _bad(gettext("tables must be an object"))
    ruleset = get_ruleset(campaign.ruleset)
    for key, table in tables.items():
        ruleset.validate_table(key, table)
        CampaignTable.objects.create(campaign=campaign, key=key, data=table)


def _import_characters(
    campaign: Campaign, user: Any, characters: list[Any], mapped: dict[str, str]
) -> tuple[dict[int, Character], dict[str, list[int]]]:
    """The characters, the importer's until an invited player accepts theirs: the new
    character by the export's id, and an invited player's characters by the export's
    name of them."""
    ruleset = get_ruleset(campaign.ruleset)
    new_characters: dict[int, Character] = {}
    played: dict[str, list[int]] = {}
    for row in characters:
        ruleset.validate_sheet(row["sheet"])
        character = character_insert(
            campaign=campaign,
            owner=user,
            name=str(row["name"]),
            sheet=row["sheet"],
            version=_int(row["version"], gettext("a version")),
            pending_choice=row.get("pending_choice"),
            retired=bool(row.get("retired")),
        )
        new_characters[row["id"]] = character
        if row.get("owner") in mapped:
            played.setdefault(row["owner"], []).append(character.pk)
    return new_characters, played


def _import_effects(
    campaign: Campaign, effects: Iterator[Any], new_characters: dict[int, Character]
) -> IdMap:
    """The scheduled effects, pending and linked to no resolution yet (the log's params
    point at their new ids), written a chunk at a time: their new ids by the export's."""
    new_effects = IdMap()
    for chunk in _chunks(effects):
        made = []
        for row in chunk:
            _fits(ScheduledEffect, {name: row[name] for name in EFFECT_FIELDS})
            effect = ScheduledEffect(
                campaign=campaign,
                character=new_characters[row["character"]],
                **{name: row[name] for name in EFFECT_FIELDS if name != "state"},
            )
            made.append((row["id"], effect))
        ScheduledEffect.objects.bulk_create([effect for _, effect in made])
        for old, effect in made:
            new_effects[old] = effect.pk
    return new_effects


def _chunks(rows: Iterator[Any]) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _import_resolutions(
    campaign: Campaign,
    resolutions: Iterator[Any],
    *,
    new_characters: dict[int, Character],
    new_effects: IdMap,
    user: Any,
    yours: set[str],
) -> IdMap:
    """The log in its order, ids in params remapped to the new rows; an entry of the
    importer's is theirs, another person's keeps their name until they accept. Written
    a chunk at a time (one ``INSERT`` each); an entry naming one of the chunk not written
    yet (an undo of it) writes the chunk first. The new entries' ids by the export's:
    the rows themselves are not kept (issue 39)."""
    new_resolutions = IdMap()
    waiting: list[tuple[Any, Resolution]] = []  # built, not written yet
    waiting_ids: set[Any] = set()

    def write() -> None:
        if connection.features.can_return_rows_from_bulk_insert:
            Resolution.objects.bulk_create([resolution for _, resolution in waiting])
        else:  # the new ids are not returned: one INSERT each
            for _, resolution in waiting:
                resolution.save()
        for old, resolution in waiting:
            new_resolutions[old] = resolution.pk
        waiting.clear()
        waiting_ids.clear()

    for row in resolutions:
        undoes = row.get("undoes")
        params = row.get("params")
        named = [undoes]
        if isinstance(params, dict):
            named += [params.get("resolution"), params.get("undo")]
        if any(isinstance(pk, int) and pk in waiting_ids for pk in named):
            write()
        fields = {name: row[name] for name in RESOLUTION_FIELDS}
        fields["said"] = _said(row.get("said"))
        _fits(Resolution, fields)
        fields["params"] = _people(
            row, _remap(fields["params"], new_resolutions, new_effects), user, yours
        )
        author = row.get("actor")
        if author is not None and (not isinstance(author, str) or len(author) > USERNAME_LENGTH):
            raise _bad(
                gettext("an entry's actor is a username of at most %(count)s characters")
                % {"count": USERNAME_LENGTH}
            )
        resolution = Resolution(
            campaign=campaign,
            character=new_characters[row["character"]],
            actor=user if author in yours else None,
            imported_actor=str(author) if author and author not in yours else "",
            undoes_id=new_resolutions[undoes] if undoes is not None else None,
            batch=row.get("batch"),
            **fields,
        )
        waiting.append((row["id"], resolution))
        waiting_ids.add(row["id"])
        if len(waiting) == CHUNK:
            write()
    if waiting:
        write()
    return new_resolutions


def _link_effects(effects: Iterator[Any], new_effects: IdMap, new_resolutions: IdMap) -> None:
    """Each effect's state, and the resolutions that made, applied or cancelled it, a
    chunk at a time."""
    for chunk in _chunks(effects):
        linked = [
            ScheduledEffect(
                pk=new_effects[row["id"]],
                state=row["state"],
                created_by_id=new_resolutions.get(row.get("created_by")),
                resolution_id=new_resolutions.get(row.get("resolution")),
                # an export from before it has none: those undos revive nothing
                cancelled_by_id=new_resolutions.get(row.get("cancelled_by")),
            )
            for row in chunk
        ]
        ScheduledEffect.objects.bulk_update(
            linked, ["state", "created_by", "resolution", "cancelled_by"]
        )
