"""The account pages: sign-up with the password twice, the account page (e-mail,
password), password reset by e-mail, an invite kept through log-in."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from campaigns.services import campaign_create, invite_create

pytestmark = pytest.mark.django_db
PHRASE = "a long pass phrase 42"


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_signup_wants_the_same_password_twice():
    response = Client().post(
        reverse("signup"),
        {"username": "mira", "password": PHRASE, "password_again": PHRASE + "!"},
    )
    assert response.status_code == 400
    assert "The two passwords differ" in response.content.decode()
    assert not get_user_model().objects.filter(username="mira").exists()


def test_account_page_changes_email_with_the_password(referee):
    client = logged_in(referee)
    page = client.get(reverse("account"))
    assert page.status_code == 200
    assert "Your account" in page.content.decode()
    wrong = client.post(reverse("account-email"), {"email": "r@example.com", "password": "no"})
    assert wrong.status_code == 400 and "That is not your password." in wrong.content.decode()
    bad = client.post(reverse("account-email"), {"email": "not-mail", "password": "pw-referee"})
    assert bad.status_code == 400
    referee.refresh_from_db()
    assert referee.email == ""
    done = client.post(
        reverse("account-email"), {"email": "r@example.com", "password": "pw-referee"}
    )
    assert done.status_code == 302
    referee.refresh_from_db()
    assert referee.email == "r@example.com"


def test_account_page_changes_the_password_and_stays_logged_in(referee):
    client = logged_in(referee)
    refused = client.post(
        reverse("account-password"),
        {"old_password": "wrong", "new_password1": PHRASE, "new_password2": PHRASE},
    )
    assert refused.status_code == 400
    done = client.post(
        reverse("account-password"),
        {"old_password": "pw-referee", "new_password1": PHRASE, "new_password2": PHRASE},
    )
    assert done.status_code == 302
    referee.refresh_from_db()
    assert referee.check_password(PHRASE)
    assert client.get(reverse("account")).status_code == 200  # still logged in


def test_account_page_needs_a_login():
    response = Client().get(reverse("account"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_password_reset_by_email(referee):
    referee.email = "ref@example.com"
    referee.save()
    client = Client()
    sent = client.post(reverse("password_reset"), {"email": "ref@example.com"})
    assert sent.status_code == 302
    assert len(mail.outbox) == 1
    body = str(mail.outbox[0].body)
    link = re.search(r"https?://[^/]+(/password-reset/\S+/)", body)
    assert link is not None
    form = client.get(link.group(1), follow=True)
    assert "Choose a new password" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": PHRASE, "new_password2": PHRASE}
    )
    assert done.status_code == 302
    referee.refresh_from_db()
    assert referee.check_password(PHRASE)
    # the link works once
    again = client.get(link.group(1), follow=True)
    assert "This link no longer works" in again.content.decode()


def test_an_unknown_address_gets_the_same_answer_and_no_mail():
    response = Client().post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert response.status_code == 302 and len(mail.outbox) == 0


def test_an_invite_survives_logging_in(referee, player):
    campaign = campaign_create(user=referee, name="Harrow", ruleset="hit_dice")
    invite = invite_create(campaign=campaign, user=referee)
    client = Client()
    client.get(reverse("join-code", args=[invite.code]))
    response = client.post(reverse("login"), {"username": "player", "password": "pw-player"})
    assert response["Location"] == reverse("join-code", args=[invite.code])
