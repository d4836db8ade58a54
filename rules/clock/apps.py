from django.apps import AppConfig


class ClockConfig(AppConfig):
    """The campaign clock: scheduled effects applied in time order, clock jobs, live
    ticks and their tasks (docs/clock.md)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rules.clock"
    label = "clock"
    verbose_name = "Clock"

    def ready(self) -> None:
        # The play moves the clock for the time actions take, and has it catch up after
        # an undo, through its port; the clock, above it, plugs itself in (imports run
        # one way: clock -> play).
        from rules.clock import tasks  # noqa: F401 - registers the clock's Celery tasks
        from rules.clock.catch_up import ClockForPlay
        from rules.clock.selectors import ClockRecordForLog
        from rules.play.action_clock import register_action_clock
        from rules.play.clock_record import register_clock_record

        register_action_clock(ClockForPlay())
        # The log's readers (the session recap) tell the clock's entries through the
        # play's port likewise.
        register_clock_record(ClockRecordForLog())
