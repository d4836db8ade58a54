from django.apps import AppConfig


class ClockConfig(AppConfig):
    """The campaign clock: scheduled effects applied in time order, clock jobs, live
    ticks and their tasks (docs/clock.md)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rules.clock"
    label = "clock"
    verbose_name = "Clock"

    def ready(self) -> None:
        from rules.clock import tasks  # noqa: F401 - registers the clock's Celery tasks
