"""Plain pages for people: home ("my campaigns"), sign-up, log-in, log-out."""

from __future__ import annotations

from django import forms
from django.contrib.auth import login
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from accounts.services import user_register
from campaigns.models import Role
from campaigns.selectors import memberships_for_user


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150, widget=forms.TextInput(attrs={"autofocus": True}))
    email = forms.EmailField(required=False, help_text="Optional.")
    password = forms.CharField(widget=forms.PasswordInput)


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
        try:
            user = user_register(**form.cleaned_data)
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                for message in messages:
                    form.add_error(field if field in form.fields else None, message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(_next_url(request) or "home")
    return render(
        request,
        "registration/signup.html",
        {"form": form, "next": _next_url(request)},
        status=400 if form.errors else 200,
    )
