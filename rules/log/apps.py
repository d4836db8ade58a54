from django.apps import AppConfig


class LogConfig(AppConfig):
    """The log: resolutions, scheduled effects, a campaign's tables and dice, and the one
    place that writes them in bulk (``rules.log.sql_writes``).

    Its label stays ``rules``, the play's before it (issue 35): the tables and the
    migration history keep their names (``rules_resolution``, ``rules.0008_...``).
    """

    default_auto_field = "django.db.models.BigAutoField"
    name = "rules.log"
    label = "rules"
    verbose_name = "Log"
