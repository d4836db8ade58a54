"""``POST /discord/interactions/`` with real interactions signed by the tests' own Ed25519
key: PING, every subcommand as a player, the referee and an outsider, autocomplete, a
choice answered by a button, a deferred advance whose follow-up reaches a local receiver,
a replayed interaction acting once, bad and stale signatures refused."""

from __future__ import annotations

import time
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from accounts.models import DiscordLink
from accounts.services import discord_link_code_create
from campaigns.models import Membership
from discord_play.models import ChannelBinding
from discord_play.tests.conftest import (
    APPLICATION_ID,
    CHANNEL,
    DISCORD_IDS,
    GUILD,
    SITE,
    URL,
    autocomplete,
    command,
    content_of,
    link,
    press,
)
from discord_play.tests.limits import check_message
from rules.clock.models import ClockJob
from rules.log.models import Resolution
from rules.play.dice_rotation import campaign_archive
from rules.play.services import character_create

pytestmark = pytest.mark.django_db

EPHEMERAL = 64


def private(answer: dict[str, Any]) -> bool:
    return bool(answer["data"].get("flags", 0) & EPHEMERAL)


# -- the endpoint ---------------------------------------------------------------------------
def test_without_the_settings_the_endpoint_is_404(client, settings):
    settings.SAWBONES_DISCORD_PUBLIC_KEY = ""
    settings.SAWBONES_DISCORD_APPLICATION_ID = ""
    response = client.post(URL, b'{"type": 1}', content_type="application/json")
    assert response.status_code == 404


def test_a_ping_is_answered_pong(send):
    assert send.answer({"type": 1, "id": "1", "application_id": APPLICATION_ID}) == {"type": 1}


def test_bad_missing_and_stale_signatures_are_401_and_nothing_runs(send, table, player):
    act = command(
        "player", "act", character=str(table["aldo"].pk), action="damage", params="amount=2"
    )
    before = Resolution.objects.count()
    other_key = Ed25519PrivateKey.generate()
    refused = [
        send.post(act, key=other_key),  # signed by someone else
        send.post(act, signature=""),  # no signature
        send.post(act, signature="zz"),  # not hex
        send.post(act, timestamp=int(time.time()) - 6 * 60),  # stale: 6 minutes old
        send.post(act, timestamp=int(time.time()) + 6 * 60),  # from the future
        send.post(act, body=b'{"type": 1}'),  # signed for another body
    ]
    for response in refused:
        assert response.status_code == 401
        assert response.json() == {"detail": "invalid request signature"}
    assert Resolution.objects.count() == before
    assert send.post(act, timestamp=int(time.time()) - 4 * 60).status_code == 200  # in time


# -- linking ---------------------------------------------------------------------------------
def test_a_code_links_once_and_unlink_forgets(send, player, referee):
    _, code = discord_link_code_create(user=player)
    answer = send.answer(command("stranger", "link", code=code.lower().replace("-", " ")))
    assert private(answer)
    assert "act as player" in answer["data"]["content"]
    assert DiscordLink.objects.get(user=player).discord_user_id == DISCORD_IDS["stranger"]
    # the same code again, from someone else: used
    again = send.answer(command("outsider", "link", code=code))
    assert "does not work" in again["data"]["content"]
    assert not DiscordLink.objects.filter(discord_user_id=DISCORD_IDS["outsider"]).exists()
    # a Discord user links again to another person: they move
    _, second = discord_link_code_create(user=referee)
    send.answer(command("stranger", "link", code=second))
    assert DiscordLink.objects.get(discord_user_id=DISCORD_IDS["stranger"]).user == referee
    assert not DiscordLink.objects.filter(user=player).exists()
    gone = send.answer(command("stranger", "unlink"))
    assert private(gone) and "acts as nobody" in gone["data"]["content"]
    assert not DiscordLink.objects.exists()


def test_an_expired_code_links_nobody(send, player, settings):
    from django.utils import timezone

    from accounts.models import DiscordLinkCode

    record, code = discord_link_code_create(user=player)
    DiscordLinkCode.objects.filter(pk=record.pk).update(expires_at=timezone.now())
    answer = send.answer(command("stranger", "link", code=code))
    assert "ten minutes" in answer["data"]["content"]
    assert not DiscordLink.objects.exists()


@pytest.mark.parametrize(
    ("sub", "options"),
    [
        ("sheet", {}),
        ("sheet", {"character": "Aldo"}),
        ("act", {"character": "Aldo", "action": "damage", "params": "amount=2"}),
        ("odds", {"character": "Aldo", "action": "damage", "params": "amount=2"}),
        ("advance", {"days": 1}),
        ("recap", {}),
        ("campaign", {"campaign": "A hit dice campaign"}),
        ("unlink", {}),
    ],
)
def test_an_unlinked_user_is_told_how_to_link_and_nothing_else(send, table, sub, options):
    before = (Resolution.objects.count(), ClockJob.objects.count())
    answer = send.answer(command("stranger", sub, **options))
    assert private(answer)
    text = content_of(answer)
    assert "not linked" in text and "/sawbones link" in text and f"{SITE}/account/" in text
    assert "Aldo" not in text and "hit dice" not in text
    assert (Resolution.objects.count(), ClockJob.objects.count()) == before


# -- binding a channel -----------------------------------------------------------------------
def test_the_referee_binds_the_channel_and_no_one_else_may(send, table, make_campaign, referee):
    other = make_campaign("old_school")
    ChannelBinding.objects.all().delete()
    for who in ("player", "outsider"):
        answer = send.answer(command(who, "campaign", campaign=str(other.pk)))
        assert private(answer)
        assert not ChannelBinding.objects.exists()
    assert (
        "referee"
        in send.answer(command("player", "campaign", campaign=str(other.pk)))["data"]["content"]
    )
    assert (
        "no campaign"
        in send.answer(command("outsider", "campaign", campaign=str(other.pk)))["data"]["content"]
    )
    answer = send.answer(command("referee", "campaign", campaign=str(other.pk)))
    assert not private(answer)  # the table sees which campaign the channel follows
    assert other.name.replace("_", "\\_") in answer["data"]["content"]  # as Markdown shows it
    binding = ChannelBinding.objects.get(channel_id=CHANNEL)
    assert (binding.campaign, binding.guild_id) == (other, GUILD)
    # by its name too, and in a direct message never
    send.answer(command("referee", "campaign", campaign=table["campaign"].name))
    assert ChannelBinding.objects.get(channel_id=CHANNEL).campaign == table["campaign"]
    dm = send.answer(command("referee", "campaign", channel=None, campaign=str(other.pk)))
    assert "server" in dm["data"]["content"]


# -- the sheet ---------------------------------------------------------------------------------
def test_sheet_shows_the_players_own_characters_to_them_alone(send, table):
    answer = send.answer(command("player", "sheet"))
    assert private(answer)
    check_message(answer["data"])
    [card] = answer["data"]["embeds"]
    assert card["title"] == "Aldo"
    fields = {f["name"]: f["value"] for f in card["fields"]}
    assert fields["Hp"] == "10" and fields["Level"] == "2"
    assert card["url"] == f"{SITE}/characters/{table['aldo'].pk}/"
    assert "Bo" not in content_of(answer)


def test_nobody_learns_of_a_character_they_may_not_see(send, table):
    bo = table["bo"]
    for who in ("player", "outsider"):
        for name in (str(bo.pk), "Bo"):
            answer = send.answer(command(who, "sheet", character=name))
            assert private(answer)
            assert "no character of that name" in answer["data"]["content"]
    outsider = send.answer(command("outsider", "sheet"))
    assert "No campaign of yours follows this channel" in outsider["data"]["content"]
    referee = send.answer(command("referee", "sheet", character="Bo"))
    assert referee["data"]["embeds"][0]["title"] == "Bo"


def test_hidden_diseases_are_the_referees_to_read(send, make_campaign, referee, player):
    campaign = make_campaign("old_school")
    link(referee, "referee")
    link(player, "player")
    member = Membership.objects.get(campaign=campaign, user=player)
    dorn = character_create(membership=member, name="Dorn", sheet={"race": "dwarf"})
    from rules.play.services import resolution_create_action

    resolution_create_action(
        character_id=dorn.pk,
        actor=referee,
        by_referee=True,
        action="contract_disease",
        params={"disease": "Green River Fever"},
    )
    seen = content_of(send.answer(command("player", "sheet", character=str(dorn.pk))))
    assert "Green River Fever" not in seen
    kept = content_of(send.answer(command("referee", "sheet", character=str(dorn.pk))))
    assert "Green River Fever (kept from the player)" in kept


# -- acting ------------------------------------------------------------------------------------
def test_a_player_acts_for_their_character_for_the_channel_to_see(send, table, scripted_dice):
    answer = send.answer(
        command(
            "player", "act", character=str(table["aldo"].pk), action="damage", params="amount=3"
        )
    )
    assert answer["type"] == 4 and not private(answer)
    check_message(answer["data"])
    [card] = answer["data"]["embeds"]
    assert card["title"] == "Aldo: Take damage"
    assert "3 damage" in card["description"]
    resolution = Resolution.objects.filter(character=table["aldo"]).latest("id")
    assert resolution.actor is not None and resolution.actor.username == "player"
    assert resolution.params == {"amount": 3}
    assert card["url"].startswith(f"{SITE}/campaigns/{table['campaign'].pk}/log/?")
    assert card["url"].endswith(f"#entry-{resolution.pk}")
    table["aldo"].refresh_from_db()
    assert table["aldo"].sheet["hp"] == 7
    # by name and with JSON params, as the referee, for the other player's character
    answer = send.answer(
        command("referee", "act", character="Bo", action="Take damage", params='{"amount": 1}')
    )
    assert answer["data"]["embeds"][0]["title"] == "Bo: Take damage"


def test_what_a_player_may_not_do_is_refused_to_them_alone(send, table):
    before = Resolution.objects.count()
    cases = [
        ("player", str(table["bo"].pk), "damage", "amount=2", "no character of that name"),
        ("outsider", str(table["aldo"].pk), "damage", "amount=2", "no character of that name"),
        (
            "player",
            str(table["aldo"].pk),
            "bypass",
            "damage=3 attacker_level=1",
            "Only the referee",
        ),
        ("player", str(table["aldo"].pk), "damage", "amount=0", "at least 1"),
        ("player", str(table["aldo"].pk), "damage", "amount", "name=value"),
        ("player", str(table["aldo"].pk), "fly", "", "no action called fly"),
    ]
    for who, character, action, params, said in cases:
        answer = send.answer(command(who, "act", character=character, action=action, params=params))
        assert private(answer), (who, action)
        assert said in answer["data"]["content"], answer["data"]["content"]
        assert "_" not in answer["data"]["content"]  # plain words: no field names
    assert Resolution.objects.count() == before


def test_hidden_rolls_never_reach_the_channel(send, make_campaign, referee, player):
    campaign = make_campaign("old_school")
    link(referee, "referee")
    ChannelBinding.objects.create(campaign=campaign, guild_id=GUILD, channel_id=CHANNEL)
    member = Membership.objects.get(campaign=campaign, user=player)
    dorn = character_create(membership=member, name="Dorn", sheet={"race": "dwarf"})
    answer = send.answer(
        command(
            "referee",
            "act",
            character=str(dorn.pk),
            action="expose_disease",
            params='disease="Green River Fever"',
        )
    )
    assert not private(answer)
    resolution = Resolution.objects.filter(character=dorn).latest("id")
    hidden = [roll for roll in resolution.rolls if roll["hidden"]]
    assert hidden  # the referee's secret save vs poison was rolled...
    text = content_of(answer)
    assert "in secret" in text
    assert hidden[0]["label"].lower() not in text.lower() and "Dice" not in text  # ...not shown
    assert "contracted" not in text.lower()


def test_odds_are_for_the_asker_alone(send, table):
    answer = send.answer(
        command("player", "odds", character="Aldo", action="damage", params="amount=12")
    )
    assert private(answer)
    text = content_of(answer)
    assert "The chances: Take damage for Aldo" in text and "%" in text
    assert Resolution.objects.filter(character=table["aldo"]).count() == 1  # rolls nothing
    refused = send.answer(command("player", "odds", character=str(table["bo"].pk), action="damage"))
    assert "no character of that name" in refused["data"]["content"]


# -- a choice answered by a button -----------------------------------------------------------
def test_a_choice_is_answered_by_its_button(send, table, scripted_dice):
    # 12 damage on 10 hp: the strength save (1 + 10) fails, the will save (20 + 10) passes:
    # the player chooses a major wound or death (rulings HD-4, G-3).
    scripted_dice([1, 20])
    answer = send.answer(
        command("player", "act", character="Aldo", action="damage", params="amount=12")
    )
    check_message(answer["data"])
    assert "Aldo has a choice to make" in answer["data"]["content"]
    assert "\n- Take a major wound (major wound mark 1; at 2 marks" in answer["data"]["content"]
    buttons = {
        b["label"]: b["custom_id"]
        for row in answer["data"]["components"]
        for b in row["components"]
    }
    wound = next(
        custom for label, custom in buttons.items() if label.startswith("Take a major wound")
    )
    death = buttons["Die outright"]
    message = {"id": "42", "embeds": answer["data"]["embeds"]}
    # the other player and an outsider may not make it
    for who in ("other_player", "outsider"):
        refused = send.answer(press(who, wound, message))
        assert private(refused) and "not yours" in refused["data"]["content"]
    # death asks first, for the asker alone
    sure = send.answer(press("player", death, message))
    assert private(sure) and "Only the referee's undo" in sure["data"]["content"]
    table["aldo"].refresh_from_db()
    assert table["aldo"].pending_choice is not None
    updated = send.answer(press("player", wound, message))
    assert updated["type"] == 7
    check_message(updated["data"])
    assert updated["data"]["components"] == []
    assert len(updated["data"]["embeds"]) == 2  # what asked it, and what was chosen
    assert updated["data"]["embeds"][1]["title"] == "Aldo: Decision"
    table["aldo"].refresh_from_db()
    assert table["aldo"].pending_choice is None
    chosen = Resolution.objects.filter(character=table["aldo"]).latest("id")
    assert chosen.kind == "choice" and chosen.params["option"] == "major_wound"
    late = send.answer(press("player", death, message))  # the old button
    assert "made already" in late["data"]["content"]


# -- the clock ---------------------------------------------------------------------------------
def test_advance_is_deferred_then_its_report_edits_the_answer(send, table, receiver):
    with_id = command("referee", "advance", days=2, hours=3)
    response = send.post(with_id)
    assert response.json() == {"type": 5}
    table["campaign"].refresh_from_db()
    assert table["campaign"].clock == 2 * 24 * 60 + 3 * 60
    [edit] = receiver.received
    assert edit["method"] == "PATCH"
    assert (
        edit["path"] == f"/api/v10/webhooks/{APPLICATION_ID}/{with_id['token']}/messages/@original"
    )
    check_message(edit["body"])
    assert "What the clock did: Day 1, 00:00 to Day 3, 03:00" in content_of({"data": edit["body"]})


def test_only_the_referee_advances(send, table):
    for who, said in (
        ("player", "Only the campaign's referee"),
        ("outsider", "No campaign of yours"),
    ):
        answer = send.answer(command(who, "advance", days=1))
        assert private(answer) and said in answer["data"]["content"]
    nothing = send.answer(command("referee", "advance"))
    assert "at least one minute" in nothing["data"]["content"]
    campaign_archive(campaign_id=table["campaign"].pk)
    archived = send.answer(command("referee", "advance", days=1))
    assert private(archived) and "is archived" in archived["data"]["content"]
    assert not ClockJob.objects.exists()


def test_a_replayed_interaction_acts_once_and_answers_as_the_first_time(send, table, receiver):
    act = command("player", "act", character="Aldo", action="damage", params="amount=2")
    first = send.answer(act)
    assert send.answer(act) == first
    assert Resolution.objects.filter(character=table["aldo"], kind="action").count() == 1
    advance = command("referee", "advance", days=1)
    assert send.answer(advance) == send.answer(advance) == {"type": 5}
    assert ClockJob.objects.count() == 1
    assert len(receiver.received) == 1  # one follow-up
    table["campaign"].refresh_from_db()
    assert table["campaign"].clock == 24 * 60


def test_recap_tells_the_asker_what_they_may_see(send, table, scripted_dice):
    send.answer(command("player", "act", character="Aldo", action="damage", params="amount=2"))
    send.answer(command("other_player", "act", character="Bo", action="damage", params="amount=1"))
    send.answer(command("referee", "advance", days=1))
    mine = send.answer(command("player", "recap", days=3))
    assert private(mine)
    check_message(mine["data"])
    text = content_of(mine)
    assert "Recap: A hit_dice campaign" in text and "Aldo" in text and "Bo" not in text
    everyone = content_of(send.answer(command("referee", "recap")))
    assert "Aldo" in everyone and "Bo" in everyone
    outsider = send.answer(command("outsider", "recap"))
    assert "No campaign of yours" in outsider["data"]["content"]


# -- autocomplete --------------------------------------------------------------------------------
def choices(send, interaction):
    answer = send.answer(interaction)
    assert answer["type"] == 8
    return {c["name"]: c["value"] for c in answer["data"]["choices"]}


def test_autocomplete_offers_what_the_person_may_see(send, table, make_campaign, referee):
    aldo, bo = table["aldo"], table["bo"]
    assert choices(send, autocomplete("player", "sheet", "character")) == {"Aldo": str(aldo.pk)}
    assert choices(send, autocomplete("referee", "act", "character", "b")) == {"Bo": str(bo.pk)}
    assert choices(send, autocomplete("outsider", "sheet", "character")) == {}
    assert choices(send, autocomplete("stranger", "sheet", "character")) == {}
    player_actions = choices(send, autocomplete("player", "act", "action", character=str(aldo.pk)))
    assert player_actions["Take damage"] == "damage"
    assert "bypass" not in player_actions.values()  # the referee's
    referee_actions = choices(send, autocomplete("referee", "act", "action", character="Aldo"))
    assert referee_actions["Effect bypasses hit points"] == "bypass"
    other = make_campaign("old_school")
    campaigns = choices(send, autocomplete("referee", "campaign", "campaign"))
    assert campaigns == {
        table["campaign"].name: str(table["campaign"].pk),
        other.name: str(other.pk),
    }
    assert choices(send, autocomplete("player", "campaign", "campaign")) == {}


def test_odds_as_the_referee_and_an_outsider(send, table):
    referee = send.answer(
        command(
            "referee", "odds", character="Bo", action="bypass", params="damage=3 attacker_level=2"
        )
    )
    assert private(referee) and "The chances: Effect bypasses hit points for Bo" in content_of(
        referee
    )
    outsider = send.answer(
        command("outsider", "odds", character=str(table["aldo"].pk), action="damage")
    )
    assert private(outsider) and "no character of that name" in outsider["data"]["content"]


# -- the asker's language (issue 37) ----------------------------------------------------------
def test_answers_follow_the_interactions_locale(send, table, scripted_dice):
    """Discord says the person's language (``locale``: "de", "es-ES"...): the answer, the
    action's card and the engine's summary in it; a language this site does not speak,
    English."""
    german = command("stranger", "sheet")
    german["locale"] = "de"
    text = content_of(send.answer(german))
    assert "verknüpft" in text and "/sawbones link" in text
    spanish = command("stranger", "sheet")
    spanish["locale"] = "es-ES"
    assert "vinculado" in content_of(send.answer(spanish))
    french = command("stranger", "sheet")
    french["locale"] = "fr"
    assert "not linked" in content_of(send.answer(french))
    act = command(
        "player", "act", character=str(table["aldo"].pk), action="damage", params="amount=3"
    )
    act["locale"] = "de"
    [card] = send.answer(act)["data"]["embeds"]
    assert card["title"] == "Aldo: Schaden nehmen"
    resolution = Resolution.objects.filter(character=table["aldo"]).latest("id")
    assert resolution.summary.startswith("Aldo: ")  # the log keeps its English
    assert "damage" in resolution.summary and "damage" not in card["description"]
