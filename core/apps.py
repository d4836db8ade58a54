from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every app stands on: errors, input cleaning, request limits, the store of
    idempotency keys (``core.idempotency``); and it hears when each request starts and
    ends (the request id on its log lines, ``core.logs``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "core"
    label = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from django.core.signals import request_finished, request_started

        from core.logs import end_request, start_request

        # From the request's start to its end, after the middleware too: Django logs a
        # 4xx or 5xx answer (django.request) once the middleware has returned.
        request_started.connect(start_request, dispatch_uid="core.logs.start_request")
        request_finished.connect(end_request, dispatch_uid="core.logs.end_request")
