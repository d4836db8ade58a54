"""Writes for campaigns: create, options, invites, joining."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import F
from django.utils import timezone

from campaigns.models import Campaign, Invite, Membership, RevealedSeed, Role, new_dice_seed
from core.cleaning import reject_nul_characters, whole_numbers
from core.errors import ResolutionConflict
from rules.engine.calendar import CalendarError, calendar_data, parse_calendar, preset
from rules.engine.interface import RuleError
from rules.engine.registry import get_ruleset


def _merged_options(ruleset_key: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The campaign's options as stored, checked once here by the ruleset's options schema."""
    try:
        ruleset = get_ruleset(ruleset_key)
    except RuleError as error:
        raise ValidationError({"ruleset": [str(error)]}) from None
    try:
        for key, value in (options or {}).items():
            reject_nul_characters(value, f"option {key!r}")
        return ruleset.check_options(options or {})
    except RuleError as error:
        raise ValidationError({"options": [str(error)]}) from None


@transaction.atomic
def campaign_create(
    *, user: Any, name: str, ruleset: str, options: Mapping[str, Any] | None = None
) -> Campaign:
    """Create a campaign; its creator becomes its referee."""
    campaign = Campaign(
        name=name.strip(),
        ruleset=ruleset,
        options=_merged_options(ruleset, options),
        created_by=user,
    )
    campaign.full_clean()
    campaign.save()
    Membership.objects.create(campaign=campaign, user=user, role=Role.REFEREE)
    return campaign


@transaction.atomic
def campaign_update(
    *,
    campaign_id: int,
    name: str | None = None,
    ruleset: str | None = None,
    options: Mapping[str, Any] | None = None,
    actions_move_clock: bool | None = None,
) -> Campaign:
    """Rename, change options, or change the ruleset while no character exists."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    fields = []
    if ruleset is not None and ruleset != campaign.ruleset:
        if campaign.characters.exists():
            raise ResolutionConflict("the ruleset is fixed once the campaign has characters")
        campaign.ruleset = ruleset
        campaign.options = _merged_options(ruleset, None)
        fields += ["ruleset", "options"]
    if options is not None:
        campaign.options = _merged_options(campaign.ruleset, {**campaign.options, **options})
        fields.append("options")
    if name is not None:
        campaign.name = name.strip()
        fields.append("name")
    if actions_move_clock is not None:
        campaign.actions_move_clock = actions_move_clock
        fields.append("actions_move_clock")
    campaign.full_clean()
    campaign.save(update_fields=sorted(set(fields)) or None)
    return campaign


@transaction.atomic
def campaign_calendar_set(
    *, campaign_id: int, calendar: Mapping[str, Any] | None = None, preset_key: str = ""
) -> Campaign:
    """Set how the campaign's clock reads: a calendar, or a preset (``days`` is the
    default, "Day N"). The clock does not move; only how it is shown. A calendar that
    cannot be is a ValidationError in plain words (400)."""
    try:
        if preset_key:
            chosen = preset(preset_key)
        else:  # days: 30.0 is 30 (issue 36)
            chosen = parse_calendar(whole_numbers(calendar or {}))
            if chosen is None:
                raise CalendarError("A calendar needs at least one month.")
    except CalendarError as error:
        raise ValidationError({"calendar": [str(error)]}) from None
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    campaign.calendar = calendar_data(chosen)
    campaign.save(update_fields=["calendar"])
    return campaign


def membership_reports_seen(*, membership_id: int, seen_at: Any) -> None:
    """The member has seen what the clock did up to ``seen_at`` (never moves back)."""
    Membership.objects.filter(pk=membership_id).filter(
        models.Q(reports_seen_at__isnull=True) | models.Q(reports_seen_at__lt=seen_at)
    ).update(reports_seen_at=seen_at)


# -- the e-mail digest (issue 25) ---------------------------------------------------------------
def membership_digest_set(*, membership_id: int, on: bool, now: Any = None) -> bool:
    """A player asks for the e-mail digest of what the clock does to their characters, or
    stops it. Asking again changes nothing; asking anew counts from now (what happened
    before is not news by mail: the campaign page told it). True when it changed."""
    now = now or timezone.now()
    rows = Membership.objects.filter(pk=membership_id, role=Role.PLAYER)
    if on:
        return bool(rows.filter(email_digest=False).update(email_digest=True, digest_since=now))
    return bool(rows.filter(email_digest=True).update(email_digest=False))


def membership_digest_claim(*, membership_id: int, last_sent: Any, since: Any, now: Any) -> bool:
    """Compare-and-set: the digest covering up to ``now`` is this caller's to send, if the
    last one sent is still ``last_sent`` (None: never) and the player still wants it. Of
    two tasks sending one digest, one claims it; the other sends nothing."""
    rows = Membership.objects.filter(
        pk=membership_id, email_digest=True, digest_since=since, digest_sent_at=last_sent
    )  # "= None" reads IS NULL
    return bool(rows.update(digest_sent_at=now, digest_since=now))


def membership_digest_unclaim(
    *, membership_id: int, claimed: Any, last_sent: Any, since: Any
) -> None:
    """The mail claimed at ``claimed`` could not be sent: put the digest back as it was
    (compare-and-set too: a later digest is left alone), so the next try sends it."""
    Membership.objects.filter(pk=membership_id, digest_sent_at=claimed).update(
        digest_sent_at=last_sent, digest_since=since
    )


# The clock jobs still to finish, rules.clock.models.UNFINISHED_JOB_STATES by value (this layer
# does not import rules; a test holds the two equal).
CLOCK_BUSY_STATES = ("queued", "running", "waiting")


# What the rules layer does around a rotation (this layer does not import it; rules/play/apps.py
# registers them): checks that may refuse it (409) before the seed is revealed, told
# whether the campaign is being archived; then, under the new seed, whatever must be drawn
# again so that the revealed seed predicts nothing still hidden (docs/dice.md).
ROTATION_CHECKS: list[Callable[[Campaign, bool], None]] = []
ROTATION_FOLLOWUPS: list[Callable[[Campaign], None]] = []


def _rotate(campaign: Campaign, *, archiving: bool = False) -> RevealedSeed:
    """Reveal the locked campaign's seed and commit to a new one (caller holds the lock)."""
    for check in ROTATION_CHECKS:
        check(campaign, archiving)
    used = campaign.dice_counter > campaign.dice_seed_first_counter
    revealed = RevealedSeed.objects.create(
        campaign=campaign,
        seed=campaign.dice_seed,
        first_counter=campaign.dice_seed_first_counter,
        last_counter=campaign.dice_counter - 1 if used else None,
    )
    campaign.dice_seed = new_dice_seed()
    campaign.dice_seed_first_counter = campaign.dice_counter
    campaign.save(update_fields=["dice_seed", "dice_seed_first_counter"])
    for followup in ROTATION_FOLLOWUPS:
        followup(campaign)
    return revealed


@transaction.atomic
def campaign_dice_rotate(*, campaign_id: int) -> RevealedSeed:
    """Reveal the campaign's current dice seed and commit to a fresh one (docs/dice.md).

    Under the campaign's row lock, the first lock of every resolution and clock batch
    (rules/play/services.py), so no die is drawn while the seed changes hands. The counter
    keeps counting: the new seed takes over at the counter where the old one stopped.
    """
    return _rotate(Campaign.objects.select_for_update().get(pk=campaign_id))


@transaction.atomic
def campaign_archive(*, campaign_id: int) -> tuple[Campaign, RevealedSeed]:
    """Archive the campaign: no more play in it, and its dice seed revealed (docs/dice.md).

    Under the campaign's row lock, in one transaction: refused (409) when already
    archived or while the clock still advances (a job running or waiting on a choice:
    finish it first); a live clock stops; the seed is rotated, so every roll ever made
    in the campaign can be checked.
    """
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    if campaign.archived_at is not None:
        raise ResolutionConflict(f"The campaign {campaign.name} is already archived.")
    jobs = campaign.clock_jobs  # rules.clock.models.ClockJob
    if jobs.filter(state__in=CLOCK_BUSY_STATES).exists():
        raise ResolutionConflict(
            "The campaign clock is still advancing (or waits on a choice): let it finish "
            "before archiving the campaign."
        )
    campaign.archived_at = timezone.now()
    campaign.live_ratio = Decimal(0)
    campaign.live_last_tick = None
    campaign.save(update_fields=["archived_at", "live_ratio", "live_last_tick"])
    return campaign, _rotate(campaign, archiving=True)


@transaction.atomic
def campaign_unarchive(*, campaign_id: int) -> Campaign:
    """Bring an archived campaign back into play (its clock stays stopped)."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    if campaign.archived_at is None:
        raise ResolutionConflict(f"The campaign {campaign.name} is not archived.")
    campaign.archived_at = None
    campaign.save(update_fields=["archived_at"])
    return campaign


MAX_INVITE_HOURS = 24 * 365


def invite_create(
    *,
    campaign: Campaign,
    user: Any,
    expires_in_hours: int | None = None,
    single_use: bool = False,
    replace_others: bool = False,
) -> Invite:
    """A new invite code; it may expire after some hours and may join one person only.

    ``replace_others``: the campaign's other codes are revoked (the dashboard's "Make a
    new link" when the referee ticks "Stop the earlier links from working"; never
    otherwise: links made in Settings, single-use or expiring, stay as they were).
    """
    expires_at = None
    if expires_in_hours is not None:
        if not 1 <= expires_in_hours <= MAX_INVITE_HOURS:
            raise ValidationError(
                {"expires_in_hours": [f"an invite lasts 1 to {MAX_INVITE_HOURS} hours"]}
            )
        expires_at = timezone.now() + timedelta(hours=expires_in_hours)
    with transaction.atomic():
        if replace_others:
            Invite.objects.filter(campaign=campaign, revoked_at__isnull=True).update(
                revoked_at=timezone.now()
            )
        return Invite.objects.create(
            campaign=campaign, created_by=user, expires_at=expires_at, single_use=single_use
        )


def campaign_join(*, user: Any, code: str) -> Membership:
    """Join the campaign an invite code belongs to as a player.

    A member who joins again keeps the role they have (a referee stays referee).
    """
    from campaigns.editing import invite_usable  # it imports this module's models only

    invite = Invite.objects.select_related("campaign").filter(code=code.strip()).first()
    if invite is None:
        raise ValidationError({"code": ["no campaign has this invite code"]})
    existing = Membership.objects.filter(campaign=invite.campaign, user=user).first()
    if existing is not None:
        return existing
    refusal = invite_usable(invite)
    if refusal is not None:
        raise ValidationError({"code": [refusal]})
    try:
        with transaction.atomic():
            # Compare-and-set: a single-use code admits exactly one new member.
            uses = Invite.objects.filter(pk=invite.pk, revoked_at__isnull=True)
            if invite.single_use:
                uses = uses.filter(uses=0)
            if not uses.update(uses=F("uses") + 1):
                raise ValidationError({"code": ["This invite link can no longer be used."]})
            return Membership.objects.create(campaign=invite.campaign, user=user, role=Role.PLAYER)
    except IntegrityError:  # joined twice at once: the other request won
        return Membership.objects.get(campaign=invite.campaign, user=user)
