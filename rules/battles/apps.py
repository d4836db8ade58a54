from django.apps import AppConfig


class BattlesConfig(AppConfig):
    """Warband battles: turns, phases, recovery and rout (docs/rulesets/warband.md)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rules.battles"
    label = "battles"
    verbose_name = "Battles"
