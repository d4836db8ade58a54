"""``manage.py discord_commands``: ``--print`` holds the definitions to Discord's rules for
application commands; without it they are PUT to Discord's API (a local receiver here)."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from discord_play.tests.conftest import APPLICATION_ID

# Discord's rules ("Application Commands": naming, option types, limits).
NAME = re.compile(r"^[-_\w]{1,32}$")  # \w: letters and digits of any script, and "_"
OPTION_TYPES = range(1, 12)
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2


def check_option(option: dict[str, Any], where: str) -> None:
    assert NAME.match(option["name"]) and option["name"] == option["name"].lower(), where
    assert 1 <= len(option["description"]) <= 100, (where, option["description"])
    assert option["type"] in OPTION_TYPES, where
    if "choices" in option:
        assert len(option["choices"]) <= 25, where
    if option.get("autocomplete"):
        assert "choices" not in option and option["type"] in (3, 4, 10), where
    if "max_length" in option:
        assert 1 <= option["max_length"] <= 6000, where
    if "min_value" in option and "max_value" in option:
        assert option["min_value"] <= option["max_value"], where
    inner = option.get("options", [])
    assert len(inner) <= 25, where
    if option["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP):
        names = [o["name"] for o in inner]
        assert len(set(names)) == len(names), where
        # required options come before optional ones
        required = [bool(o.get("required")) for o in inner if o["type"] > SUB_COMMAND_GROUP]
        assert required == sorted(required, reverse=True), where
    for child in inner:
        if option["type"] == SUB_COMMAND:
            assert child["type"] > SUB_COMMAND_GROUP, "a subcommand holds plain options"
        check_option(child, f"{where} {child['name']}")


def test_the_printed_commands_keep_discords_rules():
    out = io.StringIO()
    call_command("discord_commands", "--print", stdout=out)
    commands = json.loads(out.getvalue())
    assert [c["name"] for c in commands] == ["sawbones"]
    [command] = commands
    assert command["type"] == 1
    check_option({**command, "type": SUB_COMMAND_GROUP}, "sawbones")
    subcommands = {o["name"]: o for o in command["options"]}
    assert set(subcommands) == {
        "link",
        "unlink",
        "campaign",
        "sheet",
        "act",
        "odds",
        "advance",
        "recap",
    }
    assert all(o["type"] == SUB_COMMAND for o in command["options"])
    act = {o["name"]: o for o in subcommands["act"]["options"]}
    assert act["character"]["autocomplete"] and act["action"]["autocomplete"]
    assert not act["params"]["required"]
    # characters' names fit: the same bound as the API's
    assert act["character"]["max_length"] >= 120


def test_the_commands_are_put_with_the_bots_token(discord, settings, receiver):
    settings.SAWBONES_DISCORD_BOT_TOKEN = "bot-secret"
    receiver.answer(429, {"retry_after": 0.01, "global": False})
    receiver.answer(200, [])
    out = io.StringIO()
    call_command("discord_commands", stdout=out)
    assert "registered" in out.getvalue()
    first, second = receiver.received
    for sent in (first, second):
        assert sent["method"] == "PUT"
        assert sent["path"] == f"/api/v10/applications/{APPLICATION_ID}/commands"
        assert sent["headers"]["Authorization"] == "Bot bot-secret"
        assert sent["body"][0]["name"] == "sawbones"
    receiver.answer(401, {"message": "401: Unauthorized"})
    with pytest.raises(CommandError, match="Unauthorized"):
        call_command("discord_commands", stdout=io.StringIO())
    settings.SAWBONES_DISCORD_BOT_TOKEN = ""
    with pytest.raises(CommandError, match="SAWBONES_DISCORD_BOT_TOKEN"):
        call_command("discord_commands", stdout=io.StringIO())
