from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every app stands on: errors, input cleaning, request limits, and the store
    of idempotency keys (``core.idempotency``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "core"
    label = "core"
    verbose_name = "Core"
