"""The one table of the lowest layer: idempotency keys (``core.idempotency``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy


class IdempotencyState(models.TextChoices):
    RUNNING = "running", gettext_lazy("Running")  # the first request with the key is being answered
    DONE = "done", gettext_lazy("Done")  # its answer is stored, to be sent again


class IdempotencyKey(models.Model):
    """A write request's key (header ``Idempotency-Key``, or a page form's one-time key)
    and the first answer given to it, kept at least ``SAWBONES_IDEMPOTENCY_HOURS``.

    Claimed by inserting the row (``one_key_per_user``): of two requests at once with
    the same key, one inserts and acts, the other finds the row.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    # SHA-256 of the method, the path and the body (as parsed): the same key with another
    # request is refused (422).
    fingerprint = models.CharField(max_length=64)
    state = models.CharField(
        max_length=16, choices=IdempotencyState.choices, default=IdempotencyState.RUNNING
    )
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    headers = models.JSONField(default=dict, blank=True)
    body = models.BinaryField(default=b"", blank=True)
    # When the key was claimed (taken over when the request that claimed it died).
    claimed_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="one_key_per_user"),
            models.CheckConstraint(
                condition=models.Q(state="running") | models.Q(status_code__isnull=False),
                name="done_key_has_answer",
            ),
        ]

    def __str__(self) -> str:
        return f"idempotency key {self.key!r} of user {self.user_id}: {self.state}"
