"""The live clock (docs/clock.md, "Live clocks"): a campaign's clock run with real time at
a rate, ticked by Celery beat (or, embedded, by rules.clock.ticker); each tick a clock
job of kind ``live``, the hour's ticks told in one report."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext

from campaigns.access import refuse_archived
from campaigns.models import MAX_LIVE_RATIO, MICROSECONDS_PER_MINUTE, Campaign, live_next_tick
from campaigns.services import campaign_lock
from rules.clock import queue
from rules.clock.models import (
    UNFINISHED_JOB_STATES,
    ClockEntry,
    ClockEntryKind,
    ClockJob,
    ClockJobKind,
    ClockReport,
)
from rules.clock.text import ratio_words
from rules.clock.watchdog import clock_watchdog


def _live_report(campaign: Campaign, now: datetime) -> ClockReport:
    """The report a live tick at real moment ``now`` adds to: its campaign's report of
    that real hour (made by the hour's first tick; caller holds the campaign's lock)."""
    hour = now.replace(minute=0, second=0, microsecond=0)
    report = ClockReport.objects.filter(campaign=campaign, hour=hour).first()
    if report is None:
        report = ClockReport.objects.create(
            campaign=campaign,
            kind=ClockJobKind.LIVE,
            clock_from=campaign.clock,
            clock_to=campaign.clock,
            hour=hour,
            updated_at=now,
        )
    return report


def _live_entry(campaign: Campaign, before: Decimal, after: Decimal, actor: Any) -> None:
    """The campaign log's entry for a change of the live clock (none when unchanged)."""
    if before == after:
        return
    with translation.override("en"):  # the row keeps English; pages say it again
        kind, words = _live_words(before, after)
    ClockEntry.objects.create(
        campaign=campaign,
        kind=kind,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        clock=campaign.clock,
        words=words,
        ratio_before=before,
        ratio_after=after,
    )


def _live_words(before: Decimal, after: Decimal) -> tuple[str, str]:
    if after == 0:
        kind, words = ClockEntryKind.LIVE_OFF, "stopped the live clock"
    elif before == 0:
        kind, words = ClockEntryKind.LIVE_ON, f"ran the clock with real time: {ratio_words(after)}"
    else:
        kind = ClockEntryKind.LIVE_RATE
        words = f"changed the live clock from {ratio_words(before)} to {ratio_words(after)}"
    return kind, words


def clock_live_set(
    *, campaign_id: int, ratio: Decimal, now: datetime | None = None, actor: Any = None
) -> Campaign:
    """Run the campaign's clock with real time at ``ratio`` game minutes per real minute.

    0 stops it. Time already elapsed at the old ratio is advanced first, so changing
    the ratio never loses or double-counts in-game time. A change is an entry of the
    campaign log, with ``actor``.
    """
    ratio = Decimal(ratio)
    if not Decimal(0) <= ratio <= Decimal(MAX_LIVE_RATIO):
        raise ValidationError(
            {
                "ratio": [
                    gettext("a live clock runs at 0 to %(most)s minutes per real minute")
                    % {"most": MAX_LIVE_RATIO}
                ]
            }
        )
    now = now or timezone.now()
    with transaction.atomic():
        campaign = campaign_lock(campaign_id)
        if ratio > 0:
            refuse_archived(campaign)
        if campaign.live_ratio > 0 and campaign.live_last_tick is not None:
            _tick_campaign(campaign, now, force=True)
        _live_entry(campaign, campaign.live_ratio, ratio, actor)
        campaign.live_ratio = ratio
        campaign.live_last_tick = now if ratio > 0 else None
        campaign.live_next_tick = live_next_tick(ratio, campaign.live_last_tick)
        campaign.full_clean(exclude=["created_by"])
        campaign.save(update_fields=["live_ratio", "live_last_tick", "live_next_tick"])
    return campaign


def _live_minutes(ratio: Decimal, last_tick: datetime, now: datetime) -> tuple[int, datetime]:
    """Whole in-game minutes since ``last_tick`` and the real moment they end at."""
    elapsed = Decimal((now - last_tick) // timedelta(microseconds=1))
    minutes = int((elapsed * ratio / MICROSECONDS_PER_MINUTE).to_integral_value(ROUND_FLOOR))
    if minutes <= 0:
        return 0, last_tick
    used = (Decimal(minutes) * MICROSECONDS_PER_MINUTE / ratio).to_integral_value(ROUND_FLOOR)
    return minutes, last_tick + timedelta(microseconds=int(used))


def _tick_campaign(campaign: Campaign, now: datetime, *, force: bool = False) -> ClockJob | None:
    """Advance one live campaign by the real time since its last tick (caller in a transaction).

    The last tick moves by compare-and-set, so a duplicated or concurrent tick does
    nothing. While an earlier job is unfinished (waiting on a choice, say) the tick
    waits and the real time keeps counting: the next tick catches up.
    """
    last_tick = campaign.live_last_tick
    if campaign.live_ratio <= 0 or last_tick is None:
        return None
    if not force and campaign.clock_jobs.filter(state__in=UNFINISHED_JOB_STATES).exists():
        return None
    minutes, new_tick = _live_minutes(campaign.live_ratio, last_tick, now)
    if minutes == 0:
        return None
    next_tick = live_next_tick(campaign.live_ratio, new_tick)
    moved = Campaign.objects.filter(
        pk=campaign.pk, live_last_tick=last_tick, live_ratio=campaign.live_ratio
    ).update(live_last_tick=new_tick, live_next_tick=next_tick)
    if moved != 1:
        return None  # another tick got there first
    campaign.live_last_tick, campaign.live_next_tick = new_tick, next_tick
    job = ClockJob.objects.create(
        campaign=campaign,
        kind=ClockJobKind.LIVE,
        minutes=minutes,
        report=_live_report(campaign, now),
    )
    queue.enqueue_in_turn(job)
    return job


# The campaigns due a tick are read in pages of this many, in their index's order.
_DUE_PAGE = 500


def _due_a_tick(now: datetime) -> list[int]:
    """The live campaigns whose clock has at least a whole in-game minute to move at
    ``now``, in the order beat has always ticked them (newest first): only they are read,
    by the index of their next tick (``campaign_live_due``), and ticked, in a transaction
    each (issue 39: a tick costs what the campaigns with work cost, not every live one,
    bench/scale.py). :func:`_tick_campaign` decides again on the row it reads.

    Read in pages in the index's order: the planner's statistics of a moment column are
    always behind the clock (at the last analyze every next tick was still ahead), so
    asked for every row up to ``now`` it judged them all due and scanned the table; a
    page with its ``LIMIT`` in the index's order reads the index whatever it judges."""
    due: list[tuple[datetime, int]] = []
    after: Q = Q()
    while True:
        page = list(
            Campaign.objects.filter(after, live_next_tick__lte=now)
            .order_by("live_next_tick", "id")
            .values_list("live_next_tick", "id", "created_at")[:_DUE_PAGE]
        )
        due.extend((created_at, pk) for _, pk, created_at in page)
        if len(page) < _DUE_PAGE:
            break
        moment, pk, _ = page[-1]
        after = Q(live_next_tick__gt=moment) | Q(live_next_tick=moment, id__gt=pk)
    return [pk for _, pk in sorted(due, reverse=True)]


def clock_live_tick(*, now: datetime | None = None) -> list[ClockJob]:
    """Celery beat's tick: advance every live campaign, and re-enqueue jobs whose task is lost."""
    now = now or timezone.now()
    jobs: list[ClockJob] = []
    for campaign_id in _due_a_tick(now):
        campaign = Campaign.objects.filter(pk=campaign_id).first()
        if campaign is None:
            continue  # deleted since
        with transaction.atomic():
            job = _tick_campaign(campaign, now)
        if job is not None:
            jobs.append(job)
    clock_watchdog(now=now)
    return jobs
