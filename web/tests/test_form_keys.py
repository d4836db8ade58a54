"""Pages' one-time form keys (issue 24): every form that changes something carries a
key made when it is rendered; a double click or a form sent again acts once and shows
the first result, never a version conflict."""

from __future__ import annotations

import re

import pytest

from campaigns.models import Membership
from core.idempotency import fingerprint, idempotency_claim
from rules.log.models import Resolution, ResolutionKind
from rules.play.services import character_create

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
FORM = re.compile(r"<form\b[^>]*>.*?</form>", re.S)


def post_forms(html: str) -> list[str]:
    return [form for form in FORM.findall(html) if 'method="post"' in form.split(">")[0]]


def key_of(form: str) -> str:
    found = re.search(r'name="idempotency_key" value="([^"]+)"', form)
    assert found, form[:200]
    return found.group(1)


@pytest.fixture
def aldo(campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    return character_create(
        membership=membership, name="Aldo", sheet={"level": 2, "hit_dice": 2, "hp": 10}
    )


def actions_of(character) -> int:
    return Resolution.objects.filter(character=character, kind=ResolutionKind.ACTION).count()


def test_every_form_that_changes_something_carries_a_new_key_each_time(
    campaign, aldo, referee, web
):
    client = web(referee)
    pages = [
        f"/campaigns/{campaign.pk}/",
        f"/characters/{aldo.pk}/",
        f"/characters/{aldo.pk}/edit/",
        f"/campaigns/{campaign.pk}/party/",
        f"/campaigns/{campaign.pk}/settings/",
        "/account/",
    ]
    keys = []
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        forms = post_forms(response.content.decode())
        assert forms, page
        keys += [key_of(form) for form in forms]
    assert len(keys) == len(set(keys))  # one key per form rendered
    again = post_forms(client.get(pages[1]).content.decode())
    assert not {key_of(form) for form in again} & set(keys)


def test_a_sheet_action_sent_twice_acts_once_and_shows_the_first_result(aldo, referee, web):
    client = web(referee)
    sheet = client.get(f"/characters/{aldo.pk}/").content.decode()
    (form,) = [f for f in post_forms(sheet) if f"/characters/{aldo.pk}/actions/damage/" in f]
    body = {
        "idempotency_key": key_of(form),
        "expected_version": aldo.version,
        "p.amount": "3",
    }
    url = f"/characters/{aldo.pk}/actions/damage/"
    first = client.post(url, body, **HTMX)
    second = client.post(url, body, **HTMX)
    assert first.status_code == second.status_code == 200
    assert second.content == first.content  # no "is at version 2, not 1"
    assert second["Idempotent-Replayed"] == "true"
    assert actions_of(aldo) == 1
    # the answer's new forms carry new keys: sending the form again on purpose acts
    (fresh,) = [
        f for f in post_forms(first.content.decode()) if url in f and "expected_version" in f
    ]
    assert key_of(fresh) != body["idempotency_key"]
    aldo.refresh_from_db()
    again = {**body, "idempotency_key": key_of(fresh), "expected_version": aldo.version}
    assert client.post(url, again, **HTMX).status_code == 200
    assert actions_of(aldo) == 2


def test_a_party_action_sent_twice_makes_one_entry_per_character(
    make_campaign, referee, player, other_player, web
):
    school = make_campaign("old_school")
    party = [
        character_create(
            membership=Membership.objects.get(campaign=school, user=user),
            name=name,
            sheet={"max_wounds": 8},
        )
        for user, name in ((player, "Dorn"), (other_player, "Pell"))
    ]
    client = web(referee)
    url = f"/campaigns/{school.pk}/party/?action=damage"
    (form,) = [f for f in post_forms(client.get(url).content.decode()) if "party-form" in f]
    body = {
        "idempotency_key": key_of(form),
        "action": "damage",
        "characters": [c.pk for c in party],
        "p.amount": "1",
    }
    first = client.post(f"/campaigns/{school.pk}/party/", body)
    second = client.post(f"/campaigns/{school.pk}/party/", body)
    assert first.status_code == second.status_code == 200
    assert second.content == first.content
    for character in party:
        assert actions_of(character) == 1


def test_a_form_sent_again_with_other_values_does_nothing_and_says_so(aldo, referee, web):
    client = web(referee)
    url = f"/characters/{aldo.pk}/actions/damage/"
    body = {"idempotency_key": "k-1", "p.amount": "3"}
    assert client.post(url, body, **HTMX).status_code == 200
    other = client.post(
        url, {**body, "p.amount": "4"}, HTTP_REFERER=f"/characters/{aldo.pk}/", **HTMX
    )
    assert other["HX-Redirect"] == f"/characters/{aldo.pk}/"
    plain = client.post(url, {**body, "p.amount": "4"}, HTTP_REFERER="https://elsewhere.example/")
    assert (plain.status_code, plain["Location"]) == (303, "/")
    assert actions_of(aldo) == 1
    page = client.get(f"/characters/{aldo.pk}/").content.decode()
    assert "That form was sent already, with other values" in page


def test_a_second_click_waits_for_the_first_and_is_told_when_it_takes_too_long(
    aldo, referee, web, settings
):
    settings.SAWBONES_IDEMPOTENCY_PAGE_WAIT = 0.3
    url = f"/characters/{aldo.pk}/actions/damage/"
    fields = [("p.amount", "3")]
    idempotency_claim(user_id=referee.pk, key="slow", fingerprint=fingerprint("POST", url, fields))
    response = web(referee).post(url, {"idempotency_key": "slow", "p.amount": "3"}, **HTMX)
    assert response.status_code == 409
    assert "still being sent" in response.content.decode()
    assert actions_of(aldo) == 0


def test_the_odds_asked_with_a_form_do_not_spend_its_key(aldo, referee, web):
    client = web(referee)
    body = {"idempotency_key": "k-odds", "p.amount": "3"}
    odds = client.post(f"/characters/{aldo.pk}/odds/damage/", body, **HTMX)
    assert odds.status_code == 200
    client.post(f"/characters/{aldo.pk}/odds/damage/", {**body, "p.amount": "5"}, **HTMX)
    assert client.post(f"/characters/{aldo.pk}/actions/damage/", body, **HTMX).status_code == 200
    assert actions_of(aldo) == 1
