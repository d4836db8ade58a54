"""What an unchanged live poll costs in queries (issue 16; bench/live_pages.py measures
the time): the user and one query that reads the stamp with the viewer's place in the
campaign (web/live.py); the session comes from the cache (core/sessions.py). A poll the
short way may not admit goes the whole way through the view's access check, which
refuses as before."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Membership
from rules.battles.services import battle_begin
from rules.play.services import character_create

pytestmark = pytest.mark.django_db


def poll(client, url, stamp):
    """One poll as htmx sends it (static/js/sawbones.js): its SQL and the response."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(
            url, {"v": stamp}, HTTP_IF_NONE_MATCH=f'"{stamp}"', HTTP_HX_REQUEST="true"
        )
    return response, [q["sql"] for q in captured]


def hero(campaign, user, name="Aldo"):
    membership = Membership.objects.get(campaign=campaign, user=user)
    return character_create(membership=membership, name=name, sheet={"level": 3, "hp": 5})


def assert_two(sql):
    # the user, the stamp with the viewer's role (one statement); the session comes from
    # the cache (core/sessions.py: it was 3 with the session read from the database)
    assert len(sql) == 2, "\n".join(sql)
    assert "auth_user" in sql[0] and not any("django_session" in q for q in sql)


def test_an_unchanged_sheet_poll_costs_two_queries(web, campaign, referee, player):
    aldo = hero(campaign, player)
    live = reverse("character-live", args=[aldo.pk])
    for viewer in (player, referee):  # the owner, the referee
        client = web(viewer)
        stamp = client.get(reverse("character", args=[aldo.pk])).context["stamp"]
        response, sql = poll(client, live, stamp)
        assert response.status_code == 304 and response.content == b""
        assert response["ETag"] == f'"{stamp}"'
        assert_two(sql)


def test_an_unchanged_dashboard_poll_costs_two_queries(web, campaign, referee, player):
    hero(campaign, player)
    live = reverse("campaign-live", args=[campaign.pk])
    for viewer in (referee, player):  # the referee's stamp has the clock job, a player's not
        client = web(viewer)
        stamp = client.get(reverse("campaign", args=[campaign.pk])).context["stamp"]
        response, sql = poll(client, live, stamp)
        assert response.status_code == 304, response.status_code
        assert_two(sql)


def test_an_unchanged_battle_board_poll_costs_two_queries(
    web, make_campaign, make_unit, referee, player, other_player
):
    skirmish = make_campaign("warband")
    make_unit(skirmish, player, "Red Hero", "Red")
    make_unit(skirmish, other_player, "Blue Blade", "Blue")
    battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue"], actor=referee)
    client = web(player)
    html = client.get(reverse("battle", args=[skirmish.pk])).content.decode()
    stamp = html.split("battle/live/?v=")[1].split('"')[0]
    response, sql = poll(client, reverse("battle-live", args=[skirmish.pk]), stamp)
    assert response.status_code == 304
    assert_two(sql)


def test_the_short_way_admits_no_one_the_access_check_would_refuse(
    web, campaign, make_campaign, referee, player, other_player, outsider
):
    aldo = hero(campaign, player)
    stamp = web(player).get(reverse("character", args=[aldo.pk])).context["stamp"]
    party = web(referee).get(reverse("campaign", args=[campaign.pk])).context["stamp"]
    sheet = reverse("character-live", args=[aldo.pk])
    dashboard = reverse("campaign-live", args=[campaign.pk])
    # another player of the party, knowing the sheet's stamp: 404 as before
    assert poll(web(other_player), sheet, stamp)[0].status_code == 404
    # an outsider, knowing both stamps: 404
    assert poll(web(outsider), sheet, stamp)[0].status_code == 404
    assert poll(web(outsider), dashboard, party)[0].status_code == 404
    # no such character or campaign
    assert poll(web(player), reverse("character-live", args=[10**9]), stamp)[0].status_code == 404
    assert poll(web(player), reverse("campaign-live", args=[10**9]), party)[0].status_code == 404
    # a board of a campaign that fights no battles, with a made-up stamp: 404
    board = reverse("battle-live", args=[campaign.pk])
    assert poll(web(player), board, "-.1.1")[0].status_code == 404
    # signed out: the sign-in page, no 304
    assert poll(web(None), sheet, stamp)[0].status_code == 302
    # a changed stamp: the whole fragment
    assert poll(web(player), sheet, "0.0")[0].status_code == 200
