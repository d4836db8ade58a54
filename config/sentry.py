"""Errors to Sentry when ``SENTRY_DSN`` is set (off otherwise): the web app's (Django)
and the workers' (Celery), each tagged with its request's id (core.middleware). No
personal data is sent (``send_default_pii`` off): no cookies, no user names, no bodies.
"""

from __future__ import annotations

import os


def init_sentry() -> bool:
    """Start the SDK if ``SENTRY_DSN`` is set; whether it did."""
    dsn = os.environ.get("SENTRY_DSN", "")
    if not dsn:
        return False
    import sentry_sdk  # only when used: its integrations hook into Django and Celery
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        environment=os.environ.get("SENTRY_ENVIRONMENT", "production"),
        release=os.environ.get("SENTRY_RELEASE") or None,
        traces_sample_rate=float(os.environ.get("SENTRY_TRACES_SAMPLE_RATE", "0")),
        send_default_pii=False,
    )
    return True
