"""A resolution told in the channel with its pending choice as buttons, and a button
pressed: the choice answered as ``POST characters/{id}/choices/`` answers it (ruling
G-3), a lethal option asked again first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.http import Http404
from django.utils.translation import gettext as _

from characters.access import CharacterAccess, access_character, may_act
from characters.choices import public_choice
from discord_play import messages as m
from discord_play.call import DANGER, PRIMARY, UPDATE, Answer, Call, Refused
from discord_play.telling import resolution_embed
from rules.log.models import Resolution
from rules.play.services import resolution_answer_choice
from web.plain import plain_message

# A choice's button: "choice:<character>:<the choice id's start>:<option's index>"; a
# confirmed lethal option says "sure" instead of "choice".
_CHOICE_ID = re.compile(r"^(choice|sure):(\d{1,19}):([0-9a-f]{1,32}):(\d{1,2})$")
CHOICE_ID_PREFIX = 16  # hex digits of the choice's id a button carries


def choice_buttons(character_id: int, choice: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """A pending choice's options as buttons; a lethal one in red."""
    if choice is None:
        return []
    prefix = str(choice["id"])[:CHOICE_ID_PREFIX]
    return m.buttons(
        [
            (
                f"choice:{character_id}:{prefix}:{index}",
                str(option.get("label") or option.get("key")),
                DANGER if option.get("confirm") else PRIMARY,
            )
            for index, option in enumerate(choice.get("options", []))
        ]
    )


def resolution_message(
    resolution: Resolution, access: CharacterAccess, *, ephemeral: bool
) -> dict[str, Any]:
    choice = public_choice(resolution.pending_choice)
    content = ""
    if choice is not None:
        content = _("%(name)s has a choice to make: %(prompt)s") % {
            "name": m.plain(access.character.name),
            "prompt": m.plain(plain_message(choice["prompt"])),
        }
        # the buttons' labels may be shortened: each option whole, below
        options = [m.plain(str(o.get("label") or o.get("key"))) for o in choice["options"]]
        content += "\n" + "\n".join(f"- {option}" for option in options)
    return m.message(
        content=content,
        embeds=[resolution_embed(resolution)],
        components=choice_buttons(access.character.pk, choice),
        ephemeral=ephemeral,
    )


def choose(call: Call, user: Any) -> Answer:
    """A choice's button pressed: answered as ``POST characters/{id}/choices/`` answers it,
    by the owner or the referee as the choice says (ruling G-3)."""
    found = _CHOICE_ID.match(str(call.data.get("custom_id", "")))
    if found is None:
        raise Refused(_("That button is not one of Sawbones' any more."))
    kind, character_id, prefix, index = found.groups()
    try:
        access = access_character(user, character_id)
    except Http404:
        raise Refused(_("This choice is not yours to make.")) from None
    choice = access.character.pending_choice
    if choice is None or not str(choice["id"]).startswith(prefix):
        raise Refused(_("That choice is made already."))
    options = choice.get("options", [])
    if int(index) >= len(options):
        raise Refused(_("That choice is made already."))
    option = options[int(index)]
    if not may_act(choice.get("who", "owner"), is_referee=access.is_referee):
        raise Refused(_("Only the referee may make this choice."))
    if option.get("confirm") and kind != "sure":
        sure = m.buttons(
            [
                (
                    f"sure:{character_id}:{prefix}:{index}",
                    _("Yes: %(label)s") % {"label": option["label"]},
                    DANGER,
                )
            ]
        )
        return Answer(
            m.message(
                content=m.plain(plain_message(option["confirm"])), components=sure, ephemeral=True
            )
        )
    resolution = resolution_answer_choice(
        character_id=access.character.pk,
        actor=user,
        by_referee=access.is_referee,
        choice_id=str(choice["id"]),
        option=str(option["key"]),
    )
    access = access_character(user, character_id)
    answered = resolution_message(resolution, access, ephemeral=False)
    if kind == "sure":  # from the question only its asker saw: a message for the channel
        return Answer(answered)
    earlier = list((call.raw.get("message") or {}).get("embeds") or [])
    answered = m.message(
        content=answered.get("content", ""),
        embeds=[*earlier, *answered.get("embeds", [])],
        components=answered.get("components", []),
    )
    return Answer(answered, type=UPDATE)
