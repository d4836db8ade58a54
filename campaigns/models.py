"""Campaigns, their members and invite codes."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from decimal import ROUND_CEILING, Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy

# A live clock runs at most a week of in-game time per real minute.
MAX_LIVE_RATIO = 7 * 24 * 60

MICROSECONDS_PER_MINUTE = 60_000_000


def live_next_tick(ratio: Decimal, last_tick: datetime | None) -> datetime | None:
    """The real moment a live clock at ``ratio`` that last ticked at ``last_tick`` has its
    first whole in-game minute to move (None when it is not running): the first whole
    microsecond at which elapsed x ratio reaches a minute, as rules.clock.live counts
    the minutes (its tests hold the two to each other). Stored as
    ``Campaign.live_next_tick``, so that beat's tick finds the campaigns due by an index
    and costs what they cost, not every live campaign (issue 39)."""
    if ratio <= 0 or last_tick is None:
        return None
    wait = (Decimal(MICROSECONDS_PER_MINUTE) / Decimal(ratio)).to_integral_value(ROUND_CEILING)
    return last_tick + timedelta(microseconds=int(wait))


def new_dice_seed() -> str:
    return secrets.token_hex(32)


def new_invite_code() -> str:
    return secrets.token_urlsafe(9)


class Campaign(models.Model):
    name = models.CharField(max_length=120)
    # A key of rules.engine.registry.RULESETS; fixed once characters exist.
    ruleset = models.CharField(max_length=32)
    # Campaign options of RULINGS.md with the ruleset's defaults filled in.
    options = models.JSONField(default=dict, blank=True)
    # The in-game clock in minutes since the campaign's start (ruling G-1).
    clock = models.PositiveBigIntegerField(default=0)
    # Secret seed and counter of the campaign's HMAC dice generator (rules.engine.dice):
    # every roll is derived from both, so any roll can be recomputed later.
    dice_seed = models.CharField(max_length=64, default=new_dice_seed, editable=False)
    dice_counter = models.PositiveBigIntegerField(default=0)
    # The counter at which the current seed took over. The counter never goes back:
    # a rotation keeps counting, so each counter value belongs to exactly one seed
    # (docs/dice.md). Earlier seeds are revealed in RevealedSeed.
    dice_seed_first_counter = models.PositiveBigIntegerField(default=0)
    # Live clock (docs/clock.md): in-game minutes per real minute; 0 means the clock moves
    # only when the referee advances it. Celery beat advances live campaigns by the real
    # time elapsed since ``live_last_tick`` times the ratio (rules.clock.live.clock_live_tick).
    live_ratio = models.DecimalField(
        max_digits=9,
        decimal_places=3,
        default=Decimal(0),
        validators=[MinValueValidator(Decimal(0)), MaxValueValidator(Decimal(MAX_LIVE_RATIO))],
    )
    live_last_tick = models.DateTimeField(null=True, blank=True)
    # :func:`live_next_tick` of the two above, written with them: beat reads the campaigns
    # due a tick by it (the index ``campaign_live_due``); null while the clock stands.
    live_next_tick = models.DateTimeField(null=True, blank=True, editable=False)
    # "Actions move the clock": an action that takes time (a night's sleep, a search)
    # advances the clock by it when it ends (rules.clock.action_time, docs/clock.md).
    actions_move_clock = models.BooleanField(default=True)
    # How the clock reads (rules.engine.calendar, issue 25): months, week days and the date
    # at minute 0, as ``calendar_data`` writes them; {} is the default, "Day N, HH:MM".
    # Changing it never moves the clock.
    calendar = models.JSONField(default=dict, blank=True)
    # When the referee archived the campaign (null: in play). An archived campaign can be
    # read but not played: no action, no clock advance (campaigns.access.refuse_archived).
    archived_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["live_next_tick", "id"],
                condition=models.Q(live_next_tick__isnull=False),
                name="campaign_live_due",
            ),
        ]
        constraints = [
            # set exactly while the clock runs: a writer that forgets it fails here
            models.CheckConstraint(
                condition=models.Q(live_next_tick__isnull=True, live_ratio=0)
                | models.Q(live_next_tick__isnull=True, live_last_tick__isnull=True)
                | models.Q(
                    live_next_tick__isnull=False, live_ratio__gt=0, live_last_tick__isnull=False
                ),
                name="campaign_live_next_tick_while_running",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    REFEREE = "referee", gettext_lazy("Referee")
    PLAYER = "player", gettext_lazy("Player")


class Membership(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    joined_at = models.DateTimeField(auto_now_add=True)
    # When the member last saw what the clock did to their characters (the campaign page's
    # "since you last looked", issue 25); null: never, since they joined.
    reports_seen_at = models.DateTimeField(null=True, blank=True)
    # The e-mail digest (issue 25): a player asked for a mail, at most one a day, of what the
    # clock did to their characters. ``digest_since``: the reports changed after it are news
    # (set on opting in, then by each digest sent); ``digest_sent_at``: when the last one
    # went out, moved by compare-and-set so that one digest is sent however many tasks run.
    email_digest = models.BooleanField(default=False)
    digest_since = models.DateTimeField(null=True, blank=True)
    digest_sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user"),
        ]
        indexes = [
            models.Index(
                fields=["digest_sent_at"],
                condition=models.Q(email_digest=True),
                name="membership_digest_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} as {self.role} in {self.campaign}"

    @property
    def is_referee(self) -> bool:
        return self.role == Role.REFEREE


class Invite(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invites")
    code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # None: never expires. After it the code joins nobody (campaigns.services.invite_usable).
    expires_at = models.DateTimeField(null=True, blank=True)
    # A single-use code joins one new member, then stops working.
    single_use = models.BooleanField(default=False)
    uses = models.PositiveIntegerField(default=0)  # new members it brought in
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"invite {self.code} to {self.campaign}"


class InvitationState(models.TextChoices):
    PENDING = "pending", gettext_lazy("Waiting for an answer")
    ACCEPTED = "accepted", gettext_lazy("Accepted")
    DECLINED = "declined", gettext_lazy("Declined")


class PlayerInvitation(models.Model):
    """An import invitation (issue 36, docs/api.md "Export and import: who plays what").

    The importer of a campaign named someone here for a player of the export (``player``,
    their username in the old campaign): nobody joins a campaign, plays a character or is
    shown as the author of an entry without saying yes. Until the person accepts, the
    characters the export says ``player`` played are the importer's and the entries they
    made name ``player`` ("alice (imported)"); accepting makes them a player of the
    campaign, hands those characters over and names them on those entries, in one
    transaction (rules.logbook.invitations); declining leaves everything with the importer.

    ``user`` is the account that had ``username`` when the import was made, null when
    nobody had it: the importer is answered the same either way (no account is told
    apart from a missing one), and an invitation to nobody simply never gets an answer.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="player_invitations"
    )
    player = models.CharField(max_length=150)  # the export's name for them
    username = models.CharField(max_length=150)  # whom the importer named here, as written
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="player_invitations",
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    # The ids of the characters the export says ``player`` played (campaigns sits below
    # characters: ids, not keys); those still the inviter's are handed over on accepting.
    characters = models.JSONField(default=list, blank=True)
    state = models.CharField(
        max_length=16, choices=InvitationState.choices, default=InvitationState.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    # When the invitation's e-mail went out, set by compare-and-set before it is sent so
    # that one mail goes however often its task runs (campaigns.invitations).
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "player"], name="one_invitation_per_exported_player"
            ),
        ]
        indexes = [models.Index(fields=["user", "state"], name="invitations_of_user")]

    def __str__(self) -> str:
        return f"{self.username} invited to play {self.player} in {self.campaign}"


class RevealedSeed(models.Model):
    """A dice seed the campaign has stopped using and shown to its members.

    The seed drew every die from ``first_counter`` to ``last_counter`` (inclusive;
    null when it drew none). Append-only: written once by a rotation, never changed.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="revealed_seeds")
    seed = models.CharField(max_length=64)
    first_counter = models.PositiveBigIntegerField()
    last_counter = models.PositiveBigIntegerField(null=True, blank=True)
    revealed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["first_counter", "id"]

    def __str__(self) -> str:
        return f"seed of {self.campaign} from counter {self.first_counter}"
