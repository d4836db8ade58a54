"""Warband battles (rulings WB-3, WB-6): start one, move it on phase by phase, end it.

A battle belongs to a warband campaign; at most one runs at a time. Moving it on
recovers the units of the warband whose upkeep begins and of the one whose end phase
is over: each recovery is a resolution of that unit (kind ``battle``), so each unit's
log tells its battle. The turn order, phases and rout arithmetic are the engine's
(``rules.engine.rulesets.warband``); this module stores and locks.

Lock order, as in ``rules/play/services.py``: the campaign row, then the battle row, then
character rows in pk order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext

from campaigns.access import refuse_archived
from campaigns.models import Campaign
from characters.models import Character
from core.errors import ResolutionConflict
from rules.battles.models import Battle
from rules.battles.selectors import (
    NO_BATTLE,
    running_battle,
    scars_due,
    units_of,
    warband_names,
    warband_rules_or_404,
)
from rules.engine.interface import Context, RuleError
from rules.engine.rulesets.warband import (
    BattleState,
    Moment,
    Warband,
    battle_next,
    battle_start,
)
from rules.log.context import campaign_context
from rules.log.models import ResolutionKind
from rules.play.services import persist_result

MIN_WARBANDS = 2  # project ruling WB-P9: a battle is fought between warbands
MAX_WARBANDS = 12


# -- reads ------------------------------------------------------------------------------------


# -- writes -----------------------------------------------------------------------------------


def _lock_campaign(campaign_id: int) -> tuple[Campaign, Warband]:
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    refuse_archived(campaign)
    return campaign, warband_rules_or_404(campaign)


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
        raise RuleError(gettext("warbands: each warband takes its turn once; a name appears twice"))
    if not MIN_WARBANDS <= len(names) <= MAX_WARBANDS:
        raise RuleError(
            gettext("warbands: a battle has %(least)s to %(most)s warbands")
            % {"least": MIN_WARBANDS, "most": MAX_WARBANDS}
        )
    with transaction.atomic():
        campaign, ruleset = _lock_campaign(campaign_id)
        if running_battle(campaign) is not None:
            raise ResolutionConflict(
                gettext("a battle is already under way: end it before starting one")
            )
        grouped = units_of(campaign, names)
        empty = [name for name, units in grouped.items() if not units]
        if empty:
            known = ", ".join(warband_names(campaign))
            if known:
                text = gettext(
                    "warbands: no unit of this campaign belongs to %(name)s "
                    "(its warbands: %(known)s)"
                )
            else:
                text = gettext(
                    "warbands: no unit of this campaign belongs to %(name)s "
                    "(its warbands: none yet)"
                )
            raise RuleError(text % {"name": repr(empty[0]), "known": known})
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
