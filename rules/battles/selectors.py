"""Reads of warband battles: whose they are, the board as a viewer sees it, the units."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import Http404
from django.utils.translation import gettext, gettext_lazy

from campaigns.access import access_campaign
from campaigns.models import Campaign, Membership
from characters.models import Character
from core.errors import NotAllowed
from rules.battles.models import Battle
from rules.engine.registry import get_ruleset
from rules.engine.rulesets.warband import (
    Warband,
    rout_checks_due,
    rout_threshold,
)
from rules.log.context import campaign_context
from rules.log.selectors import LatestRow

LATEST_BATTLE: LatestRow = (
    "battle",
    Battle,
    (
        ("pk", "id"),
        ("turn", "turn"),
        ("active", "active"),
        ("phase", "phase"),
        ("ended_at", "ended_at"),
    ),
)
NO_BATTLE = gettext_lazy("no battle is under way in this campaign")


def latest_battle(campaign: Campaign) -> Battle | None:
    """The campaign's latest battle, running or ended (rules.battles.services)."""
    return Battle.objects.filter(campaign=campaign).order_by("-id").first()


def warband_rules(campaign: Campaign) -> Warband | None:
    """The campaign's ruleset when it fights battles, else None (answered 404)."""
    ruleset = get_ruleset(campaign.ruleset)
    return ruleset if isinstance(ruleset, Warband) else None


def warband_rules_or_404(campaign: Campaign) -> Warband:
    ruleset = warband_rules(campaign)
    if ruleset is None:
        raise Http404(gettext("only warband campaigns fight battles"))
    return ruleset


def access_battles(user: Any, campaign_id: int | str, *, referee: bool = False) -> Membership:
    """The user's membership of a warband campaign, for its battles.

    404 for outsiders and for campaigns of other rulesets (they have no battles); with
    ``referee=True`` a player gets :class:`NotAllowed` (403).
    """
    membership = access_campaign(user, campaign_id)
    warband_rules_or_404(membership.campaign)
    if referee and not membership.is_referee:
        raise NotAllowed(gettext("only the campaign's referee may run its battles"))
    return membership


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
    ruleset = warband_rules_or_404(campaign)
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
