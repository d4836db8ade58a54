"""Fair dice (docs/dice.md): a published commitment, seeds revealed by rotation, and a
standalone script that re-rolls every die of an exported campaign.

These tests use the campaign's real HMAC dice (no scripted dice): the point is that the
recorded dice are exactly what the committed seed gives.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, reverse

from campaigns.models import Campaign, Membership
from rules.log.models import Resolution
from rules.log.selectors import verify_resolution_rolls
from rules.play.services import character_create, resolution_create_action

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "verify_dice.py"


def _play(character, user, *, rounds: int = 3) -> None:
    for _ in range(rounds):
        for action, params in (
            ("long_rest", {}),
            ("short_rest", {"reroll": True}),
            ("long_rest", {}),
        ):
            resolution_create_action(
                character_id=character.pk,
                actor=user,
                by_referee=True,
                action=action,
                params=params,
            )


@pytest.fixture
def played(make_campaign, referee, player):
    campaign = make_campaign("hit_dice")
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(
        membership=membership, name="Aldo", sheet={"level": 3, "hit_dice": 3, "hp": 9}
    )
    _play(aldo, referee)
    campaign.refresh_from_db()
    return campaign, aldo


def test_the_commitment_is_the_sha256_of_the_seed_revealed_later(
    played, client_for, referee, player
):
    campaign, _ = played
    seen = client_for(player).get(f"/api/v1/campaigns/{campaign.pk}/").json()["dice_commitment"]
    assert len(seen) == 64 and seen == seen.lower()

    rotated = client_for(referee).post(f"/api/v1/campaigns/{campaign.pk}/dice/rotate/")

    assert rotated.status_code == 201
    revealed = rotated.json()["revealed"]
    assert revealed["commitment"] == seen
    assert hashlib.sha256(bytes.fromhex(revealed["seed"])).hexdigest() == seen
    assert revealed["seed"] == revealed["seed"].lower() and len(revealed["seed"]) == 64
    assert revealed["first_counter"] == 0
    assert revealed["last_counter"] == campaign.dice_counter - 1
    assert rotated.json()["dice_commitment"] != seen


def test_rotation_keeps_counting_and_every_resolution_still_verifies(played, referee, player):
    campaign, aldo = played
    counter_before = campaign.dice_counter
    client = Client()
    client.force_login(referee)
    client.post(f"/api/v1/campaigns/{campaign.pk}/dice/rotate/")
    _play(aldo, referee, rounds=2)
    campaign.refresh_from_db()

    assert campaign.dice_seed_first_counter == counter_before
    assert campaign.dice_counter > counter_before
    periods = client.get(f"/api/v1/campaigns/{campaign.pk}/dice/seeds/").json()
    assert [(p["first_counter"], p["last_counter"]) for p in periods] == [
        (0, counter_before - 1),
        (counter_before, campaign.dice_counter - 1),
    ]
    assert periods[0]["seed"] is not None and periods[1]["seed"] is None
    rolled = Resolution.objects.filter(character=aldo).exclude(rolls=[])
    assert rolled.filter(dice_counter_start__lt=counter_before).exists()
    assert rolled.filter(dice_counter_start__gte=counter_before).exists()
    assert all(verify_resolution_rolls(r, campaign) for r in rolled)


def test_two_rotations_in_a_row_reveal_an_unused_seed(played, client_for, referee):
    campaign, _ = played
    client = client_for(referee)
    client.post(f"/api/v1/campaigns/{campaign.pk}/dice/rotate/")
    second = client.post(f"/api/v1/campaigns/{campaign.pk}/dice/rotate/").json()["revealed"]
    assert second["last_counter"] is None
    assert second["first_counter"] == campaign.dice_counter
    periods = client.get(f"/api/v1/campaigns/{campaign.pk}/dice/seeds/").json()
    assert len(periods) == 3


def _run_script(tmp_path: Path, export: dict) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    # The script stands alone: run it with no project on its path, from elsewhere.
    return subprocess.run(
        [sys.executable, "-I", str(SCRIPT), str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )


def test_the_standalone_script_verifies_a_real_exported_campaign(
    played, client_for, referee, tmp_path
):
    campaign, aldo = played
    client = client_for(referee)
    client.post(f"/api/v1/campaigns/{campaign.pk}/dice/rotate/")
    _play(aldo, referee, rounds=1)  # dice of the new period: not checkable yet
    export = client.get(f"/api/v1/campaigns/{campaign.pk}/dice/export/").json()
    first_period_end = export["seeds"][0]["last_counter"]
    rolled_in_revealed = sum(
        1
        for r in export["resolutions"]
        if r["dice_counter_end"] > r["dice_counter_start"]
        and r["dice_counter_start"] <= first_period_end
    )

    result = _run_script(tmp_path, export)

    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{rolled_in_revealed} resolutions checked" in result.stdout
    assert "3 with a seed not yet revealed" in result.stdout
    assert rolled_in_revealed == 9


def test_the_standalone_script_catches_one_altered_die(played, client_for, referee, tmp_path):
    campaign, _ = played
    client = client_for(referee)
    client.post(f"/api/v1/campaigns/{campaign.pk}/dice/rotate/")
    export = client.get(f"/api/v1/campaigns/{campaign.pk}/dice/export/").json()
    victim = next(r for r in export["resolutions"] if r["rolls"])
    die = victim["rolls"][0]["dice"][0]
    victim["rolls"][0]["dice"][0] = die % 6 + 1  # another face of the same d6

    result = _run_script(tmp_path, export)

    assert result.returncode == 1
    assert f"MISMATCH: resolution {victim['id']}" in result.stdout


def test_the_script_catches_a_seed_that_is_not_the_committed_one(
    played, client_for, referee, tmp_path
):
    campaign, _ = played
    client = client_for(referee)
    client.post(f"/api/v1/campaigns/{campaign.pk}/dice/rotate/")
    export = client.get(f"/api/v1/campaigns/{campaign.pk}/dice/export/").json()
    export["seeds"][0]["seed"] = "00" * 32

    result = _run_script(tmp_path, export)

    assert result.returncode == 1
    assert "does not match its commitment" in result.stdout


def test_a_player_export_withholds_hidden_rolls_and_shows_the_gap(
    make_campaign, player, client_for
):
    campaign = make_campaign("deckahedron")
    membership = Membership.objects.get(campaign=campaign, user=player)
    character = character_create(membership=membership, name="Dora", sheet={})
    export = client_for(player).get(f"/api/v1/campaigns/{campaign.pk}/dice/export/").json()

    created = next(r for r in export["resolutions"] if r["character"] == character.pk)
    # The new deck's shuffle is hidden (G-4): its draws show, its faces do not.
    assert created["withheld_rolls"] == 1
    assert created["rolls"] == []
    assert created["dice_counter_end"] - created["dice_counter_start"] >= 19


def test_a_player_export_lists_only_their_own_characters(played, client_for, other_player):
    campaign, aldo = played
    export = client_for(other_player).get(f"/api/v1/campaigns/{campaign.pk}/dice/export/").json()
    assert all(r["character"] != aldo.pk for r in export["resolutions"])


def test_the_seed_in_use_is_never_shown_before_it_is_revealed(played, referee, player, caplog):
    campaign, aldo = played
    caplog.set_level(logging.DEBUG)
    secret = Campaign.objects.get(pk=campaign.pk).dice_seed
    resolution = Resolution.objects.filter(character=aldo).exclude(rolls=[]).get(version=2)
    seen = []
    for user in (referee, player):
        client = Client()
        client.force_login(user)
        for url in (
            f"/api/v1/campaigns/{campaign.pk}/",
            f"/api/v1/campaigns/{campaign.pk}/dice/seeds/",
            f"/api/v1/campaigns/{campaign.pk}/dice/export/",
            f"/api/v1/characters/{aldo.pk}/",
            f"/api/v1/characters/{aldo.pk}/resolutions/",
            "/api/v1/campaigns/",
            reverse("campaign", args=[campaign.pk]),
            reverse("character", args=[aldo.pk]),
            reverse("resolution-dice", args=[aldo.pk, resolution.pk]),
        ):
            response = client.get(url)
            assert response.status_code == 200, url
            seen.append(response.content.decode())
    _play(aldo, referee, rounds=1)

    assert all(secret not in text for text in seen)
    assert secret not in caplog.text

    # Once rotated out, it is public; the new one is not.
    client = Client()
    client.force_login(referee)
    client.post(reverse("dice-rotate", args=[campaign.pk]))
    new_secret = Campaign.objects.get(pk=campaign.pk).dice_seed
    client.force_login(player)
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert secret in page
    assert new_secret not in page


def test_the_dice_check_page_says_whether_the_dice_match(played, player):
    campaign, aldo = played
    resolution = Resolution.objects.filter(character=aldo).exclude(rolls=[]).get(version=2)
    client = Client()
    client.force_login(player)
    url = reverse("resolution-dice", args=[aldo.pk, resolution.pk])

    page = client.get(url).content.decode()
    assert "Every die matches" in page
    assert "still in use, so it stays secret" in page

    altered = list(resolution.rolls)
    altered[0] = {**altered[0], "dice": [d % 6 + 1 for d in altered[0]["dice"]]}
    Resolution.objects.filter(pk=resolution.pk).update(rolls=altered)
    assert "do not match" in client.get(url).content.decode()


def test_the_dice_check_page_is_404_for_other_players(played, other_player, outsider):
    campaign, aldo = played
    resolution = Resolution.objects.filter(character=aldo).earliest("id")
    for user in (other_player, outsider):
        client = Client()
        client.force_login(user)
        url = reverse("resolution-dice", args=[aldo.pk, resolution.pk])
        assert client.get(url).status_code == 404


def test_only_the_referee_rotates_from_the_page(played, player):
    campaign, _ = played
    seed = campaign.dice_seed
    client = Client()
    client.force_login(player)
    assert client.post(reverse("dice-rotate", args=[campaign.pk])).status_code == 403
    assert Campaign.objects.get(pk=campaign.pk).dice_seed == seed


def _forms_of(secret: str) -> list[str]:
    """The seed as text in any form a leak could take: hex either case, base64, bytes."""
    raw = bytes.fromhex(secret)
    return [
        secret,
        secret.upper(),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        raw.decode("latin-1"),
    ]


def _every_get_url(campaign, aldo, resolution, job, webhook) -> list[str]:
    """Every page and API endpoint of config/web_urls.py and api_urls.py that takes the
    ids we have: a new one is walked without being listed here."""
    from config import api_urls, web_urls

    ids = {
        "campaign_id": campaign.pk,
        "character_id": aldo.pk,
        "resolution_id": resolution.pk,
        "job_id": job.pk,
        "webhook_id": webhook.pk,
        "key": "diseases" if campaign.ruleset == "old_school" else "critical_injuries",
        "action": "long_rest",
    }
    urls = []
    for module in (api_urls, web_urls):
        for pattern in module.urlpatterns:
            if not isinstance(pattern, URLPattern) or not pattern.name:
                continue  # an include(): its own pages are not the campaign's
            names = set(pattern.pattern.converters)
            if names <= set(ids):
                urls.append(reverse(pattern.name, kwargs={n: ids[n] for n in names}))
    return urls


def test_no_form_of_the_seed_in_use_shows_anywhere_before_it_is_revealed(
    played, referee, player, caplog
):
    """Every GET of every page and endpoint, for the referee and a player, the webhook
    bodies, the resolution log and the server's log: none holds the seed in use in any
    form, until archiving the campaign reveals it (and then only that one)."""
    from rules.clock.models import ClockJob, ClockJobState
    from rules.clock.services import clock_advance_start
    from webhooks.models import WebhookEvent
    from webhooks.services import webhook_create

    campaign, aldo = played
    caplog.set_level(logging.DEBUG)
    webhook = webhook_create(campaign=campaign, url="https://example.org/hook", user=referee)
    _play(aldo, referee, rounds=1)  # with a webhook listening: its bodies are checked too
    job = clock_advance_start(campaign_id=campaign.pk, minutes=10, requested_by=referee)
    secret = Campaign.objects.get(pk=campaign.pk).dice_seed
    resolution = Resolution.objects.filter(character=aldo).exclude(rolls=[]).latest("id")
    urls = _every_get_url(campaign, aldo, resolution, job, webhook)
    assert len(urls) > 20
    seen = []
    for user in (referee, player):
        client = Client()
        client.force_login(user)
        for url in urls:
            seen.append(f"{url}: {client.get(url).content.decode(errors='replace')}")
    seen += [event.body for event in WebhookEvent.objects.filter(campaign=campaign)]
    seen += [
        json.dumps([r.summary, r.rolls, r.outcome, r.params, r.sheet_after])
        for r in Resolution.objects.filter(campaign=campaign)
    ]
    seen.append(caplog.text)

    for form in _forms_of(secret):
        assert not [text[:80] for text in seen if form in text]

    # The clock's jobs never ran (tests commit nothing); archiving waits for running ones.
    ClockJob.objects.filter(campaign=campaign).update(state=ClockJobState.FAILED)
    client = Client()
    client.force_login(referee)
    client.post(reverse("campaign-archive", args=[campaign.pk]))
    new_secret = Campaign.objects.get(pk=campaign.pk).dice_seed
    client.force_login(player)
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    seeds = client.get(f"/api/v1/campaigns/{campaign.pk}/dice/seeds/").content.decode()
    assert secret in page and secret in seeds
    assert new_secret not in page and new_secret not in seeds


OLD_ROW_FIELDS = ("label", "expression", "dice", "kept", "total", "hidden")


def test_rows_logged_before_rolls_carried_their_sizes_still_verify_and_read(
    played, client_for, referee, tmp_path
):
    """Old rows have no ``kind`` nor ``sizes``: their sizes come from the expression."""
    campaign, aldo = played
    for resolution in Resolution.objects.filter(character=aldo):
        resolution.rolls = [{k: roll[k] for k in OLD_ROW_FIELDS} for roll in resolution.rolls]
        resolution.save(update_fields=["rolls"])
    old = Resolution.objects.filter(character=aldo).exclude(rolls=[]).first()
    assert old is not None and verify_resolution_rolls(old, campaign)
    client = client_for(referee)
    shown = client.get(f"/api/v1/characters/{aldo.pk}/resolutions/").json()["results"]
    assert {(r["kind"], tuple(r["sizes"])) for s in shown for r in s["rolls"]} <= {
        ("dice", (6,) * n) for n in range(1, 10)
    }
    client.post(f"/api/v1/campaigns/{campaign.pk}/dice/rotate/")
    export = client.get(f"/api/v1/campaigns/{campaign.pk}/dice/export/").json()
    for resolution in export["resolutions"]:  # an export saved before sizes were listed
        for roll in resolution["rolls"]:
            del roll["sizes"]

    result = _run_script(tmp_path, export)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "9 resolutions checked" in result.stdout
