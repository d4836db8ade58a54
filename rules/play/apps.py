from django.apps import AppConfig


class PlayConfig(AppConfig):
    """The play: actions, choices, undo, editing, party actions, tables. It owns no
    table: what it writes is the log's (``rules.log``, app label ``rules``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rules.play"
    label = "play"
    verbose_name = "Play"
