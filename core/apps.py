from django.apps import AppConfig


class CoreConfig(AppConfig):
    """core has no models: it is an app only to hear when each request starts and ends."""

    name = "core"

    def ready(self) -> None:
        from django.core.signals import request_finished, request_started

        from core.logs import end_request, start_request

        # From the request's start to its end, after the middleware too: Django logs a
        # 4xx or 5xx answer (django.request) once the middleware has returned.
        request_started.connect(start_request, dispatch_uid="core.logs.start_request")
        request_finished.connect(end_request, dispatch_uid="core.logs.end_request")
