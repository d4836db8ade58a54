"""Odds shown to people never say "0%" for what can happen (issue 26)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import Membership
from rules.play.services import character_create
from web.views.characters import odds_percent

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("probability", "shown"),
    [
        (Fraction(1, 216), "<1%"),
        (Fraction(1, 200), "<1%"),  # 0.5% rounds to 0 (half to even): still "<1%"
        (Fraction(1, 100), "1%"),
        (Fraction(2, 5), "40%"),
        (Fraction(215, 216), ">99%"),
        (Fraction(1), "100%"),
    ],
)
def test_a_chance_is_a_whole_percent_but_never_0_or_100_unless_it_is(probability, shown):
    assert odds_percent(probability) == shown


def test_the_odds_under_a_form_show_1_in_216_as_under_1_percent(campaign, player, web):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(
        membership=membership, name="Aldo", sheet={"level": 3, "hit_dice": 3, "hp": 5}
    )
    url = reverse("character-odds", kwargs={"character_id": aldo.pk, "action": "long_rest"})
    html = web(player).post(url, {}).content.decode()
    # A night's sleep re-rolls 3d6: hp 3 and hp 18 are 1/216 each.
    row = html.split("Hp 3.<")[1].split("</li>")[0]  # the label in the page's words
    assert "<strong>&lt;1%</strong>" in row
    assert "1/216" in row
    assert "<strong>0%</strong>" not in html
