"""Import invitations (issue 36): an import names people here for the export's players;
nobody joins, plays a character or is shown as the author of an entry before saying yes.

An old_school campaign where "player" played Pell (and made entries) is exported; a new
referee imports it naming "pell.b" here for "player".
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.services import token_create
from campaigns.access import TokenScope
from campaigns.invitations import invitations_create, send_invitation_email
from campaigns.models import Campaign, Membership, PlayerInvitation
from characters.models import Character
from core.errors import NotAllowed
from rules.log.models import Resolution
from rules.logbook.export import campaign_export
from rules.play.services import character_create, resolution_create_action


@pytest.fixture
def export(make_campaign, referee, player) -> dict[str, Any]:
    school = make_campaign("old_school")
    pell = character_create(
        membership=Membership.objects.get(campaign=school, user=player), name="Pell"
    )
    character_create(membership=Membership.objects.get(campaign=school, user=referee), name="Dorn")
    resolution_create_action(
        character_id=pell.pk,
        actor=player,
        by_referee=False,
        action="save",
        params={"category": "poison"},
    )
    return campaign_export(school)


@pytest.fixture
def pell_b(make_user):
    return make_user("pell.b")


@pytest.fixture
def newref(make_user):
    return make_user("newref")


def imported(client_for, importer, export, players) -> Campaign:
    response = client_for(importer).post(
        "/api/v1/campaigns/import/", {"export": export, "players": players}, format="json"
    )
    assert response.status_code == 201, response.content
    return Campaign.objects.get(pk=response.json()["id"])


def sees(client_for, user, copy: Campaign) -> dict[str, Any]:
    """Everything of the copy the person can reach from the API."""
    client = client_for(user)
    pell = Character.objects.get(campaign=copy, name="Pell")
    return {
        "campaigns": [c["id"] for c in client.get("/api/v1/campaigns/").json()],
        "campaign": client.get(f"/api/v1/campaigns/{copy.pk}/").status_code,
        "character": client.get(f"/api/v1/characters/{pell.pk}/").status_code,
        "log": client.get(f"/api/v1/characters/{pell.pk}/resolutions/").status_code,
    }


def test_an_import_mapping_a_stranger_changes_nothing_they_see_until_they_accept(
    export, client_for, web, newref, pell_b
):
    copy = imported(client_for, newref, export, {"player": "pell.b"})
    assert sees(client_for, pell_b, copy) == {
        "campaigns": [],
        "campaign": 404,
        "character": 404,
        "log": 404,
    }
    pell = Character.objects.get(campaign=copy, name="Pell")
    assert pell.owner_id == newref.pk  # the importer's until they accept
    assert not Resolution.objects.filter(campaign=copy, actor=pell_b).exists()
    # the entries Pell's player made name them as the export did, never an account here
    drink = Resolution.objects.get(character=pell, action="save")
    assert (drink.actor_id, drink.imported_actor) == (None, "player")
    entry = client_for(newref).get(f"/api/v1/characters/{pell.pk}/resolutions/").json()
    drank = next(e for e in entry["results"] if e["action"] == "save")
    assert (drank["actor"], drank["imported_actor"]) == (None, "player")
    page = web(newref).get(f"/characters/{pell.pk}/").content.decode()
    assert "by player (imported)" in page
    recap = client_for(newref).get(f"/api/v1/campaigns/{copy.pk}/recap/?format=md")
    assert "(by player (imported))" in recap.content.decode()
    csv = client_for(newref).get(f"/api/v1/campaigns/{copy.pk}/log.csv").content.decode()
    assert "player (imported)" in csv and "pell.b" not in csv
    exported = campaign_export(copy)["resolutions"]  # as it came
    assert next(r["actor"] for r in exported if r["action"] == "save") == "player"
    # what they do see: the invitation, on the API and their pages
    listed = client_for(pell_b).get("/api/v1/invitations/").json()
    assert [(i["campaign"]["id"], i["player"], i["invited_by"]) for i in listed] == [
        (copy.pk, "player", "newref")
    ]
    assert [c["name"] for c in listed[0]["characters"]] == ["Pell"]
    for url in ("/", "/account/"):
        page = web(pell_b).get(url).content.decode()
        assert "newref invites you to play in" in page and "Pell" in page, url
        assert f"/invitations/{listed[0]['id']}/accept/" in page


def test_accepting_hands_over_the_characters_and_the_entries_at_once(
    export, client_for, web, referee, newref, pell_b
):
    copy = imported(client_for, newref, export, {"player": "pell.b"})
    invitation = PlayerInvitation.objects.get(campaign=copy)
    pell = Character.objects.get(campaign=copy, name="Pell")
    version = pell.version
    assert client_for(referee).post(f"/api/v1/invitations/{invitation.pk}/accept/").status_code == (
        404  # another's invitation is no one's to answer
    )
    answer = web(pell_b).post(f"/invitations/{invitation.pk}/accept/")
    assert answer.status_code == 302 and answer["Location"] == f"/campaigns/{copy.pk}/"
    assert Membership.objects.get(campaign=copy, user=pell_b).role == "player"
    pell.refresh_from_db()
    assert (pell.owner_id, pell.version) == (pell_b.pk, version + 1)
    assert Character.objects.get(campaign=copy, name="Dorn").owner_id == newref.pk
    drink = Resolution.objects.get(character=pell, action="save")
    assert (drink.actor_id, drink.imported_actor) == (pell_b.pk, "")
    handover = Resolution.objects.get(character=pell, version=pell.version)
    assert (handover.kind, handover.action, handover.actor_id) == ("edit", "owner", pell_b.pk)
    assert handover.params == {
        "from": {"id": newref.pk, "username": "newref"},
        "to": {"id": pell_b.pk, "username": "pell.b"},
        "invitation": invitation.pk,
    }
    seen = sees(client_for, pell_b, copy)
    assert (seen["campaigns"], seen["campaign"], seen["character"]) == ([copy.pk], 200, 200)
    again = client_for(pell_b).post(f"/api/v1/invitations/{invitation.pk}/accept/")
    assert again.status_code == 409  # answered already
    assert client_for(pell_b).get("/api/v1/invitations/").json() == []
    # the handover is an edit like the referee's "Played by": undone, the importer's again
    assert client_for(newref).post(f"/api/v1/characters/{pell.pk}/undo/").status_code == 201
    assert Character.objects.get(pk=pell.pk).owner_id == newref.pk


def test_declining_leaves_everything_with_the_importer(export, client_for, newref, pell_b):
    copy = imported(client_for, newref, export, {"player": "pell.b"})
    invitation = PlayerInvitation.objects.get(campaign=copy)
    before = list(Resolution.objects.filter(campaign=copy).values())
    answer = client_for(pell_b).post(f"/api/v1/invitations/{invitation.pk}/decline/")
    assert answer.status_code == 200, answer.content
    assert answer.json()["state"] == "declined"
    assert not Membership.objects.filter(campaign=copy, user=pell_b).exists()
    assert set(Character.objects.filter(campaign=copy).values_list("owner_id", flat=True)) == {
        newref.pk
    }
    assert list(Resolution.objects.filter(campaign=copy).values()) == before
    accept = client_for(pell_b).post(f"/api/v1/invitations/{invitation.pk}/accept/")
    assert accept.status_code == 409
    assert not Membership.objects.filter(campaign=copy, user=pell_b).exists()
    rows = client_for(newref).get(f"/api/v1/campaigns/{copy.pk}/import-invitations/").json()
    assert [(r["player"], r["username"], r["state"]) for r in rows] == [
        ("player", "pell.b", "declined")
    ]


def test_a_fresh_import_after_leaving_invites_again_and_adds_no_one(
    export, client_for, newref, pell_b
):
    first = imported(client_for, newref, export, {"player": "pell.b"})
    invitation = PlayerInvitation.objects.get(campaign=first)
    accepted = client_for(pell_b).post(f"/api/v1/invitations/{invitation.pk}/accept/")
    assert accepted.status_code == 200, accepted.content
    assert client_for(pell_b).post(f"/api/v1/campaigns/{first.pk}/leave/").status_code == 204
    again = imported(client_for, newref, export, {"player": "pell.b"})
    assert not Membership.objects.filter(user=pell_b).exists()
    assert Character.objects.get(campaign=again, name="Pell").owner_id == newref.pk
    assert [i["campaign"]["id"] for i in client_for(pell_b).get("/api/v1/invitations/").json()] == [
        again.pk
    ]


@pytest.mark.parametrize(
    ("scope", "status"),
    [(TokenScope.PLAYER, 403), (TokenScope.READ, 403), (TokenScope.REFEREE, 201)],
)
def test_importing_needs_the_referee_scope(export, client_for, newref, scope, status):
    _, secret = token_create(user=newref, name="bot", scope=scope)
    client = client_for(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
    before = Campaign.objects.count()
    response = client.post(
        "/api/v1/campaigns/import/",
        {"export": export, "players": {"player": "pell.b"}},
        format="json",
    )
    assert response.status_code == status, response.content
    assert Campaign.objects.count() == before + (status == 201)
    assert PlayerInvitation.objects.count() == (status == 201)


def test_only_the_referee_of_a_campaign_invites_to_it(make_campaign, player):
    campaign = make_campaign("old_school")
    membership = Membership.objects.get(campaign=campaign, user=player)
    with pytest.raises(NotAllowed):
        invitations_create(membership=membership, named={"x": "player"}, characters={})
    assert not PlayerInvitation.objects.exists()


def answer_of(response: Any) -> Any:
    """An import's answer, without what differs between two imports (the campaign)."""
    body = response.json()
    return {k: v for k, v in body.items() if k not in {"id", "dice_commitment"}}


def test_the_same_answer_for_an_account_and_for_no_one(
    export, client_for, web, newref, pell_b, django_capture_on_commit_callbacks
):
    """ "pell.b" has an account (and an e-mail address), "pell.c" does not: the importer
    cannot tell them apart, by the API, the import page or the referee's list."""
    pell_b.email = "pell@example.org"
    pell_b.save()
    answers, lists, pages = [], [], []
    for name in ("pell.b", "pell.c"):
        with django_capture_on_commit_callbacks(execute=True):  # the e-mail's task
            response = client_for(newref).post(
                "/api/v1/campaigns/import/",
                {"export": export, "players": {"player": name}},
                format="json",
            )
            upload = SimpleUploadedFile("c.json", json.dumps(export).encode(), "application/json")
            page = web(newref).post(
                "/campaigns/import/", {"export": upload, "players": f"player = {name}"}, follow=True
            )
        assert response.status_code == 201, response.content
        copy = Campaign.objects.get(pk=response.json()["id"])
        answers.append(answer_of(response))
        rows = client_for(newref).get(f"/api/v1/campaigns/{copy.pk}/import-invitations/").json()
        lists.append([{**r, "id": 0, "created_at": 0, "username": "?"} for r in rows])
        said = re.search(r'<div class="flash" role="status">(.*?)</div>', page.content.decode())
        assert said is not None
        pages.append(re.sub(r"A old.school campaign( \(copy( \d)?\))?", "C", said.group(1)))
    assert answers[0] == {**answers[1], "name": answers[0]["name"]}
    assert lists[0] == lists[1] and lists[0][0]["state"] == "pending"
    assert pages[0].replace("pell.b", "?") == pages[1].replace("pell.c", "?")
    assert "pell.b is invited to play the characters the file says they played" in pages[0]
    # the account holder is told by e-mail, once (a day: the second import sent none),
    # and nobody else is
    assert [m.to for m in mail.outbox] == [["pell@example.org"]]
    assert "newref has imported the campaign" in mail.outbox[0].body
    first = PlayerInvitation.objects.filter(user=pell_b).earliest("pk")
    assert first.emailed_at is not None
    assert send_invitation_email(first.pk) is False  # its task again: no second mail
    assert len(mail.outbox) == 1
    assert PlayerInvitation.objects.filter(user=pell_b).count() == 2  # both on their pages


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("action", "x" * 65),
        ("kind", "nonsense"),
        ("clock", 2**64),
        ("dice_counter_end", 2**63),
        ("actor", "x" * 151),
    ],
)
def test_an_entry_too_large_for_its_column_is_a_400(export, client_for, newref, where, value):
    """A value the database cannot hold (too long, too large) is refused in plain words,
    nothing imported: it was a 500 (an OverflowError on SQLite, a DataError on
    PostgreSQL)."""
    damaged = copy.deepcopy(export)
    damaged["resolutions"][0][where] = value
    before = Campaign.objects.count()
    response = client_for(newref).post(
        "/api/v1/campaigns/import/", {"export": damaged}, format="json"
    )
    assert response.status_code == 400, response.content
    assert Campaign.objects.count() == before
