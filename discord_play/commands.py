"""The ``/sawbones`` command as Discord registers it (``manage.py discord_commands``): one
command with a subcommand each, its options typed and checked by Discord before they reach
``discord_play.interactions``. Within Discord's rules: names of 1 to 32 lower-case letters,
digits, "-" or "_"; descriptions of 1 to 100 characters; at most 25 options; required
options first (``discord_play/tests/test_commands.py`` holds them)."""

from __future__ import annotations

from typing import Any

from rules.clock.services import MAX_ADVANCE_MINUTES
from rules.engine.calendar import DAY

SUB_COMMAND, STRING, INTEGER = 1, 3, 4
COMMAND_NAME = "sawbones"


def _option(
    kind: int, name: str, description: str, *, required: bool = False, **more: Any
) -> dict[str, Any]:
    return {"type": kind, "name": name, "description": description, "required": required, **more}


def _character(required: bool) -> dict[str, Any]:
    return _option(
        STRING,
        "character",
        "The character: pick one from the list, or type its name.",
        required=required,
        autocomplete=True,
        max_length=120,
    )


def _action_options() -> list[dict[str, Any]]:
    return [
        _character(True),
        _option(
            STRING,
            "action",
            "The action: pick one from the list.",
            required=True,
            autocomplete=True,
            max_length=100,
        ),
        _option(
            STRING,
            "params",
            "Its details as name=value pairs, such as amount=3 (or a JSON object).",
            max_length=1000,
        ),
    ]


def _sub(
    name: str, description: str, options: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {"type": SUB_COMMAND, "name": name, "description": description, "options": options or []}


def _link_options() -> list[dict[str, Any]]:
    return [
        _option(
            STRING,
            "code",
            "The code from your Sawbones account page (Link Discord).",
            required=True,
            max_length=20,
        )
    ]


def _campaign_options() -> list[dict[str, Any]]:
    return [
        _option(
            STRING,
            "campaign",
            "The campaign: pick one from the list.",
            required=True,
            autocomplete=True,
            max_length=120,
        )
    ]


def _advance_options() -> list[dict[str, Any]]:
    return [
        _option(
            INTEGER,
            "days",
            "Days to advance.",
            min_value=0,
            max_value=MAX_ADVANCE_MINUTES // DAY,
        ),
        _option(
            INTEGER,
            "hours",
            "Hours to advance.",
            min_value=0,
            max_value=MAX_ADVANCE_MINUTES // 60,
        ),
        _option(
            INTEGER,
            "minutes",
            "Minutes to advance.",
            min_value=0,
            max_value=MAX_ADVANCE_MINUTES,
        ),
    ]


def _recap_options() -> list[dict[str, Any]]:
    return [
        _option(
            INTEGER,
            "days",
            "The last days of in-game time (else: since the last advance).",
            min_value=1,
            max_value=MAX_ADVANCE_MINUTES // DAY,
        )
    ]


def _subcommands() -> list[dict[str, Any]]:
    return [
        _sub("link", "Link your Discord user to your Sawbones account.", _link_options()),
        _sub("unlink", "Stop acting as your Sawbones account from Discord."),
        _sub(
            "campaign",
            "Referee: make this channel follow one of your campaigns.",
            _campaign_options(),
        ),
        _sub(
            "sheet",
            "Your characters here, or the one you name. Only you see it.",
            [_character(False)],
        ),
        _sub(
            "act",
            "Take an action for a character, for the channel to see.",
            _action_options(),
        ),
        _sub(
            "odds",
            "The exact chances of an action, before you take it. Only you see them.",
            _action_options(),
        ),
        _sub("advance", "Referee: move this campaign's clock forward.", _advance_options()),
        _sub(
            "recap",
            "What happened lately, as you may see it. Only you see it.",
            _recap_options(),
        ),
    ]


def command_definitions() -> list[dict[str, Any]]:
    """The application's commands, as ``PUT applications/{id}/commands`` takes them."""
    return [
        {
            "name": COMMAND_NAME,
            "type": 1,  # a slash command
            "description": "Play your Sawbones campaign: sheets, actions, the clock, recaps.",
            "options": _subcommands(),
        }
    ]
