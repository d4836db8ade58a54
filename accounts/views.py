"""Plain pages for people: home, sign-up, log-in, log-out."""

from __future__ import annotations

from django import forms
from django.contrib.auth import login
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts.services import user_register
from campaigns.selectors import memberships_for_user


class SignupForm(forms.Form):
    username = forms.CharField(max_length=150)
    email = forms.EmailField(required=False)
    password = forms.CharField(widget=forms.PasswordInput)


def home(request: HttpRequest) -> HttpResponse:
    memberships = memberships_for_user(request.user) if request.user.is_authenticated else []
    return render(request, "home.html", {"memberships": memberships})


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
            return redirect("home")
    return render(request, "registration/signup.html", {"form": form})
