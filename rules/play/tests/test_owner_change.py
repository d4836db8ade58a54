"""Who plays a character (issue 29): the referee changes it to any member of the
campaign; the change is an edit in the log, undone and redone like any other entry."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.http import Http404

from campaigns.models import Membership
from characters.models import Character
from characters.services import member_remove
from core.errors import NotAllowed, ResolutionConflict
from rules.log.models import Resolution, ResolutionKind
from rules.play.dice_rotation import campaign_archive
from rules.play.editing import character_owner_set
from rules.play.services import character_create
from rules.play.undo import resolution_redo, resolution_undo

pytestmark = pytest.mark.django_db


@pytest.fixture
def mara(campaign, referee) -> Character:
    """An NPC of the referee's, as an import leaves every character."""
    membership = Membership.objects.get(campaign=campaign, user=referee)
    return character_create(membership=membership, name="Mara", sheet={"hp": 8})


def url(character):
    return f"/api/v1/characters/{character.pk}/owner/"


def entries(character):
    return Resolution.objects.filter(character=character).count()


def owner_of(character):
    return Character.objects.get(pk=character.pk).owner_id


def test_the_referee_hands_a_character_to_a_player_and_it_is_logged(mara, referee, player):
    edit = character_owner_set(character_id=mara.pk, actor=referee, player="player")
    assert owner_of(mara) == player.pk
    assert (edit.kind, edit.action, edit.actor_id) == (ResolutionKind.EDIT, "owner", referee.pk)
    assert edit.params == {
        "from": {"id": referee.pk, "username": "referee"},
        "to": {"id": player.pk, "username": "player"},
    }
    assert edit.summary == "Mara: now played by player, no longer by referee."
    assert edit.sheet_before == edit.sheet_after
    assert Character.objects.get(pk=mara.pk).version == edit.version
    # by user id too, and back to the referee themself
    character_owner_set(character_id=mara.pk, actor=referee, player=referee.pk)
    assert owner_of(mara) == referee.pk


def test_only_the_referee_may_and_outsiders_learn_nothing(mara, referee, player, outsider):
    character_owner_set(character_id=mara.pk, actor=referee, player="player")
    before = entries(mara)
    with pytest.raises(NotAllowed):  # the player now plays Mara, but may not give her away
        character_owner_set(character_id=mara.pk, actor=player, player="other_player")
    with pytest.raises(Http404):
        character_owner_set(character_id=mara.pk, actor=outsider, player="outsider")
    assert (owner_of(mara), entries(mara)) == (player.pk, before)


def test_someone_not_in_the_campaign_is_a_plain_400_and_nothing_changes(mara, referee, outsider):
    before = (owner_of(mara), entries(mara))
    for who in ("outsider", "nobody-at-all", outsider.pk, 987654, "   "):
        with pytest.raises(ValidationError) as refused:
            character_owner_set(character_id=mara.pk, actor=referee, player=who)
        [message] = refused.value.message_dict["owner"]
        assert "owner" not in message  # no field names
    assert refused.value.message_dict["owner"] == ["Choose who plays Mara."]
    with pytest.raises(ValidationError) as refused:
        character_owner_set(character_id=mara.pk, actor=referee, player="outsider")
    assert refused.value.messages == [
        "outsider is not in A hit_dice campaign: invite them to the campaign first."
    ]
    assert (owner_of(mara), entries(mara)) == before


def test_a_stale_version_or_the_same_player_is_a_409(mara, referee, player):
    stale = mara.version
    character_owner_set(
        character_id=mara.pk, actor=referee, player="player", expected_version=stale
    )
    before = entries(mara)
    with pytest.raises(ResolutionConflict, match="is at version"):
        character_owner_set(
            character_id=mara.pk, actor=referee, player="other_player", expected_version=stale
        )
    with pytest.raises(ResolutionConflict, match="Mara is already played by player."):
        character_owner_set(character_id=mara.pk, actor=referee, player="player")
    assert (owner_of(mara), entries(mara)) == (player.pk, before)


def test_an_archived_campaign_keeps_its_players(campaign, mara, referee):
    campaign_archive(campaign_id=campaign.pk)
    with pytest.raises(ResolutionConflict):
        character_owner_set(character_id=mara.pk, actor=referee, player="player")
    assert owner_of(mara) == referee.pk


def test_undo_puts_the_player_before_back_and_redo_the_one_after(mara, referee, player):
    character_owner_set(character_id=mara.pk, actor=referee, player="player")
    [undo] = resolution_undo(character_id=mara.pk, actor=referee)
    assert owner_of(mara) == referee.pk
    assert undo.summary == "Mara: Referee undid: now played by player, no longer by referee."
    resolution_redo(character_id=mara.pk, actor=referee)
    assert owner_of(mara) == player.pk
    resolution_undo(character_id=mara.pk, actor=referee)  # undoing the redo
    assert owner_of(mara) == referee.pk


def test_undo_refuses_to_hand_a_character_back_to_someone_who_left(
    campaign, mara, referee, player, other_player
):
    character_owner_set(character_id=mara.pk, actor=referee, player="player")
    character_owner_set(character_id=mara.pk, actor=referee, player="other_player")
    member_remove(campaign_id=campaign.pk, user_id=player.pk, referee=referee)
    before = entries(mara)
    with pytest.raises(ResolutionConflict) as refused:
        resolution_undo(character_id=mara.pk, actor=referee)
    assert str(refused.value) == (
        "player is no longer in the campaign, so this cannot be undone or redone: "
        "choose who plays Mara instead."
    )
    assert (owner_of(mara), entries(mara)) == (other_player.pk, before)


# -- through the API ----------------------------------------------------------------------


def test_the_api_changes_the_player_by_username_or_id(mara, referee, player, client_for):
    client = client_for(referee)
    response = client.post(url(mara), {"owner": "player"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["character"]["owner"] == player.pk
    assert Resolution.objects.get(pk=body["resolution"]).action == "owner"
    version = body["character"]["version"]
    response = client.post(
        url(mara), {"owner": referee.pk, "expected_version": version}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["character"]["owner"] == referee.pk


def test_the_api_refusals(mara, referee, player, outsider, client_for):
    client = client_for(referee)
    before = (owner_of(mara), entries(mara))
    for body in ({"owner": "outsider"}, {"owner": outsider.pk}):
        response = client.post(url(mara), body, format="json")
        assert response.status_code == 400, response.content
        assert "invite them" in response.json()["owner"][0]
    for body in ({}, {"owner": True}, {"owner": 0}, {"owner": ""}, {"owner": [1]}):
        assert client.post(url(mara), body, format="json").status_code == 400
    stale = {"owner": "player", "expected_version": mara.version + 5}
    assert client.post(url(mara), stale, format="json").status_code == 409
    assert client.post(url(mara), {"owner": "referee"}, format="json").status_code == 409
    assert (
        client_for(outsider).post(url(mara), {"owner": "outsider"}, format="json").status_code
        == 404
    )
    assert (owner_of(mara), entries(mara)) == before


def test_the_same_request_sent_again_with_its_key_acts_once(mara, referee, player, client_for):
    client = client_for(referee)
    client.force_login(referee)  # the key is per person: known before the view runs

    def send():
        return client.post(
            url(mara), {"owner": "player"}, format="json", HTTP_IDEMPOTENCY_KEY="owner-1"
        )

    first, again = send(), send()
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json() == first.json()
    owner_edits = Resolution.objects.filter(character=mara, action="owner")
    assert owner_edits.count() == 1
    assert owner_of(mara) == player.pk
