"""A signed-in person's own choice of language, on the pages (docs/translating.md).

Whose language a page speaks: the person's choice (``AccountPreferences.language``), else
the footer picker's cookie (Django's ``set_language``), else the browser's
Accept-Language, else English. Django's ``LocaleMiddleware`` does the last three; the
choice is kept in the session when the person logs in or changes it, so reading it costs
no query on any request (a live poll reads the session, the user and its stamp only). The
API answers in the request's Accept-Language: a client says what it reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from accounts.selectors import account_language
from core.middleware import accept_language, is_api

# The session's copy of the person's choice (a code of settings.LANGUAGES, or absent).
SESSION_KEY = "account_language"


def remember_language(request: HttpRequest, language: str) -> None:
    """Keep the person's choice in their session ("" for none)."""
    if language:
        request.session[SESSION_KEY] = language
    else:
        request.session.pop(SESSION_KEY, None)


def on_login(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """At log-in (``user_logged_in``): the account's choice into the new session."""
    if request is not None and hasattr(request, "session"):
        remember_language(request, account_language(user))


class AccountLanguageMiddleware:
    """On the pages, the person's choice over what ``LocaleMiddleware`` found; on the
    API, the request's Accept-Language alone (a browser's language cookie is the pages').
    After ``LocaleMiddleware`` (and after the session), so its answer's Content-Language
    is the language chosen here."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = accept_language(request) if is_api(request) else request.session.get(SESSION_KEY)
        if language in dict(settings.LANGUAGES):
            translation.activate(language)
            request.LANGUAGE_CODE = language
        return self.get_response(request)
