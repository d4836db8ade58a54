from django.apps import AppConfig


class WebhookDeliveryConfig(AppConfig):
    """Sending webhooks: each URL's events in order, in its format (webhook_delivery.services)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "webhook_delivery"
    verbose_name = "Webhook delivery"

    def ready(self) -> None:
        # registers the delivery task, which webhooks.services sends (or runs in-process) by name
        from webhook_delivery import tasks  # noqa: F401
