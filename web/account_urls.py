"""Account pages: home (my campaigns), sign-up, log-in, log-out, the account page
(e-mail, password, API tokens), password reset by e-mail, and the answers to import
invitations (listed on home and account pages)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from web.views import accounts as views
from web.views import invitations as invitation_views

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/", views.account, name="account"),
    path("account/email/", views.account_email, name="account-email"),
    path("account/password/", views.account_password, name="account-password"),
    path(
        "password-reset/",
        auth_views.PasswordResetView.as_view(
            email_template_name="registration/password_reset_email.txt",
            subject_template_name="registration/password_reset_subject.txt",
        ),
        name="password_reset",
    ),
    path(
        "password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password-reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path(
        "invitations/<int:invitation_id>/accept/",
        invitation_views.invitation_accept_page,
        name="invitation-accept",
    ),
    path(
        "invitations/<int:invitation_id>/decline/",
        invitation_views.invitation_decline_page,
        name="invitation-decline",
    ),
    path("account/tokens/", views.account_token_create, name="account-token-create"),
    path("account/discord/code/", views.account_discord_code, name="account-discord-code"),
    path("account/discord/unlink/", views.account_discord_unlink, name="account-discord-unlink"),
    path(
        "account/tokens/<int:token_id>/revoke/",
        views.account_token_revoke,
        name="account-token-revoke",
    ),
]
