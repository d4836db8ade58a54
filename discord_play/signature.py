"""Discord signs every interaction it sends (docs/discord.md): ``X-Signature-Ed25519`` is
the Ed25519 signature, by the application's key, of ``X-Signature-Timestamp`` followed by
the raw body. Checked with ``cryptography`` against the application's public key."""

from __future__ import annotations

import time

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

# A request whose timestamp is further than this from now is refused: a recorded request
# cannot be sent again later.
MAX_SKEW_SECONDS = 5 * 60


def public_key(hex_key: str) -> Ed25519PublicKey | None:
    """The application's public key from its hex text (the developer portal's "Public
    Key"), or None when the text is no such key."""
    try:
        return Ed25519PublicKey.from_public_bytes(bytes.fromhex(hex_key.strip()))
    except ValueError:
        return None


def genuine(
    key: Ed25519PublicKey,
    *,
    signature: str | None,
    timestamp: str | None,
    body: bytes,
    now: float | None = None,
) -> bool:
    """Whether Discord signed this request, at a time within five minutes of ``now``."""
    if not signature or not timestamp:
        return False
    try:
        moment = int(timestamp)
        signed = bytes.fromhex(signature)
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - moment) > MAX_SKEW_SECONDS:
        return False
    try:
        key.verify(signed, timestamp.encode() + body)
    except InvalidSignature:
        return False
    return True
