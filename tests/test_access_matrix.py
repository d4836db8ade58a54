"""Who may do what: every endpoint of config/api_urls.py x every kind of user.

Roles: ``anonymous`` (no session, no token), ``outsider`` (signed in, not in the
campaign), ``player`` (owns the character the row is about), ``other_player`` (in the
campaign, does not own it) and ``referee``; then API tokens (campaigns.access):
``referee_read`` (the referee's ``read`` token), ``referee_as_player`` (the referee's
``player`` token: the referee acts as a player who does not own Aldo),
``player_read`` (the player's ``read`` token), ``referee_elsewhere`` (a ``referee``
token of the referee limited to another campaign) and ``revoked`` (the referee's
token after DELETE auth/tokens/{id}/).

* Anonymous users and revoked tokens get 401 with ``WWW-Authenticate: Token``.
* A token may not do what its scope leaves out: 403 (404 outside its campaign).
* Outsiders get 404 on anything of the campaign: they must not learn it exists.
* Another player's character answers 404 like a stranger's.
* Players get 403 on referee-only things they can see.

Every denied request must leave the world exactly as it was: sheets, versions,
pending choices, the resolution log, memberships, invites, tables, options.

A row of MATRIX per endpoint and method: a new URL in config/api_urls.py fails
``test_every_endpoint_is_in_the_matrix`` until it is added here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.models import ApiToken, DiscordLink, DiscordLinkCode
from accounts.services import token_create, token_revoke
from campaigns.access import TokenScope
from campaigns.invitations import invitations_create
from campaigns.models import Campaign, Invite, Membership, PlayerInvitation, RevealedSeed, Role
from campaigns.services import campaign_create, invite_create
from characters.models import Character
from config import api_urls
from discord_play.models import ChannelBinding
from rules.battles.models import Battle
from rules.battles.services import battle_begin
from rules.clock.models import ClockJob, ClockJobState
from rules.clock.services import clock_advance_start
from rules.log.models import CampaignTable, Resolution, ScheduledEffect
from rules.play.dice_rotation import campaign_archive
from rules.play.services import character_create, resolution_create_action
from rules.play.undo import resolution_undo
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.services import events_record, webhook_create

ROLES = (
    "anonymous",
    "outsider",
    "player",
    "other_player",
    "referee",
    "referee_read",
    "referee_as_player",
    "player_read",
    "referee_elsewhere",
    "revoked",
)
# Token roles: (whose token, scope, limited to another campaign, revoked).
TOKEN_ROLES = {
    "referee_read": ("referee", TokenScope.READ, False, False),
    "referee_as_player": ("referee", TokenScope.PLAYER, False, False),
    "player_read": ("player", TokenScope.READ, False, False),
    "referee_elsewhere": ("referee", TokenScope.REFEREE, True, False),
    "revoked": ("referee", TokenScope.REFEREE, False, True),
}


@dataclass
class World:
    """One campaign with the player's character (Aldo) and the other player's (Bo)."""

    campaign: Campaign
    users: dict[str, Any]
    aldo: Character
    bo: Character
    invite_code: str
    resolution_id: int
    job_id: int
    webhook_id: int
    delivery_id: int
    tokens: dict[str, str]  # token role -> secret
    spare_token_id: int  # one of the player's tokens, for DELETE auth/tokens/{id}/
    invitation_id: int  # the player's import invitation to another campaign (issue 36)


@dataclass(frozen=True)
class Row:
    """Expected status per role for one endpoint and method."""

    url_name: str
    method: str
    expected: dict[str, int]
    kwargs: Callable[[World], dict[str, Any]] = lambda w: {}
    body: Callable[[World, str], Any] = lambda w, role: None
    ruleset: str = "hit_dice"
    # "choice": Aldo waits on a choice; "acted": Aldo took damage; "undone": and the
    # referee undid it; "battle": one runs; "archived": the campaign is archived
    # (at the end of the set-up)
    prepare: str = ""
    label: str = ""

    @property
    def id(self) -> str:
        return f"{self.url_name}-{self.method}{'-' + self.label if self.label else ''}"


def statuses(
    anonymous: int,
    outsider: int,
    player: int,
    other_player: int,
    referee: int,
    referee_read: int,
    referee_as_player: int,
    player_read: int,
    referee_elsewhere: int,
    revoked: int,
) -> dict[str, int]:
    return dict(
        anonymous=anonymous,
        outsider=outsider,
        player=player,
        other_player=other_player,
        referee=referee,
        referee_read=referee_read,
        referee_as_player=referee_as_player,
        player_read=player_read,
        referee_elsewhere=referee_elsewhere,
        revoked=revoked,
    )


def campaign_kw(w: World) -> dict[str, Any]:
    return {"campaign_id": w.campaign.pk}


def aldo_kw(w: World) -> dict[str, Any]:
    return {"character_id": w.aldo.pk}


def table_kw(w: World) -> dict[str, Any]:
    return {"campaign_id": w.campaign.pk, "key": "diseases"}


def reveal_kw(w: World) -> dict[str, Any]:
    return {"character_id": w.aldo.pk, "resolution_id": w.resolution_id}


def invite_kw(w: World) -> dict[str, Any]:
    return {"campaign_id": w.campaign.pk, "invite_id": Invite.objects.get(code=w.invite_code).pk}


def member_kw(w: World) -> dict[str, Any]:
    return {"campaign_id": w.campaign.pk, "user_id": w.users["other_player"].pk}


def import_body(w: World, role: str) -> dict[str, Any]:
    from rules.logbook.export import campaign_export

    return {"export": campaign_export(w.campaign)}


def job_kw(w: World) -> dict[str, Any]:
    return {"campaign_id": w.campaign.pk, "job_id": w.job_id}


def webhook_kw(w: World) -> dict[str, Any]:
    return {"campaign_id": w.campaign.pk, "webhook_id": w.webhook_id}


def delivery_kw(w: World) -> dict[str, Any]:
    return {**webhook_kw(w), "delivery_id": w.delivery_id}


def token_kw(w: World) -> dict[str, Any]:
    return {"token_id": w.spare_token_id}


def invitation_kw(w: World) -> dict[str, Any]:
    return {"invitation_id": w.invitation_id}


def answer(w: World, role: str) -> dict[str, Any]:
    w.aldo.refresh_from_db()
    assert w.aldo.pending_choice is not None
    return {"choice_id": w.aldo.pending_choice["id"], "option": "major_wound"}


def diseases_table(w: World, role: str) -> dict[str, Any]:
    from rules.engine.registry import get_ruleset

    return {"data": get_ruleset("old_school").tables["diseases"]}


MATRIX = [
    Row(
        "api-register",
        "post",
        statuses(201, 201, 201, 201, 201, 201, 201, 201, 201, 201),
        body=lambda w, role: {"username": f"new-{role}", "password": "a long pass phrase 42"},
    ),
    Row(
        "api-token",
        "post",
        statuses(200, 200, 200, 200, 200, 200, 200, 200, 200, 200),
        body=lambda w, role: {"username": "player", "password": "pw-player"},
    ),
    Row("api-tokens", "get", statuses(401, 200, 200, 200, 200, 403, 403, 403, 403, 401)),
    Row(
        "api-tokens",
        "post",
        statuses(401, 201, 201, 201, 201, 403, 403, 403, 403, 401),
        body=lambda w, role: {"name": "A bot", "scope": "read"},
    ),
    Row(
        "api-token-detail",
        "delete",
        statuses(401, 404, 204, 404, 404, 403, 403, 403, 403, 401),
        kwargs=token_kw,
    ),
    # Discord links are the person's, managed as tokens are (docs/discord.md)
    Row(
        "api-discord-link-code",
        "post",
        statuses(401, 201, 201, 201, 201, 403, 403, 403, 403, 401),
    ),
    Row("api-discord-link", "get", statuses(401, 200, 200, 200, 200, 403, 403, 403, 403, 401)),
    Row("api-discord-link", "delete", statuses(401, 204, 204, 204, 204, 403, 403, 403, 403, 401)),
    Row(
        "api-campaign-discord",
        "put",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {"guild_id": "800000000000000001", "channel_id": "7001"},
    ),
    Row("api-rulesets", "get", statuses(401, 200, 200, 200, 200, 200, 200, 200, 200, 401)),
    Row("api-campaigns", "get", statuses(401, 200, 200, 200, 200, 200, 200, 200, 200, 401)),
    Row(
        "api-campaigns",
        "post",
        statuses(401, 201, 201, 201, 201, 403, 201, 403, 403, 401),
        body=lambda w, role: {"name": "Another", "ruleset": "hit_dice"},
    ),
    Row(
        "api-campaign-join",
        "post",
        statuses(401, 200, 200, 200, 200, 403, 200, 403, 403, 401),
        body=lambda w, role: {"code": w.invite_code},
    ),
    Row(
        "api-campaign",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign",
        "patch",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {
            "ruleset": "hit_dice",
            "name": "Renamed",
            "options": {"bypass_hp_per_level": 5},
        },
    ),
    Row(
        "api-invites",
        "post",
        statuses(401, 404, 403, 403, 201, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign",
        "delete",
        statuses(401, 404, 403, 403, 204, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {"confirm": "The matrix"},
    ),
    Row(
        "api-invites",
        "get",
        statuses(401, 404, 403, 403, 200, 200, 403, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-invite",
        "delete",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=invite_kw,
    ),
    Row(
        "api-member",
        "delete",
        statuses(401, 404, 403, 403, 204, 403, 403, 403, 404, 401),
        kwargs=member_kw,
    ),
    Row(
        "api-campaign-leave",
        "post",
        statuses(401, 404, 204, 204, 409, 403, 409, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign-log",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign-recap",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign-recap-md",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign-export",
        "get",
        statuses(401, 404, 403, 403, 200, 200, 403, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign-log-csv",
        "get",
        statuses(401, 404, 403, 403, 200, 200, 403, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(  # a player token may not import (issue 36)
        "api-campaign-import",
        "post",
        statuses(401, 201, 201, 201, 201, 403, 403, 403, 403, 401),
        body=import_body,
    ),
    Row(
        "api-import-invitations",
        "get",
        statuses(401, 404, 403, 403, 200, 200, 403, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row("api-invitations", "get", statuses(401, 200, 200, 200, 200, 200, 200, 200, 200, 401)),
    Row(
        "api-invitation-accept",
        "post",
        statuses(401, 404, 200, 404, 404, 403, 404, 403, 403, 401),
        kwargs=invitation_kw,
    ),
    Row(
        "api-invitation-decline",
        "post",
        statuses(401, 404, 200, 404, 404, 403, 404, 403, 403, 401),
        kwargs=invitation_kw,
    ),
    Row(
        "api-party-actions",
        "post",
        statuses(401, 404, 403, 403, 201, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {"action": "damage", "params": {"amount": 1}},
    ),
    Row(
        "api-campaign-characters",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign-characters",
        "post",
        statuses(401, 404, 201, 201, 201, 403, 201, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {"name": "Cid", "sheet": {"level": 1, "hit_dice": 1, "hp": 4}},
    ),
    Row(
        "api-tables",
        "get",
        statuses(401, 404, 403, 403, 200, 200, 403, 403, 404, 401),
        kwargs=campaign_kw,
        ruleset="old_school",
    ),
    Row(
        "api-table",
        "get",
        statuses(401, 404, 403, 403, 200, 200, 403, 403, 404, 401),
        kwargs=table_kw,
        ruleset="old_school",
    ),
    Row(
        "api-table",
        "put",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=table_kw,
        body=diseases_table,
        ruleset="old_school",
    ),
    Row(
        "api-table",
        "delete",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=table_kw,
        ruleset="old_school",
    ),
    Row(
        "api-character",
        "get",
        statuses(401, 404, 200, 404, 200, 200, 404, 200, 404, 401),
        kwargs=aldo_kw,
    ),
    Row(
        "api-character",
        "patch",
        statuses(401, 404, 200, 404, 200, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=lambda w, role: {"name": f"Aldo the {role}"},
    ),
    Row(
        "api-character",
        "delete",
        statuses(401, 404, 403, 404, 204, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=lambda w, role: {"confirm": "Aldo"},
    ),
    Row(
        "api-level-up",
        "post",
        statuses(401, 404, 403, 404, 200, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
    ),
    Row(
        "api-correct",
        "post",
        statuses(401, 404, 403, 404, 200, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=lambda w, role: {"changes": {"hp": 5}, "reason": "miscounted"},
    ),
    Row(
        "api-retire",
        "post",
        statuses(401, 404, 200, 404, 200, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=lambda w, role: {"retired": True},
    ),
    Row(
        "api-character-owner",
        "post",
        statuses(401, 404, 403, 404, 200, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=lambda w, role: {"owner": w.users["other_player"].pk},
    ),
    Row(
        "api-actions",
        "post",
        statuses(401, 404, 201, 404, 201, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=lambda w, role: {"action": "damage", "params": {"amount": 2}},
        label="owner-action",
    ),
    Row(
        "api-actions",
        "post",
        statuses(401, 404, 403, 404, 201, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=lambda w, role: {"action": "bypass", "params": {"damage": 3, "attacker_level": 1}},
        label="referee-action",
    ),
    Row(
        "api-odds",
        "post",
        statuses(401, 404, 200, 404, 200, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=lambda w, role: {"action": "damage", "params": {"amount": 30}},
        label="owner-odds",
    ),
    Row(
        "api-odds",
        "post",
        statuses(401, 404, 403, 404, 200, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=lambda w, role: {"action": "bypass", "params": {"damage": 3, "attacker_level": 1}},
        label="referee-odds",
    ),
    Row(
        "api-choices",
        "post",
        statuses(401, 404, 201, 404, 201, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        body=answer,
        prepare="choice",
    ),
    Row(
        "api-choice-cancel",
        "post",
        statuses(401, 404, 403, 404, 201, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        prepare="choice",
    ),
    Row(
        "api-undo",
        "post",
        statuses(401, 404, 403, 404, 201, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        prepare="acted",
    ),
    Row(
        "api-redo",
        "post",
        statuses(401, 404, 403, 404, 201, 403, 404, 403, 404, 401),
        kwargs=aldo_kw,
        prepare="undone",
    ),
    Row(
        "api-resolutions",
        "get",
        statuses(401, 404, 200, 404, 200, 200, 404, 200, 404, 401),
        kwargs=aldo_kw,
    ),
    Row(
        "api-reveal",
        "post",
        statuses(401, 404, 403, 404, 200, 403, 404, 403, 404, 401),
        kwargs=reveal_kw,
    ),
    Row(
        "api-campaign-calendar",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign-calendar",
        "put",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {"preset": "twelve_months"},
    ),
    Row(
        "api-clock-advance",
        "post",
        statuses(401, 404, 403, 403, 202, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {"minutes": 60},
    ),
    Row(
        "api-clock-jobs",
        "get",
        statuses(401, 404, 403, 403, 200, 200, 403, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-clock-job",
        "get",  # every member reads a job and its report (a player's: their own characters)
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=job_kw,
    ),
    Row(
        "api-clock-log",
        "get",  # the clock in the campaign log: every member
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-clock-job-resume",
        "post",
        statuses(401, 404, 403, 403, 202, 403, 403, 403, 404, 401),
        kwargs=job_kw,
    ),
    Row(
        "api-clock-live",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-clock-live",
        "put",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {"ratio": "1.5"},
    ),
    Row(
        "api-effects",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-dice-seeds",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-dice-export",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-dice-rotate",
        "post",
        statuses(401, 404, 403, 403, 201, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign-archive",
        "post",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-campaign-unarchive",
        "post",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        prepare="archived",
    ),
    Row(
        "api-webhooks",
        "get",
        statuses(401, 404, 403, 403, 200, 200, 403, 403, 404, 401),
        kwargs=campaign_kw,
    ),
    Row(
        "api-webhooks",
        "post",
        statuses(401, 404, 403, 403, 201, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {"url": "https://example.org/another"},
    ),
    Row(
        "api-webhook",
        "delete",
        statuses(401, 404, 403, 403, 204, 403, 403, 403, 404, 401),
        kwargs=webhook_kw,
    ),
    Row(
        "api-webhook-rotate-secret",
        "post",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=webhook_kw,
    ),
    Row(
        "api-webhook-deliveries",
        "get",
        statuses(401, 404, 403, 403, 200, 200, 403, 403, 404, 401),
        kwargs=webhook_kw,
    ),
    Row(
        "api-webhook-resend",
        "post",
        statuses(401, 404, 403, 403, 202, 403, 403, 403, 404, 401),
        kwargs=delivery_kw,
    ),
    # Warband battles: a warband campaign where Aldo fights for Red and Bo for Blue.
    Row(
        "api-battle",
        "get",
        statuses(401, 404, 200, 200, 200, 200, 200, 200, 404, 401),
        kwargs=campaign_kw,
        ruleset="warband",
        prepare="battle",
    ),
    Row(
        "api-battle",
        "post",
        statuses(401, 404, 403, 403, 201, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        body=lambda w, role: {"warbands": ["Red", "Blue"]},
        ruleset="warband",
    ),
    Row(
        "api-battle-next",
        "post",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        ruleset="warband",
        prepare="battle",
    ),
    Row(
        "api-battle-end",
        "post",
        statuses(401, 404, 403, 403, 200, 403, 403, 403, 404, 401),
        kwargs=campaign_kw,
        ruleset="warband",
        prepare="battle",
    ),
]

CASES = [
    pytest.param(row, role, id=f"{row.id}-{role}") for row, role in itertools.product(MATRIX, ROLES)
]


@pytest.fixture
def build_world(referee, player, other_player, outsider, scripted_dice):
    def build(row: Row) -> World:
        campaign = campaign_create(user=referee, name="The matrix", ruleset=row.ruleset)
        for user in (player, other_player):
            Membership.objects.create(campaign=campaign, user=user, role=Role.PLAYER)
        members = {m.user_id: m for m in Membership.objects.filter(campaign=campaign)}
        by_ruleset: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
            "hit_dice": ({"level": 2, "hit_dice": 2, "hp": 10},) * 2,
            "warband": ({"warband": "Red"}, {"warband": "Blue"}),
        }
        sheets = by_ruleset.get(row.ruleset, (None, None))
        aldo = character_create(membership=members[player.pk], name="Aldo", sheet=sheets[0])
        bo = character_create(membership=members[other_player.pk], name="Bo", sheet=sheets[1])
        if row.prepare == "choice":
            # 12 damage on 10 hp: strength save 1+10 fails, will save 20+10 passes: the
            # player chooses death or a major wound (rulings HD-4, G-3).
            scripted_dice([1, 20])
            resolution_create_action(
                character_id=aldo.pk,
                actor=player,
                by_referee=False,
                action="damage",
                params={"amount": 12},
            )
            aldo.refresh_from_db()
            assert aldo.pending_choice is not None
        elif row.prepare == "battle":
            battle_begin(campaign_id=campaign.pk, warbands=["Red", "Blue"], actor=referee)
        elif row.prepare in ("acted", "undone"):
            resolution_create_action(
                character_id=aldo.pk,
                actor=player,
                by_referee=False,
                action="damage",
                params={"amount": 3},
            )
            if row.prepare == "undone":
                resolution_undo(character_id=aldo.pk, actor=referee)
        invite = invite_create(campaign=campaign, user=referee)
        # A clock job that failed (its task is not run: tests commit nothing), so the
        # referee may resume it.
        job = clock_advance_start(campaign_id=campaign.pk, minutes=30, requested_by=referee)
        ClockJob.objects.filter(pk=job.pk).update(state=ClockJobState.FAILED, reason="test")
        elsewhere = campaign_create(user=referee, name="Elsewhere", ruleset="hit_dice")
        tokens = {}
        for role, (whose, scope, limited, revoked) in TOKEN_ROLES.items():
            owner = referee if whose == "referee" else player
            token, secret = token_create(
                user=owner,
                name=role,
                scope=scope,
                campaign_id=elsewhere.pk if limited else None,
            )
            if revoked:
                token_revoke(user=owner, token_id=token.pk)
            tokens[role] = secret
        spare, _ = token_create(user=player, name="spare", scope=TokenScope.READ)
        for number, user in enumerate((referee, player, other_player, outsider), start=1):
            DiscordLink.objects.create(user=user, discord_user_id=f"60000000000000000{number}")
        if row.prepare == "archived":
            campaign_archive(campaign_id=campaign.pk)
        imported = campaign_create(user=referee, name="Imported", ruleset="hit_dice")
        (invitation,) = invitations_create(
            membership=Membership.objects.get(campaign=imported, user=referee),
            named={"aldo's player": player.get_username()},
            characters={},
        )
        webhook = webhook_create(campaign=campaign, url="https://example.org/hook", user=referee)
        events_record(campaign_id=campaign.pk, events=lambda: [("test.event", {})])
        return World(
            campaign=campaign,
            users={
                "anonymous": None,
                "outsider": outsider,
                "player": player,
                "other_player": other_player,
                "referee": referee,
            },
            aldo=aldo,
            bo=bo,
            invite_code=invite.code,
            resolution_id=Resolution.objects.filter(character=aldo).earliest("id").pk,
            job_id=job.pk,
            tokens=tokens,
            spare_token_id=spare.pk,
            invitation_id=invitation.pk,
            webhook_id=webhook.pk,
            delivery_id=WebhookDelivery.objects.get(endpoint=webhook).pk,
        )

    return build


def snapshot() -> dict[str, Any]:
    """Everything a request could change."""
    return {
        "campaigns": list(
            Campaign.objects.order_by("pk").values_list(
                "pk",
                "name",
                "ruleset",
                "options",
                "clock",
                "live_ratio",
                "live_last_tick",
                "dice_seed",
                "dice_seed_first_counter",
                "archived_at",
            )
        ),
        "revealed_seeds": RevealedSeed.objects.count(),
        "clock_jobs": list(ClockJob.objects.order_by("pk").values_list("pk", "state", "minutes")),
        "characters": list(
            Character.objects.order_by("pk").values_list(
                "pk", "name", "owner_id", "sheet", "version", "pending_choice", "retired_at"
            )
        ),
        "resolutions": list(
            Resolution.objects.order_by("pk").values_list("pk", "version", "revealed")
        ),
        "effects": list(ScheduledEffect.objects.order_by("pk").values_list("pk", "state")),
        "memberships": list(
            Membership.objects.order_by("pk").values_list("campaign_id", "user_id", "role")
        ),
        "invites": list(Invite.objects.order_by("pk").values_list("pk", "revoked_at", "uses")),
        "invitations": list(
            PlayerInvitation.objects.order_by("pk").values_list("pk", "state", "answered_at")
        ),
        "tables": list(CampaignTable.objects.order_by("pk").values_list("key", "data")),
        "battles": list(
            Battle.objects.order_by("pk").values_list("pk", "turn", "active", "phase", "ended_at")
        ),
        "users": get_user_model().objects.count(),
        "tokens": list(ApiToken.objects.order_by("pk").values_list("pk", "user_id", "scope")),
        "webhooks": list(WebhookEndpoint.objects.order_by("pk").values_list("pk", "url", "secret")),
        "deliveries": list(WebhookDelivery.objects.order_by("pk").values_list("pk", "state")),
        "discord_links": list(
            DiscordLink.objects.order_by("pk").values_list("user_id", "discord_user_id")
        ),
        "discord_codes": list(DiscordLinkCode.objects.order_by("pk").values_list("pk", "used_at")),
        "discord_channels": list(
            ChannelBinding.objects.order_by("pk").values_list("channel_id", "campaign_id")
        ),
    }


@pytest.mark.django_db
@pytest.mark.parametrize(("row", "role"), CASES)
def test_access(row: Row, role: str, build_world, client_for) -> None:
    world = build_world(row)
    if role in TOKEN_ROLES:
        client = client_for(None)
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens[role]}")
    else:
        client = client_for(world.users[role])
    url = reverse(row.url_name, kwargs=row.kwargs(world))
    body = row.body(world, role)
    before = snapshot()

    response = getattr(client, row.method)(url, body, format="json")

    expected = row.expected[role]
    assert response.status_code == expected, response.content
    if expected >= 400:
        assert snapshot() == before, "a denied request changed something"
        assert "detail" in response.json()
    if role == "anonymous" and expected == 401:
        assert response.json() == {"detail": "Authentication credentials were not provided."}
    if expected == 401:
        assert response["WWW-Authenticate"] == "Token"


def test_every_endpoint_is_in_the_matrix() -> None:
    """Adding a URL to config/api_urls.py without a row here fails this test."""
    names = {pattern.name for pattern in api_urls.urlpatterns}
    assert names == {row.url_name for row in MATRIX}


def test_every_method_of_every_endpoint_is_in_the_matrix() -> None:
    """Each method a view answers (besides OPTIONS/HEAD) has a row."""
    rows = {(row.url_name, row.method) for row in MATRIX}
    for pattern in api_urls.urlpatterns:
        view = pattern.callback.view_class  # type: ignore[attr-defined]  # set by as_view()
        methods = {
            m for m in view.http_method_names if m not in {"options", "head"} and hasattr(view, m)
        }
        assert {(pattern.name, m) for m in methods} <= rows, pattern.name


def test_other_players_see_the_party_but_not_each_others_sheets(
    build_world, client_for, other_player
) -> None:
    world = build_world(MATRIX[0])
    client = client_for(other_player)
    assert client.get(reverse("api-campaign", kwargs=campaign_kw(world))).status_code == 200
    response = client.get(reverse("api-campaign-characters", kwargs=campaign_kw(world)))
    assert response.status_code == 200
    rows = {row["name"]: row for row in response.json()}
    assert rows["Aldo"]["sheet"] is None
    assert rows["Aldo"]["version"] is None
    assert rows["Aldo"]["pending_choice"] is None
    assert rows["Aldo"]["status"] == "standing"
    assert rows["Bo"]["sheet"]["hp"] == 10
    assert rows["Bo"]["version"] == 1


def test_invalid_token_is_401_too(client_for, db) -> None:
    client = client_for(None)
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    response = client.get(reverse("api-campaigns"))
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid token."}


@pytest.mark.parametrize("huge", [2**63, 10**30])
def test_ids_beyond_any_database_are_404(huge, build_world, client_for, referee) -> None:
    client = client_for(referee)
    world = build_world(MATRIX[0])
    for name, kwargs in [
        ("api-campaign", {"campaign_id": huge}),
        ("api-campaign-characters", {"campaign_id": huge}),
        ("api-character", {"character_id": huge}),
        ("api-resolutions", {"character_id": huge}),
        ("api-effects", {"campaign_id": huge}),
        ("api-clock-job", {"campaign_id": world.campaign.pk, "job_id": huge}),
    ]:
        assert client.get(reverse(name, kwargs=kwargs)).status_code == 404, name
    actions = reverse("api-actions", kwargs={"character_id": huge})
    response = client.post(actions, {"action": "damage", "params": {"amount": 1}}, format="json")
    assert response.status_code == 404
    reveal = reverse("api-reveal", kwargs={"character_id": world.aldo.pk, "resolution_id": huge})
    assert client.post(reveal).status_code == 404


def test_matrix_statuses_are_documented_in_the_schema() -> None:
    """Each status the matrix expects is a documented answer of that operation."""
    from drf_spectacular.generators import SchemaGenerator

    from config.openapi import api_paths

    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths = api_paths()
    for row in MATRIX:
        # a name several paths share (one per table key): each of them
        keys = [key for key in paths if key.split("[")[0] == row.url_name]
        assert keys, row.url_name
        responses = schema["paths"][paths[keys[0]]][row.method]["responses"]
        for role, status in row.expected.items():
            assert str(status) in responses, (row.id, role, status)
