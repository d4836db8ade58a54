from django.apps import AppConfig


class PlayConfig(AppConfig):
    """The play: resolutions, actions, choices, undo, editing, party actions, tables.

    Its label stays ``rules`` (the user's design card names a ``rules`` app that runs
    resolutions): its tables and migration history keep their names (``rules_resolution``).
    """

    default_auto_field = "django.db.models.BigAutoField"
    name = "rules.play"
    label = "rules"
    verbose_name = "Play"
