"""Discord's Interactions Endpoint URL: ``POST /discord/interactions/`` (docs/discord.md).

Discord's protocol, not the API's: no session, no token, no CSRF; the request is Discord's
own, proved by its Ed25519 signature (``discord_play.signature``). Unset
(``SAWBONES_DISCORD_PUBLIC_KEY``, ``SAWBONES_DISCORD_APPLICATION_ID``) the endpoint is a 404.
A wrong, missing or stale signature is a 401 and nothing runs. A command or a button is
claimed by its interaction's id first: sent again it acts once and gets the first answer.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from discord_play import messages as m
from discord_play.call import COMMAND, COMPONENT, MESSAGE, PING, PONG
from discord_play.interactions import respond
from discord_play.selectors import interaction_answer_of
from discord_play.services import interaction_answered, interaction_claim, interaction_release
from discord_play.signature import genuine, public_key

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Signature-Ed25519"
TIMESTAMP_HEADER = "X-Signature-Timestamp"
# A second copy of an interaction still being answered waits this long for the first
# answer (Discord gives up on an answer after three seconds).
REPLAY_WAIT_SECONDS = 2.0


class AnswerResponse(JsonResponse):
    """A JSON answer that runs ``after`` once it is sent: the server (or Django's test
    client) closes a response when its body has gone, so Discord has the deferred answer
    before its follow-up can edit it, even when the follow-up runs in-process."""

    def __init__(self, data: dict[str, Any], after: Iterable[Callable[[], None]] = ()) -> None:
        super().__init__(data)
        self._after = list(after)

    def close(self) -> None:
        after, self._after = self._after, []
        for callback in after:
            try:
                callback()
            except Exception:  # the answer is sent: a failure here must not undo it
                logger.exception("Discord interaction: the work after the answer failed")
        super().close()


def _refused(status: int, detail: str) -> JsonResponse:
    return JsonResponse({"detail": detail}, status=status)


@csrf_exempt
@require_POST
def interactions(request: HttpRequest) -> HttpResponse:
    key_text = str(getattr(settings, "SAWBONES_DISCORD_PUBLIC_KEY", "") or "")
    if not key_text or not getattr(settings, "SAWBONES_DISCORD_APPLICATION_ID", ""):
        raise Http404("Discord is not set up on this server")
    key = public_key(key_text)
    if key is None:
        logger.error("SAWBONES_DISCORD_PUBLIC_KEY is not an Ed25519 public key in hex")
    body = request.body
    if key is None or not genuine(
        key,
        signature=request.headers.get(SIGNATURE_HEADER),
        timestamp=request.headers.get(TIMESTAMP_HEADER),
        body=body,
    ):
        return _refused(401, "invalid request signature")
    try:
        interaction = json.loads(body)
    except ValueError:
        return _refused(400, "the body is not JSON")
    if not isinstance(interaction, dict) or not isinstance(interaction.get("type"), int):
        return _refused(400, "the body is no interaction")
    if interaction["type"] == PING:
        return JsonResponse({"type": PONG})
    if interaction["type"] not in (COMMAND, COMPONENT):
        with translation.override(interaction_language(interaction)):
            return JsonResponse(respond(interaction).body)  # autocomplete: reads only
    interaction_id = str(interaction.get("id") or "")
    if not interaction_id.isdigit() or len(interaction_id) > 20:
        return _refused(400, "the interaction has no id")
    claim = interaction_claim(interaction_id)
    if claim is None:
        return JsonResponse(_first_answer(interaction_id))
    try:
        # the answer in the language of the person's Discord (its ``locale``)
        with translation.override(interaction_language(interaction)):
            answer = respond(interaction)
    except BaseException:
        interaction_release(claim)
        raise
    interaction_answered(claim, answer.body)
    return AnswerResponse(answer.body, after=answer.after)


def interaction_language(interaction: dict[str, Any]) -> str:
    """The language this site speaks closest to the person's Discord ``locale`` ("de",
    "es-ES", "en-US"), else the server's ``guild_locale``, else English."""
    for tag in (interaction.get("locale"), interaction.get("guild_locale")):
        if isinstance(tag, str) and tag:
            try:
                return translation.get_supported_language_variant(tag.lower())
            except LookupError:
                continue
    return str(settings.LANGUAGE_CODE)


def _first_answer(interaction_id: str) -> dict[str, Any]:
    """The answer the interaction got when it was first sent; if it is still being
    answered after a moment, a note that it is."""
    deadline = time.monotonic() + REPLAY_WAIT_SECONDS
    while True:
        stored = interaction_answer_of(interaction_id)
        if stored is not None:
            return stored
        if time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    still = _("Sawbones is still answering this; look again in a moment.")
    return {"type": MESSAGE, "data": m.say(still)}
