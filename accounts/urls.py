"""Account pages: home (my campaigns), sign-up, log-in, log-out, the account page."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/", views.account, name="account"),
    path("account/tokens/", views.account_token_create, name="account-token-create"),
    path(
        "account/tokens/<int:token_id>/revoke/",
        views.account_token_revoke,
        name="account-token-revoke",
    ),
]
