"""A revealed dice seed predicts nothing still hidden (docs/dice.md, issue 26).

A player who follows docs/dice.md recomputes their Deckahedron character's hidden
``shuffle(20)`` from the revealed seed and the creation's counters. The rotation shuffles
every deck in play again from the new seed (project ruling DK-P13), so that recomputation
no longer tells the next flips; the new shuffle is checked once the new seed is revealed.
A hidden roll whose result is still secret holds the referee's rotation back (G-4).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.engine.dice import Dice, HmacGenerator
from rules.engine.rulesets.deckahedron import DECK_CARD_IDS
from rules.log.models import Resolution, ResolutionKind
from rules.log.selectors import verify_resolution_rolls
from rules.play.services import character_create

pytestmark = pytest.mark.django_db

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "verify_dice.py"


def _verify_script():
    spec = importlib.util.spec_from_file_location("verify_dice", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rotate(client, campaign):
    return client.post(f"/api/v1/campaigns/{campaign.pk}/dice/rotate/")


def predicted_deck(seed_hex: str, counter: int) -> list[str]:
    """What docs/dice.md lets anyone compute: the creation's shuffle from its counters."""
    dice = Dice(HmacGenerator(bytes.fromhex(seed_hex), counter))
    return dice.shuffle(DECK_CARD_IDS, "recomputed")


def flip(client, character, count):
    response = client.post(
        f"/api/v1/characters/{character.pk}/actions/",
        {"action": "flip", "params": {"attribute": "strength", "count": count}},
        format="json",
    )
    assert response.status_code == 201, response.content
    return [card["card"] for card in response.json()["outcome"]["cards"]]


def test_after_a_rotation_the_revealed_seed_does_not_predict_the_next_flips(
    make_campaign, player, referee, client_for
):
    campaign = make_campaign("deckahedron")
    membership = Membership.objects.get(campaign=campaign, user=player)
    dora = character_create(membership=membership, name="Dora", sheet={})
    created = Resolution.objects.get(character=dora, kind=ResolutionKind.CREATE)

    response = rotate(client_for(referee), campaign)
    assert response.status_code == 201
    seed = response.json()["revealed"]["seed"]
    guess = predicted_deck(seed, created.dice_counter_start)
    assert guess == created.sheet_after["deck"]  # the creation's deck is known now...

    resealed = Resolution.objects.get(character=dora, action="reseal")
    assert resealed.kind == ResolutionKind.EFFECT
    assert resealed.summary == (
        "Dora: The deck is shuffled again, so the dice seed just revealed tells nothing of "
        "its order."
    )
    assert [roll["hidden"] for roll in resealed.rolls] == [True]
    campaign.refresh_from_db()
    assert resealed.dice_counter_start == campaign.dice_seed_first_counter  # the new seed's
    dora.refresh_from_db()
    assert sorted(dora.sheet["deck"]) == sorted(DECK_CARD_IDS)
    assert dora.sheet["deck"] != guess

    flipped = flip(client_for(player), dora, 5)
    assert flipped != guess[:5]  # ...but it is not the deck in play

    # Once the new seed is revealed in turn, the reshuffle checks like any roll.
    assert rotate(client_for(referee), campaign).status_code == 201
    resealed.refresh_from_db()
    campaign = Campaign.objects.get(pk=campaign.pk)
    assert verify_resolution_rolls(resealed, campaign)
    export = client_for(referee).get(f"/api/v1/campaigns/{campaign.pk}/dice/export/").json()
    report = _verify_script().verify(export)
    assert report["failures"] == []
    # The creation and the first reshuffle; the second reshuffle waits for the next seed
    # to be revealed, and a flip rolls nothing.
    assert (report["checked"], report["secret_seed"]) == (2, 1)
    assert report["reseals"] == 2
    # The player's own export: the creation's shuffle stays withheld, drawn again since.
    mine = client_for(player).get(f"/api/v1/campaigns/{campaign.pk}/dice/export/").json()
    theirs = _verify_script().verify(mine)
    assert theirs["failures"] == []
    assert (theirs["withheld"], theirs["drawn_again"], theirs["reseals"]) == (3, 2, 2)


def test_the_reshuffle_cannot_be_undone(make_campaign, player, referee, client_for):
    campaign = make_campaign("deckahedron")
    membership = Membership.objects.get(campaign=campaign, user=player)
    dora = character_create(membership=membership, name="Dora", sheet={})
    rotate(client_for(referee), campaign)
    flip(client_for(player), dora, 1)
    undo = f"/api/v1/characters/{dora.pk}/undo/"
    assert client_for(referee).post(undo, {}, format="json").status_code == 201
    before = Character.objects.get(pk=dora.pk).sheet
    response = client_for(referee).post(undo, {}, format="json")
    assert response.status_code == 409
    assert (
        "The deck of Dora was shuffled again when the dice seed was revealed"
        in (response.json()["detail"])
    )
    assert Character.objects.get(pk=dora.pk).sheet == before


def test_a_secret_hidden_roll_holds_the_rotation_back_until_revealed(
    make_campaign, referee, client_for
):
    campaign = make_campaign("old_school")
    membership = Membership.objects.get(campaign=campaign, user=referee)
    ossie = character_create(membership=membership, name="Ossie", sheet={})
    client = client_for(referee)
    exposed = client.post(
        f"/api/v1/characters/{ossie.pk}/actions/",
        {"action": "expose_disease", "params": {"disease": "Green River Fever"}},
        format="json",
    )
    assert exposed.status_code == 201
    before = Campaign.objects.get(pk=campaign.pk).dice_seed
    response = rotate(client, campaign)
    assert response.status_code == 409
    assert (
        "1 hidden roll made since the dice seed was last revealed is still secret"
        in (response.json()["detail"])
    )
    assert Campaign.objects.get(pk=campaign.pk).dice_seed == before
    resolution = Resolution.objects.get(pk=exposed.json()["id"])
    reveal = f"/api/v1/characters/{ossie.pk}/resolutions/{resolution.pk}/reveal/"
    assert client.post(reveal).status_code == 200
    assert rotate(client, campaign).status_code == 201


def test_archiving_reveals_the_seed_even_with_a_secret_roll(make_campaign, referee, client_for):
    campaign = make_campaign("old_school")
    membership = Membership.objects.get(campaign=campaign, user=referee)
    ossie = character_create(membership=membership, name="Ossie", sheet={})
    client = client_for(referee)
    client.post(
        f"/api/v1/characters/{ossie.pk}/actions/",
        {"action": "expose_disease", "params": {"disease": "Green River Fever"}},
        format="json",
    )
    assert client.post(f"/api/v1/campaigns/{campaign.pk}/archive/").status_code == 200
