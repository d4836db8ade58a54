"""Register ``/sawbones`` with Discord (docs/discord.md): ``PUT
{SAWBONES_DISCORD_API_BASE}/applications/{application id}/commands`` with the bot's token;
``--print`` prints the definitions as JSON instead."""

from __future__ import annotations

import json
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from discord_play.commands import command_definitions
from discord_play.discord_api import put_commands

TRIES = 3
LONGEST_WAIT_SECONDS = 60.0


class Command(BaseCommand):
    help = "Register the /sawbones slash command with Discord, or print its definition."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--print", action="store_true", help="print the definitions as JSON, send nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        definitions = command_definitions()
        if options["print"]:
            self.stdout.write(json.dumps(definitions, indent=2))
            return
        application_id = str(getattr(settings, "SAWBONES_DISCORD_APPLICATION_ID", "") or "")
        token = str(getattr(settings, "SAWBONES_DISCORD_BOT_TOKEN", "") or "")
        if not application_id or not token:
            raise CommandError(
                "Set SAWBONES_DISCORD_APPLICATION_ID and SAWBONES_DISCORD_BOT_TOKEN first "
                "(docs/discord.md)."
            )
        for _try in range(TRIES):
            reply = put_commands(application_id, token, definitions)
            if reply.status == 429 and reply.retry_after is not None:
                if reply.retry_after > LONGEST_WAIT_SECONDS:
                    break
                time.sleep(reply.retry_after)  # Discord's rate limit says how long
                continue
            break
        if not reply.ok:
            raise CommandError(
                f"Discord refused the commands ({reply.error or reply.status}): "
                f"{reply.body[:500].decode(errors='replace')}"
            )
        self.stdout.write(self.style.SUCCESS("The /sawbones command is registered."))
