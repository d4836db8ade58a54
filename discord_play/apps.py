from django.apps import AppConfig


class DiscordPlayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "discord_play"
    verbose_name = "Play from Discord"
