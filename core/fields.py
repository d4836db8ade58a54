"""Model fields several apps declare alike."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


def someone_or_nobody(*, db_index: bool = True) -> models.ForeignKey[Any, Any]:
    """Who did it: a user, null when nobody did (the clock, an import) or when their
    account is gone; no way back from the user (``related_name="+"``). ``db_index``
    False: the model indexes it itself (the log: only the rows someone made)."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=db_index,
    )
