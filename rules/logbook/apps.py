from django.apps import AppConfig


class LogbookConfig(AppConfig):
    """The campaign log read back: filters and pages, export and import, replay."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rules.logbook"
    label = "logbook"
    verbose_name = "Logbook"
