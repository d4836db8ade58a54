"""The editing pages of issue 13: campaign settings (name, options, actions move the
clock, players, invite links, deletion), leaving, and a character's edit page."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Campaign, Invite, Membership
from characters.models import Character
from rules.log.models import Resolution
from rules.play.services import character_create


@pytest.fixture
def aldo(campaign, player):
    return character_create(
        membership=Membership.objects.get(campaign=campaign, user=player),
        name="Aldo",
        sheet={"level": 2, "hit_dice": 2, "hp": 10},
    )


def test_settings_rename_options_and_the_clock_option(campaign, referee, web):
    client = web(referee)
    url = f"/campaigns/{campaign.pk}/settings/"
    page = client.get(url)
    assert page.status_code == 200 and "Actions move the clock" in page.content.decode()
    response = client.post(
        url, {"form": "settings", "name": "The Long March", "opt.bypass_hp_per_level": "4"}
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.name == "The Long March"
    assert campaign.actions_move_clock is False  # the box was left unticked
    assert campaign.options["bypass_hp_per_level"] == 4


def test_invites_made_listed_revoked_on_the_settings_page(campaign, referee, web):
    client = web(referee)
    url = f"/campaigns/{campaign.pk}/settings/"
    client.post(url, {"form": "invite", "expires_in_hours": "5", "single_use": "on"})
    invite = Invite.objects.get(campaign=campaign)
    assert invite.single_use and invite.expires_at is not None
    assert invite.code in client.get(url).content.decode()
    client.post(url, {"form": "revoke", "invite": invite.pk})
    invite.refresh_from_db()
    assert invite.revoked_at is not None
    assert "was revoked" in client.get(url).content.decode()
    again = client.post(url, {"form": "revoke", "invite": invite.pk})
    assert again.status_code == 409
    bad = client.post(url, {"form": "invite", "expires_in_hours": "0"})
    assert bad.status_code == 400


def test_remove_a_player_leave_and_delete(campaign, aldo, referee, player, other_player, web):
    client = web(referee)
    url = f"/campaigns/{campaign.pk}/settings/"
    client.post(url, {"form": "remove", "user": player.pk})
    assert not Membership.objects.filter(campaign=campaign, user=player).exists()
    assert Character.objects.get(pk=aldo.pk).owner == referee
    left = web(other_player).post(f"/campaigns/{campaign.pk}/leave/")
    assert left.status_code == 302
    assert not Membership.objects.filter(campaign=campaign, user=other_player).exists()
    assert web(player).get(url).status_code == 404
    wrong = client.post(url, {"form": "delete", "confirm": "no"})
    assert wrong.status_code == 400 and Campaign.objects.filter(pk=campaign.pk).exists()
    client.post(url, {"form": "delete", "confirm": campaign.name})
    assert not Campaign.objects.filter(pk=campaign.pk).exists()


def test_players_may_not_open_the_settings(campaign, player, web):
    assert web(player).get(f"/campaigns/{campaign.pk}/settings/").status_code == 403


def test_the_character_edit_page(aldo, referee, player, other_player, web):
    url = f"/characters/{aldo.pk}/edit/"
    owner = web(player)
    assert "Level up" not in owner.get(url).content.decode()  # the referee's
    owner.post(url, {"form": "rename", "name": "Aldo the Bold"})
    aldo.refresh_from_db()
    assert aldo.name == "Aldo the Bold"
    assert owner.post(url, {"form": "level_up"}).status_code == 403
    referee_client = web(referee)
    referee_client.post(url, {"form": "level_up"})
    referee_client.post(url, {"form": "correct", "field": "hp", "value": "8", "reason": "typo"})
    bad = referee_client.post(
        url, {"form": "correct", "field": "hp", "value": "-1", "reason": "typo"}
    )
    assert bad.status_code == 400
    aldo.refresh_from_db()
    assert (aldo.sheet["level"], aldo.sheet["hit_dice"], aldo.sheet["hp"]) == (3, 3, 8)
    owner.post(url, {"form": "retire", "retired": "yes"})
    aldo.refresh_from_db()
    assert aldo.retired_at is not None
    actions = [r.action for r in Resolution.objects.filter(character=aldo, kind="edit")]
    assert sorted(actions) == ["correct", "level_up", "rename", "retire"]
    assert web(other_player).get(url).status_code == 404
    referee_client.post(url, {"form": "delete", "confirm": "Aldo the Bold"})
    assert not Character.objects.filter(pk=aldo.pk).exists()


def test_a_new_link_on_the_dashboard_replaces_the_old_one(campaign, referee, make_user, web):
    client = web(referee)
    client.post(f"/campaigns/{campaign.pk}/invites/")
    old = Invite.objects.get(campaign=campaign)
    # only when the referee asks (issue 24: a new link never revokes the others unasked)
    client.post(f"/campaigns/{campaign.pk}/invites/", {"revoke_others": "on"})
    old.refresh_from_db()
    assert old.revoked_at is not None  # the replaced link lets nobody in (issue 13)
    newcomer = web(make_user("newcomer"))
    newcomer.post(f"/join/{old.code}/")
    assert not Membership.objects.filter(campaign=campaign, user__username="newcomer").exists()
    fresh = Invite.objects.get(campaign=campaign, revoked_at__isnull=True)
    newcomer.post(f"/join/{fresh.code}/")
    assert Membership.objects.filter(campaign=campaign, user__username="newcomer").exists()


def test_the_tables_page_checks_previews_saves_and_resets(make_campaign, referee, player, web):
    import json

    from rules.log.models import CampaignTable

    school = make_campaign("old_school")
    client = web(referee)
    page = client.get(f"/campaigns/{school.pk}/tables/diseases/")
    assert page.status_code == 200 and "Green River Fever" in page.content.decode()
    pox = {
        "Slow Pox": {
            "incubation_minutes": 0,
            "interval_minutes": 300,
            "infection_minutes": 1000,
            "effect": {"type": "none"},
        }
    }
    url = f"/campaigns/{school.pk}/tables/diseases/"
    preview = client.post(url, {"do": "preview", "data": json.dumps(pox)})
    html = preview.content.decode()
    assert preview.status_code == 200 and "Preview: checked, not saved yet" in html
    assert "Slow Pox" in html and not CampaignTable.objects.filter(campaign=school).exists()
    bad = client.post(url, {"do": "save", "data": json.dumps({"Pox": {"interval_minutes": 0}})})
    assert bad.status_code == 400 and 'role="alert"' in bad.content.decode()
    broken = client.post(url, {"do": "save", "data": "{not json"})
    assert broken.status_code == 400 and "not written correctly" in broken.content.decode()
    assert not CampaignTable.objects.filter(campaign=school).exists()
    client.post(url, {"do": "save", "data": json.dumps(pox)})
    assert CampaignTable.objects.get(campaign=school, key="diseases").data == pox
    client.post(url, {"do": "reset"})
    assert not CampaignTable.objects.filter(campaign=school).exists()
    assert web(player).get(url).status_code == 403
    assert client.get(f"/campaigns/{school.pk}/tables/nonsense/").status_code == 404


def test_import_a_downloaded_campaign_on_its_page(campaign, aldo, referee, outsider, web):
    import json

    from django.core.files.uploadedfile import SimpleUploadedFile

    download = web(referee).get(f"/api/v1/campaigns/{campaign.pk}/export/")
    assert download.status_code == 200
    upload = SimpleUploadedFile("campaign.json", download.content, "application/json")
    response = web(outsider).post("/campaigns/import/", {"export": upload})
    assert response.status_code == 302
    copy = Campaign.objects.exclude(pk=campaign.pk).get()
    assert copy.name == campaign.name
    assert Character.objects.get(campaign=copy).sheet == Character.objects.get(pk=aldo.pk).sheet
    junk = SimpleUploadedFile("x.json", json.dumps({"nope": 1}).encode(), "application/json")
    bad = web(outsider).post("/campaigns/import/", {"export": junk})
    assert (
        bad.status_code == 400 and "not a campaign downloaded from Sawbones" in bad.content.decode()
    )
    assert web(outsider).post("/campaigns/import/", {}).status_code == 400


def test_every_table_round_trips_through_the_row_editor(make_campaign, referee, web):
    """Issue 29: each table of every ruleset, as the row editor shows it and posts it
    back unchanged, is the same table, and the page accepts it."""
    from django.http import QueryDict

    from rules.engine.registry import get_ruleset, ruleset_keys
    from web.table_editor import posted_rows, rows_of, shape_of, table_data

    for key in ruleset_keys():
        ruleset = get_ruleset(key)
        for table_key, default in ruleset.tables.items():
            shape = shape_of(ruleset.table_schema(table_key))
            assert shape is not None, (key, table_key)
            heads, rows = rows_of(shape, default)
            post = QueryDict(mutable=True)
            post["rows"] = str(len(rows))
            for name, value in heads.items():
                post[f"head-{name}"] = value
            for index, row in enumerate(rows):
                for name, value in row.items():
                    post[f"row-{index}-{name}"] = value
            assert table_data(shape, *posted_rows(shape, post)) == default, (key, table_key)
            if table_key == "critical_injuries":
                campaign = make_campaign(key)
                url = f"/campaigns/{campaign.pk}/tables/{table_key}/"
                answer = web(referee).post(url, {**post.dict(), "editor": "rows", "do": "preview"})
                assert answer.status_code == 200
                assert "Preview: checked, not saved yet" in answer.content.decode()


def test_the_referee_chooses_who_plays_a_character_on_its_edit_page(
    campaign, aldo, referee, player, outsider, make_user, web
):
    """Issue 29: a "Played by" list of the campaign's members, the referee's only; the
    change said in words, acted on once however often the same form is sent."""
    from campaigns.models import Role
    from core.middleware import FORM_KEY_FIELD

    alice = make_user("alice")
    Membership.objects.create(campaign=campaign, user=alice, role=Role.PLAYER)

    url = f"/characters/{aldo.pk}/edit/"
    referee_client = web(referee)
    page = referee_client.get(url).content.decode()
    assert 'id="edit-owner"' in page and "Played by" in page
    assert f'<option value="{alice.pk}">alice</option>' in page
    assert f'<option value="{referee.pk}">referee (referee)</option>' in page
    assert f'<option value="{player.pk}" selected>player</option>' in page
    assert 'id="edit-owner"' not in web(player).get(url).content.decode()
    form = {
        "form": "owner",
        "owner": str(alice.pk),
        "expected_version": str(aldo.version),
        FORM_KEY_FIELD: "played-by-1",
    }
    first = referee_client.post(url, form, follow=True)
    assert "Aldo is now played by alice." in first.content.decode()
    again = referee_client.post(url, form)  # a double click: the first answer again
    assert again.status_code == 302
    assert Resolution.objects.filter(character=aldo, action="owner").count() == 1
    aldo.refresh_from_db()
    assert aldo.owner_id == alice.pk
    # a stale page, someone not in the campaign, nobody: said in words, nothing changes
    for posted, said in (
        ({"owner": str(player.pk), "expected_version": "1"}, "Aldo has changed since"),
        ({"owner": str(outsider.pk)}, "That person is not in A hit dice campaign: invite"),
        ({"owner": "   "}, "Choose who plays Aldo."),
    ):
        answer = referee_client.post(url, {"form": "owner", **posted})
        assert answer.status_code in {400, 409}
        assert said in answer.content.decode()
    aldo.refresh_from_db()
    assert aldo.owner_id == alice.pk
    # the player who plays Aldo now may not give him away
    assert web(alice).post(url, {"form": "owner", "owner": "1"}).status_code == 403


def test_played_by_names_the_player_as_their_name_is_written(campaign, aldo, referee, web):
    """A username with an underscore stays as it is in the notice (the plain-words filter
    turns snake_case field names into words, never a person's name)."""
    from core.middleware import FORM_KEY_FIELD

    form = {"form": "owner", "owner": "other_player", FORM_KEY_FIELD: "played-by-2"}
    page = web(referee).post(f"/characters/{aldo.pk}/edit/", form, follow=True).content.decode()
    assert "Aldo is now played by other_player." in page
    assert 'class="flash-success"' in page


def test_a_correction_the_rules_refuse_is_said_in_plain_words_and_logs_nothing(aldo, referee, web):
    """Issue 34: "MARKS 7/2" (more major wound marks than the level, ruling HD-P15) and a
    correction to the value the field has already are refused in words on the edit page,
    and the log gains no entry ("corrected nothing" was logged before)."""
    import re

    from web.plain import RULING_ID

    client = web(referee)
    url = f"/characters/{aldo.pk}/edit/"
    entries = Resolution.objects.filter(character=aldo).count()
    for field, value, said in (
        ("major_wound_marks", "7", "7 major wound marks is more than the level, 2"),
        ("hp", "10", "Nothing to correct: hp is 10 already."),
    ):
        page = client.post(url, {"form": "correct", "field": field, "value": value, "reason": "x"})
        assert page.status_code == 400, field
        text = " ".join(page.content.decode().split())
        (error,) = re.findall(r'<p class="form-error" role="alert">([^<]*)</p>', text)
        assert said in error, error
        assert not re.search(r"\b[a-z]+_[a-z_]+\b", error), error  # no field's key
        assert not RULING_ID.search(error), error
    assert Resolution.objects.filter(character=aldo).count() == entries
    aldo.refresh_from_db()
    assert (aldo.sheet["major_wound_marks"], aldo.sheet["hp"]) == (0, 10)


@pytest.mark.parametrize("hours", ["-1", "0", "99999999999", "8761", "1e9", "lots"])
def test_the_invite_expiry_says_its_range(campaign, referee, web, hours):
    """Issue 34: -1 and 99999999999 were refused alike, without the range."""
    page = web(referee).post(
        f"/campaigns/{campaign.pk}/settings/", {"form": "invite", "expires_in_hours": hours}
    )
    assert page.status_code == 400
    assert "a whole number of hours from 1 to 8760 (a year)" in page.content.decode()
    assert not Invite.objects.filter(campaign=campaign).exists()


def test_the_import_refuses_two_players_mapped_to_one_and_warns_of_the_referee(
    campaign, aldo, referee, other_player, outsider, web
):
    """Issue 34: two of the file's players mapped to one account are refused (their
    characters would merge under one player); a player mapped to the importing referee
    is allowed, with a word of what it means."""
    import json

    from django.core.files.uploadedfile import SimpleUploadedFile

    character_create(
        membership=Membership.objects.get(campaign=campaign, user=other_player),
        name="Bea",
        sheet={"hp": 8},
    )
    export = web(referee).get(f"/api/v1/campaigns/{campaign.pk}/export/").content

    def imported(players: str) -> Any:
        upload = SimpleUploadedFile("campaign.json", export, "application/json")
        return web(referee).post(
            "/campaigns/import/", {"export": upload, "players": players}, follow=True
        )

    count = Campaign.objects.count()
    refused = imported("player = outsider\nother_player = outsider")
    assert refused.status_code == 400
    said = " ".join(refused.content.decode().split())
    assert (
        "other_player and player would both be played by outsider here: each player of the "
        "file plays their own characters, so map each to a person of their own. Nothing was "
        "imported."
    ) in said
    assert Campaign.objects.count() == count
    assert json.loads(export)["characters"]  # the file was fine
    warned = imported("player = referee\nother_player = outsider")
    said = " ".join(warned.content.decode().split())
    assert "You mapped player to yourself: the characters player played are yours" in said
    # (issue 36: the other is invited, not joined)
    assert "outsider is invited to play the characters the file says they played" in said
    assert Campaign.objects.count() == count + 1
