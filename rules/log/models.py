"""The play's records: the resolution log, scheduled effects, a campaign's tables.

Clock jobs are the clock's (``rules.clock.models``), battles the battles' app's.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign
from characters.models import Character
from core.fields import someone_or_nobody
from core.said import said_stored


class ResolutionKind(models.TextChoices):
    CREATE = "create", _("Character created")
    ACTION = "action", _("Action")
    CHOICE = "choice", _("Choice answered")
    UNDO = "undo", _("Undo")
    EFFECT = "effect", _("Scheduled effect")
    CANCEL_CHOICE = "cancel_choice", _("Choice cancelled")
    BATTLE = "battle", _("Battle")  # a unit's recovery as its warband's battle moves on
    REDO = "redo", _("Redo")  # an undo undone (rules.play.undo)
    # a sheet changed by hand: rename, level up, correction (rules.play.editing)
    EDIT = "edit", _("Edit")


class Resolution(models.Model):
    """One state change of one character. Append-only: never updated or deleted."""

    # No index of their own: (campaign, clock) and (character, version) below start with
    # them. Each index is written for every entry (the clock's catch-up writes thousands)
    # and read into a new connection's caches on its first insert (issue 39).
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="resolutions", db_index=False
    )
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="resolutions", db_index=False
    )
    # Null when the campaign clock applied a scheduled effect, or when someone of an
    # imported campaign made it (``imported_actor``). Indexed where set only (Meta).
    actor = someone_or_nobody(db_index=False)
    # Who made it as the export named them (a username of the old campaign), when nobody
    # here has been shown as them: the import leaves it so until the person the importer
    # named accepts the import invitation (rules.logbook.invitations, issue 36). Pages
    # write it "alice (imported)"; empty for every other entry.
    imported_actor = models.CharField(max_length=150, blank=True, default="")
    kind = models.CharField(max_length=16, choices=ResolutionKind.choices)
    action = models.CharField(max_length=64)
    params = models.JSONField(default=dict, blank=True)
    rolls = models.JSONField(default=list, blank=True)
    summary = models.TextField()  # English, as webhooks and old exports carry it
    # The summary as the engine's message (rules.engine.words.Message.data): what says
    # it in the reader's language (:attr:`said_summary`). Null on entries written before
    # messages (issue 37): they keep their English text.
    said = models.JSONField(null=True, blank=True, default=None)
    outcome = models.JSONField(default=dict, blank=True)
    sheet_before = models.JSONField()
    sheet_after = models.JSONField()
    # Not a column: ``sheet_after`` as JSON text when the code that shaped the row made it
    # already (rules.play.services.build_resolution): the clock's COPY writes it as it is.
    sheet_after_json: str | None = None
    version = models.PositiveIntegerField()  # the character's version after this
    pending_choice = models.JSONField(null=True, blank=True)
    clock = models.PositiveBigIntegerField()  # in-game minute it happened at (G-1)
    # The campaign's dice counter before and after: the rolls can be recomputed from
    # the campaign's seed and this range (rules.log.selectors.verify_resolution_rolls).
    dice_counter_start = models.PositiveBigIntegerField(default=0)
    dice_counter_end = models.PositiveBigIntegerField(default=0)
    # An undo keeps the entry it undid from being deleted alone; deleting both with their
    # character or campaign (a cascade) is allowed (RESTRICT, not PROTECT: issue 35).
    undoes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.RESTRICT, related_name="undone_by"
    )
    # Hidden rolls (ruling G-4) stay referee-only until revealed.
    revealed = models.BooleanField(default=False)
    # In-game minutes the action took (the engine's ``Result.elapsed_minutes``); the
    # campaign clock moves by them once the action ends (rules.clock.action_time).
    elapsed_minutes = models.PositiveBigIntegerField(default=0)
    # The party action this resolution is part of (rules.play.party): one id per batch.
    # Indexed where set only (Meta).
    batch = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-version", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["character", "version"], name="one_resolution_per_character_version"
            ),
            # Exactly once (docs/clock.md): a scheduled effect produces at most one
            # resolution, whoever applies it and however often its task is delivered.
            models.UniqueConstraint(
                models.F("params__scheduled_effect"),
                condition=models.Q(kind="effect"),
                name="one_resolution_per_effect",
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "clock"]),
            # Only the entries someone made, and those of a party action: the clock's
            # effects have neither, and were two index entries each of nothing
            # (issue 39: 3% of PostgreSQL's CPU for an action whose time crosses effects).
            # A search for one actor or one batch finds its rows here all the same.
            models.Index(
                fields=["actor"], condition=models.Q(actor__isnull=False), name="log_actor_when_set"
            ),
            models.Index(
                fields=["batch"], condition=models.Q(batch__isnull=False), name="log_batch_when_set"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.character} v{self.version}: {self.summary}"

    @property
    def said_summary(self) -> str:
        """The summary in the active language (English when the entry has no message)."""
        return said_stored(self.summary, self.said)


class EffectState(models.TextChoices):
    PENDING = "pending", _("Pending")
    DONE = "done", _("Done")
    CANCELLED = "cancelled", _("Cancelled")


class ScheduledEffect(models.Model):
    """Something the campaign clock must apply at an in-game minute (a disease save...)."""

    # No index of its own: the (campaign, state, due_at, id) index below starts with it. Each
    # index is written for every effect scheduled and every one applied (its state is in
    # an index, so the update makes new index entries): the clock's catch-up writes
    # thousands (issue 39, docs/clock.md).
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="effects", db_index=False
    )
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="effects")
    kind = models.CharField(max_length=64)
    key = models.CharField(max_length=128, blank=True, default="")
    due_at = models.PositiveBigIntegerField()  # in-game minute
    payload = models.JSONField(default=dict, blank=True)
    hidden = models.BooleanField(default=False)  # ruling G-4
    state = models.CharField(
        max_length=16, choices=EffectState.choices, default=EffectState.PENDING
    )
    created_by = models.ForeignKey(
        Resolution, null=True, blank=True, on_delete=models.SET_NULL, related_name="scheduled"
    )
    # The resolution whose result cancelled it (a treated wound stops its worsening), or
    # the undo or redo that took it away; null while pending, and for an effect the
    # clock refused. Undoing that resolution revives the effect (rules.play.undo).
    # Indexed where set only (Meta): most effects are never cancelled.
    cancelled_by = models.ForeignKey(
        Resolution,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="cancelled_effects",
        db_index=False,
    )
    # The resolution that applied it; one effect produces at most one resolution.
    resolution = models.OneToOneField(
        Resolution, null=True, blank=True, on_delete=models.SET_NULL, related_name="applied_effect"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_at", "id"]
        indexes = [
            # In the order the clock applies them (due_at, then id): a batch's query
            # stops at its limit, where without the id it read and sorted every effect
            # due by the job's target, once per batch (issue 39).
            models.Index(fields=["campaign", "state", "due_at", "id"], name="effect_due_order"),
            models.Index(
                fields=["cancelled_by"],
                name="effect_cancelled_by",
                condition=models.Q(cancelled_by__isnull=False),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(state="done") | models.Q(resolution__isnull=False),
                name="done_effect_has_resolution",
            ),
            models.CheckConstraint(
                condition=models.Q(state="done") | models.Q(resolution__isnull=True),
                name="only_done_effect_has_resolution",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.character} at {self.due_at}"


class CampaignTable(models.Model):
    """A campaign's editable copy of one of its ruleset's tables (critical injuries...)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="tables")
    key = models.CharField(max_length=64)
    data = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "key"], name="one_table_per_key"),
        ]

    def __str__(self) -> str:
        return f"{self.key} of {self.campaign}"
