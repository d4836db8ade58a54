"""Idempotency keys: a write sent again with the same key acts once (docs/api.md).

Stripe's semantics (and the IETF httpapi draft's): the first request with a key from a
person claims it and acts; the same key from the same person with the same request
(method, path, body) gets the first answer again without acting; with another request,
422; while the first is still being answered, 409 (pages wait for it instead).

The claim is an insert: the row's unique constraint (``one_key_per_user``) decides which
of two requests at once acts, never a read before the write. The answer is stored by
compare-and-set on the claim (only the request that holds it writes it); an answer that
must not be kept (a 5xx, a refusal before the view acted: 401, 403, 429) releases the key
so that a retry acts. A claim whose request died without answering (its process was
killed) is taken over once it is ``SAWBONES_IDEMPOTENCY_STALE_SECONDS`` old. Keys are
kept ``SAWBONES_IDEMPOTENCY_HOURS`` (24 by default, the least the API promises); expired
ones are deleted when their owner writes with a key, and every hour by
``core.tasks.sweep_idempotency_keys``.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.models import IdempotencyKey, IdempotencyState

MAX_KEY_LENGTH = 255
DEFAULT_HOURS = 24
DEFAULT_STALE_SECONDS = 600


class Claimed(enum.Enum):
    NEW = "new"  # this request holds the key: act, then store the answer
    REPLAY = "replay"  # answered already: send the stored answer again
    MISMATCH = "mismatch"  # the key was used for another request: 422
    RUNNING = "running"  # the first request with the key is still being answered: 409


@dataclass(frozen=True)
class Claim:
    outcome: Claimed
    record: IdempotencyKey | None = None


def _lifetime() -> timedelta:
    hours = float(getattr(settings, "SAWBONES_IDEMPOTENCY_HOURS", DEFAULT_HOURS))
    return timedelta(hours=max(hours, DEFAULT_HOURS))  # never less than the API promises


def _stale_after() -> timedelta:
    seconds = getattr(settings, "SAWBONES_IDEMPOTENCY_STALE_SECONDS", DEFAULT_STALE_SECONDS)
    return timedelta(seconds=float(seconds))


def valid_key(key: str) -> bool:
    """1 to 255 printable ASCII characters (a UUID, say)."""
    return 0 < len(key) <= MAX_KEY_LENGTH and key.isascii() and key.isprintable()


def fingerprint(method: str, path: str, body: bytes | Iterable[tuple[str, Any]]) -> str:
    """What makes two requests "the same": the method, the path (with or without its
    trailing slash) and the body: JSON compared as parsed (key order and spacing do
    not matter), a form's fields as sorted pairs."""
    if isinstance(body, bytes):
        try:
            canonical = json.dumps(json.loads(body or b"null"), sort_keys=True)
        except ValueError:
            canonical = body.hex()
    else:
        canonical = json.dumps(sorted((str(k), str(v)) for k, v in body))
    text = "\n".join((method.upper(), path.rstrip("/"), canonical))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def idempotency_claim(
    *, user_id: int, key: str, fingerprint: str, now: datetime | None = None
) -> Claim:
    """Claim ``key`` for this request, or say what became of the request that did."""
    now = now or timezone.now()
    IdempotencyKey.objects.filter(user_id=user_id, expires_at__lte=now).delete()  # on write
    for _ in range(3):  # a row deleted or taken over in between: look again
        try:
            with transaction.atomic():
                record = IdempotencyKey.objects.create(
                    user_id=user_id,
                    key=key,
                    fingerprint=fingerprint,
                    claimed_at=now,
                    expires_at=now + _lifetime(),
                )
            return Claim(Claimed.NEW, record)
        except IntegrityError:
            pass  # claimed already
        found = IdempotencyKey.objects.filter(user_id=user_id, key=key).first()
        if found is None:
            continue
        if found.fingerprint != fingerprint:
            return Claim(Claimed.MISMATCH, found)
        if found.state == IdempotencyState.DONE:
            return Claim(Claimed.REPLAY, found)
        if found.claimed_at > now - _stale_after():
            return Claim(Claimed.RUNNING, found)
        # Its request died without answering: take the claim over, by compare-and-set.
        taken = IdempotencyKey.objects.filter(
            pk=found.pk, state=IdempotencyState.RUNNING, claimed_at=found.claimed_at
        ).update(claimed_at=now, expires_at=now + _lifetime())
        if taken:
            found.claimed_at, found.expires_at = now, now + _lifetime()
            return Claim(Claimed.NEW, found)
    return Claim(Claimed.RUNNING, None)


def idempotency_lookup(*, user_id: int, key: str) -> IdempotencyKey | None:
    return IdempotencyKey.objects.filter(user_id=user_id, key=key).first()


def idempotency_finish(
    record: IdempotencyKey, *, status: int, headers: Mapping[str, str], body: bytes
) -> bool:
    """Store the first answer on the claim this request holds (compare-and-set)."""
    return bool(
        IdempotencyKey.objects.filter(
            pk=record.pk, state=IdempotencyState.RUNNING, claimed_at=record.claimed_at
        ).update(state=IdempotencyState.DONE, status_code=status, headers=dict(headers), body=body)
    )


def idempotency_release(record: IdempotencyKey) -> None:
    """Give the key up (the answer is not to be kept): a retry with it acts."""
    IdempotencyKey.objects.filter(
        pk=record.pk, state=IdempotencyState.RUNNING, claimed_at=record.claimed_at
    ).delete()


def idempotency_sweep(*, now: datetime | None = None) -> int:
    """Delete every expired key; how many (``core.tasks.sweep_idempotency_keys``)."""
    deleted, _ = IdempotencyKey.objects.filter(expires_at__lte=now or timezone.now()).delete()
    return deleted
