"""Account pages: home (my campaigns), sign-up, log-in, log-out, the account page
(e-mail, password, API tokens), password reset by e-mail, and the answers to import
invitations (listed on home and account pages)."""

from django.contrib.auth import views as auth_views

from core.urls import INVITATION, paths
from web.views import accounts as views
from web.views import invitations as invitation_views

RESET = "password-reset/"
TOKENS = "account/tokens/"

urlpatterns = [
    *paths(
        ("", views.home, "home"),
        ("signup/", views.signup, "signup"),
        ("login/", views.LoginView, "login"),
        ("logout/", auth_views.LogoutView, "logout"),
        ("account/", views.account, "account"),
        ("account/email/", views.account_email, "account-email"),
        ("account/password/", views.account_password, "account-password"),
        (
            RESET,
            auth_views.PasswordResetView.as_view(
                email_template_name="registration/password_reset_email.txt",
                subject_template_name="registration/password_reset_subject.txt",
            ),
            "password_reset",
        ),
        (RESET + "sent/", auth_views.PasswordResetDoneView, "password_reset_done"),
        (
            RESET + "<uidb64>/<token>/",
            auth_views.PasswordResetConfirmView,
            "password_reset_confirm",
        ),
        (RESET + "done/", auth_views.PasswordResetCompleteView, "password_reset_complete"),
        (INVITATION + "accept/", invitation_views.invitation_accept_page, "invitation-accept"),
        (INVITATION + "decline/", invitation_views.invitation_decline_page, "invitation-decline"),
        (TOKENS, views.account_token_create, "account-token-create"),
        ("account/discord/code/", views.account_discord_code, "account-discord-code"),
        ("account/discord/unlink/", views.account_discord_unlink, "account-discord-unlink"),
        (TOKENS + "<int:token_id>/revoke/", views.account_token_revoke, "account-token-revoke"),
    ),
]
