"""An interaction as Discord sends it and the answer Sawbones gives (docs/discord.md):
Discord's numbers for both, the subcommand's options read from the JSON, an action's
params as typed, and :class:`Refused`, what the asker alone is told when nothing is done.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

# Discord's interaction types and answer types (its "Receiving and Responding").
PING, COMMAND, COMPONENT, AUTOCOMPLETE = 1, 2, 3, 4
PONG, MESSAGE, DEFERRED, UPDATE, AUTOCOMPLETE_RESULT = 1, 4, 5, 7, 8
# Button styles.
PRIMARY, SECONDARY, DANGER = 1, 2, 4
PARAMS_MAX = 1000


@dataclass
class Answer:
    """What to answer Discord: the answer's ``type`` and ``data``, and what to do once the
    answer has gone (the advance's follow-up is sent after Discord has its deferred
    answer)."""

    data: dict[str, Any] | None = None
    type: int = MESSAGE
    after: list[Callable[[], None]] = field(default_factory=list)

    @property
    def body(self) -> dict[str, Any]:
        return {"type": self.type} if self.data is None else {"type": self.type, "data": self.data}


class Refused(Exception):
    """What the asker is told, in their own message only; nothing was done."""


# -- reading the interaction ----------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    raw: Mapping[str, Any]

    @property
    def id(self) -> str:
        return str(self.raw.get("id", ""))

    @property
    def type(self) -> int:
        return int(self.raw.get("type", 0))

    @property
    def token(self) -> str:
        return str(self.raw.get("token", ""))

    @property
    def discord_user_id(self) -> str:
        member = self.raw.get("member") or {}
        user = member.get("user") or self.raw.get("user") or {}
        return str(user.get("id", ""))

    @property
    def guild_id(self) -> str:
        return str(self.raw.get("guild_id") or "")

    @property
    def channel_id(self) -> str:
        channel = self.raw.get("channel") or {}
        return str(self.raw.get("channel_id") or channel.get("id") or "")

    @property
    def data(self) -> Mapping[str, Any]:
        return self.raw.get("data") or {}

    @property
    def subcommand(self) -> str:
        options = self.data.get("options") or []
        return str(options[0].get("name", "")) if options else ""

    @property
    def options(self) -> dict[str, Any]:
        """The subcommand's options by name."""
        options = self.data.get("options") or []
        inner = options[0].get("options") or [] if options else []
        return {str(o.get("name")): o.get("value") for o in inner}

    @property
    def focused(self) -> tuple[str, str]:
        """The option being typed in an autocomplete interaction, and what is typed."""
        options = self.data.get("options") or []
        inner = options[0].get("options") or [] if options else []
        for option in inner:
            if option.get("focused"):
                return str(option.get("name")), str(option.get("value") or "")
        return "", ""

    def text(self, name: str) -> str:
        value = self.options.get(name)
        return "" if value is None else str(value).strip()


_INTEGER = re.compile(r"^-?\d{1,15}$")


def parse_params(text: str) -> dict[str, Any]:
    """An action's params as typed: ``key=value`` pairs separated by spaces (quotes around
    a value with spaces; numbers, true and false as such), or a JSON object."""
    text = text.strip()
    if not text:
        return {}
    if len(text) > PARAMS_MAX:
        raise Refused(_("The params are too long."))
    if text.startswith("{"):
        try:
            given = json.loads(text)
        except ValueError:
            given = None
        if not isinstance(given, dict):
            raise Refused(_('The params in braces must be a JSON object, such as {"amount": 3}.'))
        return given
    try:
        parts = shlex.split(text)
    except ValueError:
        raise Refused(_("A quote in the params is not closed.")) from None
    params: dict[str, Any] = {}
    for part in parts:
        key, sign, raw = part.partition("=")
        if not sign or not key:
            raise Refused(
                _("Give the params as name=value pairs, such as amount=3: %(part)s is not one.")
                % {"part": part}
            )
        value: Any = raw
        if _INTEGER.match(raw):
            value = int(raw)
        elif raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        params[key] = value
    return params
