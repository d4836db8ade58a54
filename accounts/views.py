"""The account page's language form (docs/translating.md); the rest of the account
page is web.views.accounts."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from accounts.language import remember_language
from accounts.services import account_language_set


@login_required
@require_POST
def account_language(request: HttpRequest) -> HttpResponse:
    """Keep the person's language ("" for none: the footer's picker, else the
    browser's); the page answers in it at once."""
    language = request.POST.get("language", "")
    try:
        account_language_set(user=request.user, language=language)
    except ValidationError:
        messages.error(request, gettext("Pick one of the languages offered."))
        return redirect(reverse("account") + "#language")
    remember_language(request, language)
    response = redirect(reverse("account") + "#language")
    if language:
        translation.activate(language)
        # the same language for this browser once logged out (the footer's picker's cookie)
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        )
    messages.success(request, gettext("Your language is saved."))
    return response
