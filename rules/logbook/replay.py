"""Replay: the log, applied again from each character's creation, gives the stored sheet.

For every character of a campaign, in version order, each logged resolution is resolved
again by the ruleset with the same input (the sheet before, the action and params, the
effect and payload, the answered choice) and the same dice (the campaign's HMAC
generator at the resolution's counter, ruling G-2): the result must be the logged
``sheet_after``, use the logged dice and counter range, and be the next resolution's
``sheet_before``; the last one must be the stored sheet, version and pending choice.
Undo gives back the undone resolution's sheet before and redo its sheet after, a
correction sets the fields it names, a level is gained again with the same dice, a
rename, a retirement or a cancelled choice changes no sheet, a battle's recovery (WB-6)
is resolved again without dice. Every roll is also
checked against the seed (``rules.log.selectors.verify_resolution_rolls``).

Run by ``manage.py replay_check`` (docs/operations.md): after a restore, an upgrade, or
in the drills. What replay cannot know: a table or option the referee changed since a
resolution was made (neither is logged), or a ruleset changed since: either shows as a
divergence, named.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from campaigns.models import Campaign, Membership, Role
from campaigns.selectors import clock_display, seed_for_counter
from characters.models import Character
from rules.engine.dice import Dice, HmacGenerator
from rules.engine.interface import Context, PendingChoice, Result, Ruleset
from rules.engine.registry import get_ruleset
from rules.log.context import campaign_tables
from rules.log.models import Resolution, ResolutionKind
from rules.log.selectors import verify_resolution_rolls
from rules.play.editing import OWNER


@dataclass(frozen=True)
class Divergence:
    """Where a character's log and its replay first part ways."""

    character: Character
    resolution: Resolution | None
    what: str

    def __str__(self) -> str:
        where = f"{self.character.name} (character {self.character.pk})"
        if self.resolution is None:
            return f"{where}: {self.what}"
        r = self.resolution
        return (
            f"{where}, version {r.version} (resolution {r.pk}, {r.kind} {r.action!r} at "
            f"{clock_display(r.clock)}): {self.what}"
        )


@dataclass
class ReplayReport:
    campaign: Campaign
    characters: int = 0
    resolutions: int = 0
    rolls_checked: int = 0
    divergences: list[Divergence] | None = None

    def __post_init__(self) -> None:
        self.divergences = self.divergences or []


def first_difference(logged: Any, replayed: Any, path: str = "") -> str | None:
    """The first place two JSON values differ, in words, or None when they are equal."""
    if logged == replayed:
        return None
    if isinstance(logged, dict) and isinstance(replayed, dict):
        for key in sorted(set(logged) | set(replayed), key=str):
            if key not in logged or key not in replayed:
                side = "replay" if key not in logged else "log"
                return f"{path}{key} only in the {side}"
            found = first_difference(logged[key], replayed[key], f"{path}{key}.")
            if found:
                return found
    if isinstance(logged, list) and isinstance(replayed, list) and len(logged) == len(replayed):
        for i, (a, b) in enumerate(zip(logged, replayed, strict=True)):
            found = first_difference(a, b, f"{path}{i}.")
            if found:
                return found
    return f"{path.rstrip('.') or 'the value'}: logged {logged!r}, replayed {replayed!r}"


class _Replayer:
    def __init__(self, campaign: Campaign) -> None:
        self.campaign = campaign
        self.ruleset: Ruleset = get_ruleset(campaign.ruleset)
        self.options = {**self.ruleset.options, **campaign.options}
        self.tables = campaign_tables(campaign)
        self.owner_id: int | None = None
        self.referees = set(
            Membership.objects.filter(campaign=campaign, role=Role.REFEREE).values_list(
                "user_id", flat=True
            )
        )

    def dice(self, resolution: Resolution) -> tuple[Dice, HmacGenerator]:
        start = resolution.dice_counter_start
        generator = HmacGenerator(bytes.fromhex(seed_for_counter(self.campaign, start)), start)
        return Dice(generator), generator

    def context(self, resolution: Resolution, *, by_referee: bool) -> Context:
        return Context(
            clock=resolution.clock, options=self.options, by_referee=by_referee, tables=self.tables
        )

    def result(
        self, r: Resolution, sheet: dict[str, Any], choice: dict[str, Any] | None
    ) -> tuple[Result | None, HmacGenerator | None]:
        """Resolve ``r`` again from ``sheet``; (None, None) for the kinds without an engine
        step (undo, a cancelled choice): their sheet is checked by the caller."""
        rs = self.ruleset
        by_referee = r.actor_id is None or r.actor_id in self.referees
        sheet = copy.deepcopy(sheet)
        params = copy.deepcopy(r.params)
        if r.kind == ResolutionKind.CREATE:
            dice, generator = self.dice(r)
            new_sheet = rs.new_sheet(params, dice)
            return Result(sheet=new_sheet, summary="", rolls=tuple(dice.rolls)), generator
        if r.kind == ResolutionKind.ACTION:
            dice, generator = self.dice(r)
            context = self.context(r, by_referee=by_referee)
            return rs.resolve(sheet, r.action, params, dice, context), generator
        if r.kind == ResolutionKind.CHOICE:
            if choice is None:
                raise ValueError("a choice was answered, but none was pending")
            dice, generator = self.dice(r)
            context = self.context(r, by_referee=by_referee)
            pending = PendingChoice.from_dict(choice)
            return rs.choose(sheet, pending, params["option"], dice, context), generator
        if r.kind == ResolutionKind.EFFECT:
            dice, generator = self.dice(r)
            context = self.context(r, by_referee=True)
            return rs.apply_effect(sheet, r.action, params["payload"], dice, context), generator
        if r.kind == ResolutionKind.EDIT and r.action == "level_up":
            dice, generator = self.dice(r)
            context = self.context(r, by_referee=True)
            player = self.owner_id not in self.referees
            return rs.level_up(sheet, dice, context, player_character=player), generator
        if r.kind == ResolutionKind.BATTLE:
            recovery = getattr(rs, "battle_recovery", None)
            if recovery is None:
                raise ValueError(f"ruleset {rs.key} has no battle recovery")
            return recovery(sheet, params["moment"]), None
        return None, None

    def character(self, character: Character, report: ReplayReport) -> Divergence | None:
        # Who played the character when each entry was made (a level gained follows it).
        self.owner_id = _first_owner(character)
        sheet: dict[str, Any] = {}
        choice: dict[str, Any] | None = None
        log = Resolution.objects.filter(character=character).order_by("version")
        by_id = _Replayed(character)
        version = 0
        for r in log.iterator(chunk_size=500):
            by_id.add(r)
            report.resolutions += 1
            version += 1

            def diverged(what: str, r: Resolution = r) -> Divergence:
                return Divergence(character, r, what)

            if r.version != version:
                return diverged(f"the log jumps from version {version - 1} to {r.version}")
            found = first_difference(sheet, r.sheet_before)
            if found:
                return diverged(f"its sheet before is not the previous sheet after ({found})")
            report.rolls_checked += len(r.rolls)
            if not verify_resolution_rolls(r, self.campaign):
                return diverged("its dice are not what the campaign's seed gives")
            try:
                result, generator = self.result(r, sheet, choice)
            except Exception as error:  # the ruleset refuses it now: say what it said
                return diverged(f"replaying it fails: {type(error).__name__}: {error}")
            if result is None:
                differs = _unresolved_difference(r, sheet, by_id)
            else:
                differs = _resolved_difference(r, result, generator)
            if differs:
                return diverged(differs)
            sheet = r.sheet_after
            choice = r.pending_choice
            self.owner_id = _owner_after(r, by_id, self.owner_id)
        if character.version != version:
            return Divergence(
                character, None, f"stored at version {character.version}, its log ends at {version}"
            )
        found = first_difference(sheet, character.sheet)
        if found:
            return Divergence(character, None, f"the stored sheet is not the log's last ({found})")
        if character.pending_choice != choice:
            return Divergence(character, None, "the stored pending choice is not the log's last")
        return None


class _Replayed:
    """The character's entries replayed so far, by id, as an undo or a redo names one:
    read from the database when named (a few are), never the whole log held (issue 39)."""

    def __init__(self, character: Character) -> None:
        self.character = character
        self.last: Resolution | None = None
        self.named: dict[int, Resolution] = {}

    def add(self, r: Resolution) -> None:
        self.last = r

    def get(self, pk: Any) -> Resolution | None:
        if isinstance(pk, float) and pk.is_integer():
            pk = int(pk)  # a dict's key: 1.0 and True are 1
        if not isinstance(pk, int) or self.last is None:
            return None
        pk = int(pk)
        if pk == self.last.pk:
            return self.last
        if pk not in self.named:
            found = Resolution.objects.filter(
                character=self.character, pk=pk, version__lte=self.last.version
            ).first()
            if found is None:
                return None
            self.named[pk] = found
        return self.named[pk]


def _first_owner(character: Character) -> int | None:
    """Who played the character at its creation: the first edit of who plays them says
    who did before it (issue 29); without one, who plays them now."""
    first = (
        Resolution.objects.filter(character=character, kind=ResolutionKind.EDIT, action=OWNER)
        .order_by("version")
        .values_list("params", flat=True)
        .first()
    )
    return character.owner_id if first is None else _player(first, "from")


def _unresolved_difference(r: Resolution, sheet: dict[str, Any], by_id: _Replayed) -> str | None:
    """How an entry the engine does not resolve parts from the log, or None: its sheet
    after must be the sheet before it, or what its undo, redo or correction sets."""
    expected = sheet  # a rename, a retirement, a cancelled choice
    if r.kind in (ResolutionKind.UNDO, ResolutionKind.REDO):
        # an undo gives back its entry's sheet before, a redo the undone
        # entry's sheet after (rules.play.undo)
        entry = by_id.get(r.params.get("resolution", -1))
        if entry is None:
            return f"its {r.kind} names no earlier resolution of the log"
        undo = r.kind == ResolutionKind.UNDO
        expected = entry.sheet_before if undo else entry.sheet_after
    elif r.kind == ResolutionKind.EDIT and r.action == "correct":
        expected = {**sheet, **r.params["changes"]}  # set by the referee's hand
    found = first_difference(r.sheet_after, expected)
    return f"the sheet after differs ({found})" if found else None


def _without_said(roll: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in roll.items() if key != "label_said"}


def _resolved_difference(
    r: Resolution, result: Result, generator: HmacGenerator | None
) -> str | None:
    """How a resolution resolved again parts from the log, or None: the sheet after, the
    dice rolled, the dice counter and the pending choice must be the logged ones."""
    found = first_difference(r.sheet_after, result.sheet)
    if found:
        return f"the sheet after differs ({found})"
    # A roll's label_said (its label's words in other languages) is not what the dice
    # did, and entries older than it have none.
    rolls = [_without_said(roll.as_dict()) for roll in result.rolls]
    if rolls != [_without_said(roll) for roll in r.rolls]:
        return "the replay rolls other dice than the log records"
    end = r.dice_counter_start if generator is None else generator.counter
    if end != r.dice_counter_end:
        return f"the dice counter ends at {end}, the log says {r.dice_counter_end}"
    replayed = None if result.pending_choice is None else result.pending_choice.as_dict()
    logged = (
        None
        if r.pending_choice is None
        else {
            k: v
            for k, v in r.pending_choice.items()
            if k != "id"  # a fresh uuid
        }
    )
    found = first_difference(logged, replayed)
    return f"the pending choice differs ({found})" if found else None


def _player(params: Any, side: str) -> int | None:
    who = params.get(side) if isinstance(params, dict) else None
    user_id = who.get("id") if isinstance(who, dict) else None
    return user_id if isinstance(user_id, int) else None


def _owner_after(r: Resolution, by_id: _Replayed, owner_id: int | None) -> int | None:
    """Who plays the character after the entry: changed by an edit of who plays them, its
    undo or its redo (rules.play.editing.played_by_again), else ``owner_id`` still."""
    entry: Resolution | None = r
    side = "to"
    if r.kind in (ResolutionKind.UNDO, ResolutionKind.REDO):
        entry = by_id.get(r.params.get("resolution", -1))
        side = "from" if r.kind == ResolutionKind.UNDO else "to"
        if entry is not None and entry.kind == ResolutionKind.REDO:  # an undo of a redo
            entry = by_id.get(entry.params.get("resolution", -1))
    if entry is None or entry.kind != ResolutionKind.EDIT or entry.action != OWNER:
        return owner_id
    return _player(entry.params, side)


def replay_campaign(campaign: Campaign) -> ReplayReport:
    """Replay every character of the campaign; the first divergence of each, if any."""
    report = ReplayReport(campaign=campaign)
    replayer = _Replayer(campaign)
    for character in Character.objects.filter(campaign=campaign).order_by("pk"):
        report.characters += 1
        divergence = replayer.character(character, report)
        if divergence is not None:
            assert report.divergences is not None
            report.divergences.append(divergence)
    return report


def campaigns_to_replay(ids: list[int] | None) -> Iterator[Campaign]:
    campaigns = Campaign.objects.order_by("pk")
    if ids:
        campaigns = campaigns.filter(pk__in=ids)
    yield from campaigns
