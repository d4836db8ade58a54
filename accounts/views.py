"""Plain pages for people: home ("my campaigns"), sign-up, log-in, the account page
(e-mail, password), and password reset by e-mail (Django's views, our templates).

An invite link opened while logged out survives log-in and sign-up:
``campaigns.views.join`` keeps its code in the session and both pages go on to it.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts.services import user_change_email, user_register
from campaigns.models import Role
from campaigns.selectors import memberships_for_user
from campaigns.views import pending_invite_url


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150, widget=forms.TextInput(attrs={"autofocus": True}))
    email = forms.EmailField(
        required=False, help_text="Optional; needed only to reset a forgotten password."
    )
    password = forms.CharField(widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))
    password_again = forms.CharField(
        label="Password again",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") and data.get("password_again") != data.get("password"):
            self.add_error("password_again", "The two passwords differ: type the same one twice.")
        return data


class EmailForm(forms.Form):
    email = forms.EmailField(label="New e-mail address", required=False)
    password = forms.CharField(
        label="Your password",
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text="To be sure it is you.",
    )


def home(request: HttpRequest) -> HttpResponse:
    """Signed in: my campaigns, as referee and as player. Otherwise: what Sawbones is."""
    if not request.user.is_authenticated:
        return render(request, "home.html", {})
    memberships = list(
        memberships_for_user(request.user).annotate(party_size=Count("campaign__characters"))
    )
    return render(
        request,
        "home.html",
        {
            "refereeing": [m for m in memberships if m.role == Role.REFEREE],
            "playing": [m for m in memberships if m.role == Role.PLAYER],
        },
    )


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user = user_register(
                username=data["username"], email=data["email"], password=data["password"]
            )
        except ValidationError as error:
            for field, found in error.message_dict.items():
                for message in found:
                    form.add_error(field if field in form.fields else None, message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(_next_url(request) or pending_invite_url(request) or "home")
    return render(
        request,
        "registration/signup.html",
        {"form": form, "next": _next_url(request) or pending_invite_url(request)},
        status=400 if form.errors else 200,
    )


class LoginView(auth_views.LoginView):
    """Django's log-in; without a ``next`` it goes on to a pending invite link."""

    redirect_authenticated_user = True

    def get_default_redirect_url(self) -> str:
        return pending_invite_url(self.request) or super().get_default_redirect_url()


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The account page: who you are, your e-mail, your password."""
    return _account_page(request)


def _account_page(request: HttpRequest, status: int = 200, **forms_: Any) -> HttpResponse:
    context = {
        "email_form": forms_.get("email_form")
        or EmailForm(initial={"email": getattr(request.user, "email", "")}),
        "password_form": forms_.get("password_form") or PasswordChangeForm(request.user),
    }
    return render(request, "accounts/account.html", context, status=status)


@login_required
@require_POST
def account_email(request: HttpRequest) -> HttpResponse:
    form = EmailForm(request.POST)
    if form.is_valid():
        if not request.user.check_password(form.cleaned_data["password"]):
            form.add_error("password", "That is not your password.")
        else:
            user_change_email(user=request.user, email=form.cleaned_data["email"])
            messages.success(request, "Your e-mail address is changed.")
            return redirect("account")
    return _account_page(request, 400, email_form=form)


@login_required
@require_POST
def account_password(request: HttpRequest) -> HttpResponse:
    form = PasswordChangeForm(request.user, request.POST)
    if form.is_valid():
        user = form.save()
        update_session_auth_hash(request, user)  # stay logged in here, out elsewhere
        messages.success(request, "Your password is changed.")
        return redirect("account")
    return _account_page(request, 400, password_form=form)
