"""The whole log of a campaign (issue 13): API and page, newest first, filterable,
paginated, in a number of queries that does not grow with the log's length."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaigns.models import Membership
from rules.log.models import Resolution
from rules.play.services import character_create, resolution_create_action


@pytest.fixture
def party(campaign, player, other_player):
    aldo = character_create(
        membership=Membership.objects.get(campaign=campaign, user=player),
        name="Aldo",
        sheet={"level": 2, "hit_dice": 2, "hp": 30},
    )
    bo = character_create(
        membership=Membership.objects.get(campaign=campaign, user=other_player),
        name="Bo",
        sheet={"level": 2, "hit_dice": 2, "hp": 5000},
    )
    return aldo, bo


def hit(character, user, amount, referee=False):
    return resolution_create_action(
        character_id=character.pk,
        actor=user,
        by_referee=referee,
        action="damage",
        params={"amount": amount},
    )


def url(campaign, **query):
    tail = "&".join(f"{k}={v}" for k, v in query.items())
    return f"/api/v1/campaigns/{campaign.pk}/resolutions/" + (f"?{tail}" if tail else "")


def test_the_referee_reads_everyone_newest_first_and_filters(
    campaign, party, referee, player, other_player, client_for
):
    aldo, bo = party
    hit(aldo, player, 1)
    Resolution.objects.filter(character=aldo, action="damage").update(clock=100)
    hit(bo, referee, 2, referee=True)
    Resolution.objects.filter(character=bo, action="damage").update(clock=200)
    client = client_for(referee)
    body = client.get(url(campaign)).json()
    assert body["count"] == 4  # two creations, two hits
    assert [r["clock"] for r in body["results"]][:2] == [200, 100]
    only_bo = client.get(url(campaign, character=bo.pk)).json()["results"]
    assert {r["character"] for r in only_bo} == {bo.pk}
    by_player = client.get(url(campaign, who=player.pk)).json()["results"]
    assert {r["character"] for r in by_player} == {aldo.pk}  # its creation and its hit
    by_clock = client.get(url(campaign, who="clock")).json()["count"]
    assert by_clock == 0
    damage = client.get(url(campaign, action="damage")).json()["count"]
    assert damage == 2
    window = client.get(url(campaign, **{"from": 150, "to": 250})).json()["results"]
    assert [r["character"] for r in window] == [bo.pk]
    text = client.get(url(campaign, q="joins the party")).json()["count"]
    assert text == 2
    for bad in ({"from": "soon"}, {"who": "nobody"}, {"character": "x"}, {"to": -1}):
        assert client.get(url(campaign, **bad)).status_code == 400, bad


def test_roll_labels_filter(campaign, party, player, client_for, scripted_dice):
    aldo, _ = party
    scripted_dice([20, 20])  # 32 damage on 30 hp: two injury saves, both pass
    hit(aldo, player, 32)
    found = client_for(player).get(url(campaign, roll="Strength injury save")).json()
    assert found["count"] == 1


def test_a_player_reads_only_their_own_characters(campaign, party, player, client_for):
    aldo, bo = party
    hit(bo, player, 1, referee=True)
    body = client_for(player).get(url(campaign)).json()
    assert {r["character"] for r in body["results"]} == {aldo.pk}


def test_the_query_count_does_not_grow_with_the_log(campaign, party, player, referee, client_for):
    aldo, _ = party
    client = client_for(referee)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url(campaign)).status_code == 200
        return len(captured)

    short = queries()
    for _ in range(25):
        hit(aldo, player, 1)
    assert queries() == short
    page = client.get(url(campaign, page_size=10)).json()
    assert len(page["results"]) == 10 and page["next"]


def test_the_log_page_filters_and_pages(campaign, party, player, referee, web):
    aldo, bo = party
    for _ in range(55):
        hit(bo, referee, 1, referee=True)
    client = web(referee)
    page = client.get(f"/campaigns/{campaign.pk}/log/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "57 entries" in html
    assert "Page 1 of 2" in html and "Older entries" in html
    filtered = client.get(f"/campaigns/{campaign.pk}/log/?character={aldo.pk}").content.decode()
    assert "1 entry" in filtered and "Aldo: Character created" in filtered
    days = client.get(f"/campaigns/{campaign.pk}/log/?from_day=2").content.decode()
    assert "0 entries" in days
    bad = client.get(f"/campaigns/{campaign.pk}/log/?from_day=soon")
    assert bad.status_code == 400
    with CaptureQueriesContext(connection) as captured:
        client.get(f"/campaigns/{campaign.pk}/log/?page=2")
    few = len(captured)
    for _ in range(30):
        hit(bo, referee, 1, referee=True)
    with CaptureQueriesContext(connection) as captured:
        client.get(f"/campaigns/{campaign.pk}/log/?page=2")
    assert len(captured) == few
    assert web(player).get(f"/campaigns/{campaign.pk}/log/").status_code == 200
