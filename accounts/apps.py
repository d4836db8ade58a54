from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from accounts.language import on_login

        # The account's language into the session at log-in (accounts.language).
        user_logged_in.connect(on_login, dispatch_uid="accounts.language.on_login")
