"""Plain pages for people: home ("my campaigns"), sign-up, log-in, log-out, the account
page (e-mail, password, API tokens, Discord link) and password reset by e-mail (Django's views, our
templates).

An invite link opened while logged out survives log-in and sign-up:
``web.views.campaigns.join`` keeps its code in the session and both pages go on to it.
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts.selectors import discord_link_of, tokens_for_user
from accounts.services import (
    discord_link_code_create,
    discord_unlink,
    token_create,
    token_revoke,
    user_change_email,
    user_register,
)
from campaigns.access import TokenScope
from campaigns.invitations import invitations_for_user
from campaigns.models import Role
from campaigns.selectors import campaigns_of_user, memberships_for_user
from core.middleware import is_api
from core.throttles import LoginThrottle, RegistrationThrottle
from rules.logbook.invitations import invitation_views
from web.views.campaigns import pending_invite_url


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150, widget=forms.TextInput(attrs={"autofocus": True}))
    email = forms.EmailField(
        required=False,
        help_text=gettext_lazy("Optional; needed only to reset a forgotten password."),
    )
    password = forms.CharField(widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))
    password_again = forms.CharField(
        label=gettext_lazy("Password again"),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("password") and data.get("password_again") != data.get("password"):
            self.add_error(
                "password_again", _("The two passwords differ: type the same one twice.")
            )
        return data


class EmailForm(forms.Form):
    email = forms.EmailField(label=gettext_lazy("New e-mail address"), required=False)
    password = forms.CharField(
        label=gettext_lazy("Your password"),
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=gettext_lazy("To be sure it is you."),
    )


def home(request: HttpRequest) -> HttpResponse:
    """Signed in: my campaigns, as referee and as player. Otherwise: what Sawbones is."""
    if not request.user.is_authenticated:
        return render(request, "home.html", {})
    memberships = campaigns_of_user(request.user)
    return render(
        request,
        "home.html",
        {
            "refereeing": [m for m in memberships if m.role == Role.REFEREE],
            "playing": [m for m in memberships if m.role == Role.PLAYER],
            "invitations": _invitations(request),
        },
    )


def _invitations(request: HttpRequest) -> list[dict[str, Any]]:
    """The import invitations waiting for the person's answer (home and account pages)."""
    return invitation_views(list(invitations_for_user(request.user)))


def registration_allowed(request: HttpRequest) -> bool:
    """The sign-up page counts against the same limit as POST auth/register/."""
    return RegistrationThrottle().allow_page(request)


def locked_out(
    request: HttpRequest, response: HttpResponse | None, credentials: dict[str, Any] | None
) -> HttpResponse:
    """django-axes' answer once a username fails too often from one address (429):
    JSON for the API (with Retry-After), a page for people."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    message = _(
        "Too many wrong passwords for this username from your address: signing in is "
        "paused for %(minutes)s minutes."
    ) % {"minutes": minutes}
    answer: HttpResponse
    if is_api(request):
        answer = JsonResponse({"detail": message}, status=429)
    else:
        answer = render(request, "registration/locked_out.html", {"message": message}, status=429)
    answer["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return answer


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and not registration_allowed(request):
        form.is_valid()
        form.add_error(
            None, _("Too many accounts were made from your address lately. Try again in an hour.")
        )
        return render(
            request,
            "registration/signup.html",
            {"form": form, "next": _next_url(request)},
            status=429,
        )
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

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # The same budget of password checks per address as POST auth/token/.
        if not LoginThrottle().allow_page(request):
            message = _(
                "Too many sign-in attempts from your address just now: try again in a minute."
            )
            context = {"message": message, "heading": _("Too many sign-in attempts")}
            answer = render(request, "registration/locked_out.html", context, status=429)
            answer["Retry-After"] = "60"
            return answer
        return super().post(request, *args, **kwargs)

    def get_default_redirect_url(self) -> str:
        return pending_invite_url(self.request) or super().get_default_redirect_url()


# -- API tokens on the account page ------------------------------------------------------
_NEW_SECRET = "sawbones_new_token"  # noqa: S105 - the session key of a secret shown once


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label=gettext_lazy("Name"),
        help_text=gettext_lazy("What will use it, e.g. “Discord bot”."),
    )
    scope = forms.ChoiceField(
        label=gettext_lazy("It may"),
        choices=[
            (TokenScope.READ, gettext_lazy("Look only: read campaigns, characters and logs")),
            (TokenScope.PLAYER, gettext_lazy("Play: what you may do as a player")),
            (TokenScope.REFEREE, gettext_lazy("Everything you may do, refereeing included")),
        ],
        initial=TokenScope.READ,
    )
    campaign = forms.TypedChoiceField(
        label=gettext_lazy("Campaign"), coerce=int, required=False, empty_value=None, choices=[]
    )
    expires_on = forms.DateField(
        label=gettext_lazy("Expires on"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=gettext_lazy("Optional. Without a date it works until you revoke it."),
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        campaign = self.fields["campaign"]
        assert isinstance(campaign, forms.ChoiceField)
        campaign.choices = [("", _("All my campaigns"))] + [
            (m.campaign_id, m.campaign.name) for m in memberships_for_user(user)
        ]


def tokens_context(request: HttpRequest, form: TokenForm | None = None) -> dict[str, Any]:
    """The tokens section of the account page; a new secret is shown this once."""
    return {
        "tokens": list(tokens_for_user(request.user)),
        "token_form": form or TokenForm(user=request.user),
        "new_token": request.session.pop(_NEW_SECRET, None),
    }


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The account page: who you are, your e-mail, your password, your API tokens."""
    return _account_page(request)


def _account_page(request: HttpRequest, status: int = 200, **forms_: Any) -> HttpResponse:
    context = {
        "email_form": forms_.get("email_form")
        or EmailForm(initial={"email": getattr(request.user, "email", "")}),
        "password_form": forms_.get("password_form") or PasswordChangeForm(request.user),
        **tokens_context(request, forms_.get("token_form")),
        **discord_context(request),
        "invitations": _invitations(request),
    }
    return render(request, "accounts/account.html", context, status=status)


@login_required
@require_POST
def account_email(request: HttpRequest) -> HttpResponse:
    form = EmailForm(request.POST)
    if form.is_valid():
        if not request.user.check_password(form.cleaned_data["password"]):
            form.add_error("password", _("That is not your password."))
        else:
            user_change_email(user=request.user, email=form.cleaned_data["email"])
            messages.success(request, _("Your e-mail address is changed."))
            return redirect("account")
    return _account_page(request, 400, email_form=form)


@login_required
@require_POST
def account_password(request: HttpRequest) -> HttpResponse:
    form = PasswordChangeForm(request.user, request.POST)
    if form.is_valid():
        user = form.save()
        update_session_auth_hash(request, user)  # stay logged in here, out elsewhere
        messages.success(request, _("Your password is changed."))
        return redirect("account")
    return _account_page(request, 400, password_form=form)


@login_required
@require_POST
def account_token_create(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST, user=request.user)
    if form.is_valid():
        data = form.cleaned_data
        expires_on = data["expires_on"]
        try:
            token, secret = token_create(
                user=request.user,
                name=data["name"],
                scope=data["scope"],
                campaign_id=data["campaign"],
                expires_at=None
                if expires_on is None
                else datetime.combine(expires_on, time.max, tzinfo=UTC),
            )
        except ValidationError as error:
            form.add_error(None, _token_refusal(error))
        else:
            request.session[_NEW_SECRET] = {"name": token.name, "secret": secret}
            return redirect(reverse("account") + "#tokens")
    return _account_page(request, 400, token_form=form)


def _token_refusal(error: ValidationError) -> str:
    fields = error.message_dict
    if "expires_at" in fields:
        return _("Pick an expiry date after today.")
    if "campaign" in fields:
        return _("You are not in that campaign.")
    return _("You have too many tokens: revoke some you no longer use first.")


@login_required
@require_POST
def account_token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token_revoke(user=request.user, token_id=token_id)
    messages.success(request, _("Token revoked: whatever used it is now turned away."))
    return redirect(reverse("account") + "#tokens")


# -- the Discord link on the account page (docs/discord.md) ---------------------------------
_NEW_DISCORD_CODE = "sawbones_new_discord_code"


def discord_context(request: HttpRequest) -> dict[str, Any]:
    """The Link Discord section: the linked Discord user, and a new code shown this once."""
    return {
        "discord_link": discord_link_of(request.user),
        "discord_code": request.session.pop(_NEW_DISCORD_CODE, None),
    }


@login_required
@require_POST
def account_discord_code(request: HttpRequest) -> HttpResponse:
    """A link code to type in Discord (``/sawbones link``): single use, ten minutes."""
    record, code = discord_link_code_create(user=request.user)
    request.session[_NEW_DISCORD_CODE] = {
        "code": code,
        "expires_at": record.expires_at.isoformat(),
    }
    return redirect(reverse("account") + "#discord")


@login_required
@require_POST
def account_discord_unlink(request: HttpRequest) -> HttpResponse:
    discord_unlink(user=request.user)
    messages.success(request, _("Unlinked: your Discord user acts as nobody here any more."))
    return redirect(reverse("account") + "#discord")
