"""Writes for campaigns: create, options, invites, joining, deletion. Every write that
changes a campaign's people or the campaign locks its row first (:func:`campaign_lock`),
the first lock of every resolution and clock batch (rules/play/services.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from campaigns.models import Campaign, Invite, Membership, RevealedSeed, Role, new_dice_seed
from core.cleaning import reject_nul_characters, whole_numbers
from core.errors import ResolutionConflict, error_text
from rules.engine.calendar import CalendarError, calendar_data, parse_calendar, preset
from rules.engine.interface import RuleError
from rules.engine.registry import get_ruleset


def campaign_lock(campaign_id: int) -> Campaign:
    """The campaign's row, locked (``FOR UPDATE``) until the transaction ends: the one
    way every writer of ours takes the campaign's lock."""
    return Campaign.objects.select_for_update().get(pk=campaign_id)


def _merged_options(ruleset_key: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """The campaign's options as stored, checked once here by the ruleset's options schema."""
    try:
        ruleset = get_ruleset(ruleset_key)
    except RuleError as error:
        raise ValidationError({"ruleset": [error_text(error)]}) from None
    try:
        for key, value in (options or {}).items():
            reject_nul_characters(value, gettext("option %(key)s") % {"key": repr(key)})
        return ruleset.check_options(options or {})
    except RuleError as error:
        raise ValidationError({"options": [error_text(error)]}) from None


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
    campaign = campaign_lock(campaign_id)
    fields = []
    if ruleset is not None and ruleset != campaign.ruleset:
        if campaign.characters.exists():
            raise ResolutionConflict(
                gettext("the ruleset is fixed once the campaign has characters")
            )
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
                raise CalendarError(gettext("A calendar needs at least one month."))
    except CalendarError as error:
        raise ValidationError({"calendar": [error_text(error)]}) from None
    campaign = campaign_lock(campaign_id)
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


def campaign_seed_rotate(campaign: Campaign) -> RevealedSeed:
    """Reveal the locked campaign's seed and commit to a new one (caller holds the lock:
    :func:`campaign_lock`). The counter keeps counting: the new seed takes over at the
    counter where the old one stopped. What the play still under way needs around it
    (a secret roll refuses it, a secret order is drawn again) is the play's, which calls
    this: ``rules.play.dice_rotation``."""
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
    return revealed


def campaign_archived_set(campaign: Campaign) -> Campaign:
    """Mark the locked campaign archived: no more play in it, its live clock stopped
    (caller holds the lock; the play's ``campaign_archive`` checks the clock and rotates
    the seed in the same transaction). 409 when it is archived already."""
    if campaign.archived_at is not None:
        raise ResolutionConflict(
            gettext("The campaign %(campaign)s is already archived.") % {"campaign": campaign.name}
        )
    campaign.archived_at = timezone.now()
    campaign.live_ratio = Decimal(0)
    campaign.live_last_tick = campaign.live_next_tick = None
    campaign.save(update_fields=["archived_at", "live_ratio", "live_last_tick", "live_next_tick"])
    return campaign


@transaction.atomic
def campaign_unarchive(*, campaign_id: int) -> Campaign:
    """Bring an archived campaign back into play (its clock stays stopped)."""
    campaign = campaign_lock(campaign_id)
    if campaign.archived_at is None:
        raise ResolutionConflict(
            gettext("The campaign %(campaign)s is not archived.") % {"campaign": campaign.name}
        )
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
                {
                    "expires_in_hours": [
                        gettext("an invite lasts 1 to %(hours)s hours")
                        % {"hours": MAX_INVITE_HOURS}
                    ]
                }
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
    invite = Invite.objects.select_related("campaign").filter(code=code.strip()).first()
    if invite is None:
        raise ValidationError({"code": [gettext("no campaign has this invite code")]})
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
                raise ValidationError(
                    {"code": [gettext("This invite link can no longer be used.")]}
                )
            return Membership.objects.create(campaign=invite.campaign, user=user, role=Role.PLAYER)
    except IntegrityError:  # joined twice at once: the other request won
        return Membership.objects.get(campaign=invite.campaign, user=user)


def invite_usable(invite: Invite) -> str | None:
    """Why the code joins nobody now, or None."""
    if invite.revoked_at is not None:
        return gettext("This invite link was revoked. Ask your referee for a new one.")
    if invite.expires_at is not None and invite.expires_at <= timezone.now():
        return gettext("This invite link has expired. Ask your referee for a new one.")
    if invite.single_use and invite.uses >= 1:
        return gettext("This invite link was for one person and has been used.")
    return None


def invite_revoke(*, campaign_id: int, invite_id: int) -> Invite:
    """Revoke an invite code (compare-and-set: revoked once)."""
    with transaction.atomic():
        campaign_lock(campaign_id)
        invite = Invite.objects.filter(campaign_id=campaign_id, pk=invite_id).first()
        if invite is None:
            raise Invite.DoesNotExist(gettext("no such invite"))
        changed = Invite.objects.filter(pk=invite.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        if not changed:
            raise ResolutionConflict(gettext("this invite link is already revoked"))
        invite.refresh_from_db()
        return invite


def campaign_delete(*, campaign_id: int, confirm: str) -> None:
    """Delete the campaign with everything in it (characters, logs, jobs: the database's
    cascade), confirmed by typing its name."""
    with transaction.atomic():
        campaign = campaign_lock(campaign_id)
        if (confirm or "").strip() != campaign.name:
            raise ValidationError({"confirm": [gettext("type the campaign's name to delete it")]})
        campaign.delete()
