from django.apps import AppConfig


class DiscordPlayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "discord_play"
    verbose_name = "Play from Discord"

    def ready(self) -> None:
        # The webhooks' Discord format is made here, above everything it tells of.
        from discord_play.feed import discord_message
        from webhooks.models import WebhookFormat
        from webhooks.services import register_format

        register_format(WebhookFormat.DISCORD, discord_message)
