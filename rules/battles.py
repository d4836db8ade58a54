"""Warband battles (rulings WB-3, WB-6): start one, move it on phase by phase, end it.

A battle belongs to a warband campaign; at most one runs at a time. Moving it on
recovers the units of the warband whose upkeep begins and of the one whose end phase
is over: each recovery is a resolution of that unit (kind ``battle``), so each unit's
log tells its battle. The turn order, phases and rout arithmetic are the engine's
(``rules.engine.rulesets.warband``); this module stores and locks.

Lock order, as in ``rules/services.py``: the campaign row, then the battle row, then
character rows in pk order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import transaction
from django.http import Http404
from django.utils import timezone

from campaigns.access import access_campaign, refuse_archived
from campaigns.models import Campaign, Membership
from characters.models import Character
from core.errors import NotAllowed, ResolutionConflict
from rules.engine.interface import Context, RuleError
from rules.engine.registry import get_ruleset
from rules.engine.rulesets.warband import (
    BattleState,
    Moment,
    Warband,
    battle_next,
    battle_start,
    rout_checks_due,
    rout_threshold,
)
from rules.models import Battle, ResolutionKind
from rules.services import campaign_context, persist_result

MIN_WARBANDS = 2  # project ruling WB-P9: a battle is fought between warbands
MAX_WARBANDS = 12
NO_BATTLE = "no battle is under way in this campaign"


def warband_rules(campaign: Campaign) -> Warband | None:
    """The campaign's ruleset when it fights battles, else None (answered 404)."""
    ruleset = get_ruleset(campaign.ruleset)
    return ruleset if isinstance(ruleset, Warband) else None


def _rules(campaign: Campaign) -> Warband:
    ruleset = warband_rules(campaign)
    if ruleset is None:
        raise Http404("only warband campaigns fight battles")
    return ruleset


def access_battles(user: Any, campaign_id: int | str, *, referee: bool = False) -> Membership:
    """The user's membership of a warband campaign, for its battles.

    404 for outsiders and for campaigns of other rulesets (they have no battles); with
    ``referee=True`` a player gets :class:`NotAllowed` (403).
    """
    membership = access_campaign(user, campaign_id)
    _rules(membership.campaign)
    if referee and not membership.is_referee:
        raise NotAllowed("only the campaign's referee may run its battles")
    return membership


# -- reads ------------------------------------------------------------------------------------


def running_battle(campaign: Campaign) -> Battle | None:
    return Battle.objects.filter(campaign=campaign, ended_at__isnull=True).first()


def units_of(campaign: Campaign, names: Iterable[str]) -> dict[str, list[Character]]:
    """The campaign's units of each named warband, in pk order."""
    grouped: dict[str, list[Character]] = {name: [] for name in names}
    for character in Character.objects.filter(campaign=campaign).order_by("pk"):
        name = character.sheet.get("warband")
        if name in grouped:
            grouped[name].append(character)
    return grouped


def warband_names(campaign: Campaign) -> list[str]:
    """Every warband named on a unit of the campaign, in order of first unit."""
    names: dict[str, None] = {}
    for sheet in (
        Character.objects.filter(campaign=campaign).order_by("pk").values_list("sheet", flat=True)
    ):
        if isinstance(sheet, dict) and isinstance(sheet.get("warband"), str):
            names.setdefault(sheet["warband"], None)
    return list(names)


def battle_view(battle: Battle, viewer: Membership) -> dict[str, Any]:
    """The battle as the API answers it (API.md): turn, active warband, phase, warbands.

    Everyone in the campaign sees each unit's name and state; wounds only on the units
    the viewer may see in full (their own, or all for the referee).
    """
    campaign = battle.campaign
    ruleset = _rules(campaign)
    context = campaign_context(campaign, by_referee=viewer.is_referee)
    percent = ruleset.rout_percent(context)
    grouped = units_of(campaign, battle.warbands)
    warbands = []
    for name in battle.warbands:
        units = grouped[name]
        down = sum(1 for unit in units if unit.sheet["injury"] == "incapacitated")
        warbands.append(
            {
                "name": name,
                "units": len(units),
                "incapacitated": down,
                "rout_threshold": rout_threshold(len(units), percent),
                "rout_checks_due": rout_checks_due(len(units), down, percent),
                "members": [_unit_view(unit, viewer) for unit in units],
            }
        )
    return {
        "id": battle.pk,
        "turn": battle.turn,
        "active": battle.warbands[battle.active],
        "active_index": battle.active,
        "phase": battle.phase,
        "phases": ruleset.phases(context),
        "warbands": warbands,
        "started_at": battle.started_at,
        "ended_at": battle.ended_at,
    }


def _unit_view(unit: Character, viewer: Membership) -> dict[str, Any]:
    visible = viewer.is_referee or unit.owner_id == viewer.user_id
    return {
        "id": unit.pk,
        "name": unit.name,
        "owner": unit.owner_id,
        "injury": unit.sheet["injury"],
        "wounds": unit.sheet["wounds"] if visible else None,
        "max_wounds": unit.sheet["max_wounds"] if visible else None,
    }


def scars_due(battle: Battle) -> list[dict[str, Any]]:
    """The battle's incapacitated units: each is due a roll on the Scars table (WB-6)."""
    grouped = units_of(battle.campaign, battle.warbands)
    return [
        {"id": unit.pk, "name": unit.name, "warband": name}
        for name in battle.warbands
        for unit in grouped[name]
        if unit.sheet["injury"] == "incapacitated"
    ]


# -- writes -----------------------------------------------------------------------------------


def _lock_campaign(campaign_id: int) -> tuple[Campaign, Warband]:
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    refuse_archived(campaign)
    return campaign, _rules(campaign)


def _lock_running(campaign: Campaign) -> Battle:
    battle = Battle.objects.select_for_update().filter(campaign=campaign, ended_at__isnull=True)
    found = battle.first()
    if found is None:
        raise Http404(NO_BATTLE)
    return found


def battle_begin(*, campaign_id: int, warbands: Sequence[str], actor: Any) -> Battle:
    """Start a battle: turn 1, the first warband active, in its upkeep (WB-6).

    Nothing recovers at the start: the battle has hurt no one yet (project ruling WB-P9).
    """
    names = [name.strip() for name in warbands]
    if len(set(names)) != len(names):
        raise RuleError("warbands: each warband takes its turn once; a name appears twice")
    if not MIN_WARBANDS <= len(names) <= MAX_WARBANDS:
        raise RuleError(f"warbands: a battle has {MIN_WARBANDS} to {MAX_WARBANDS} warbands")
    with transaction.atomic():
        campaign, ruleset = _lock_campaign(campaign_id)
        if running_battle(campaign) is not None:
            raise ResolutionConflict("a battle is already under way: end it before starting one")
        grouped = units_of(campaign, names)
        empty = [name for name, units in grouped.items() if not units]
        if empty:
            known = ", ".join(warband_names(campaign)) or "none yet"
            raise RuleError(
                f"warbands: no unit of this campaign belongs to {empty[0]!r} "
                f"(its warbands: {known})"
            )
        context = campaign_context(campaign, by_referee=True)
        state = battle_start(ruleset.phases(context))
        return Battle.objects.create(
            campaign=campaign,
            warbands=names,
            turn=state.turn,
            active=state.active,
            phase=state.phase,
            started_by=actor if getattr(actor, "is_authenticated", False) else None,
        )


def battle_advance(*, campaign_id: int, actor: Any) -> Battle:
    """The next phase; recover the units its step brings (rulings WB-3, WB-6).

    Each recovery is a logged resolution of that unit. A unit that waits on a choice
    is not touched (warband units never do; other code could).
    """
    with transaction.atomic():
        campaign, ruleset = _lock_campaign(campaign_id)
        battle = _lock_running(campaign)
        context = campaign_context(campaign, by_referee=True)
        state, recoveries = battle_next(
            BattleState(battle.turn, battle.active, battle.phase),
            ruleset.phases(context),
            len(battle.warbands),
        )
        battle.turn, battle.active, battle.phase = state.turn, state.active, state.phase
        battle.save(update_fields=["turn", "active", "phase"])
        if recoveries:
            names = {battle.warbands[r.warband]: r.moment for r in recoveries}
            _recover(campaign, ruleset, context, names, actor)
        return battle


def _recover(
    campaign: Campaign, ruleset: Warband, context: Context, moments: dict[str, Moment], actor: Any
) -> None:
    """Recover the units of each warband at its moment; lock their rows in pk order."""
    ids = [
        unit.pk
        for name in moments
        for unit in units_of(campaign, [name])[name]
        if ruleset.battle_recovery(unit.sheet, moments[name]) is not None
    ]
    for unit in Character.objects.select_for_update().filter(pk__in=sorted(ids)).order_by("pk"):
        moment = moments.get(unit.sheet.get("warband", ""))
        result = ruleset.battle_recovery(unit.sheet, moment) if moment else None
        if result is None or unit.pending_choice is not None:
            continue
        persist_result(
            campaign=campaign,
            character=unit,
            result=result,
            kind=ResolutionKind.BATTLE,
            action=f"battle_{moment}",
            params={"moment": moment},
            actor=actor,
            counter_start=campaign.dice_counter,
            counter_end=campaign.dice_counter,
            clock=context.clock,
        )


def battle_finish(*, campaign_id: int) -> tuple[Battle, list[dict[str, Any]]]:
    """The battle is over; its incapacitated units are due a Scars roll (WB-6)."""
    with transaction.atomic():
        campaign, _ = _lock_campaign(campaign_id)
        battle = _lock_running(campaign)
        battle.ended_at = timezone.now()
        battle.save(update_fields=["ended_at"])
        return battle, scars_due(battle)
