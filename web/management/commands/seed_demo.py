"""Load the demo for ``make run``: a referee, two players, one campaign per ruleset.

Embedded mode only: the logins are printed with fresh random passwords at every run,
so none is ever stored in the repository, and production refuses to run this.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaigns.models import Campaign, Membership, Role
from campaigns.services import campaign_create
from rules.battles import battle_advance, battle_begin, warband_rules
from rules.engine.registry import all_rulesets
from rules.services import character_create, resolution_create_action

DEMO_USERS = ("referee", "player1", "player2")
# A party per ruleset: (owner index in DEMO_USERS, name, initial sheet fields).
PARTIES: dict[str, list[tuple[int, str, dict[str, Any]]]] = {
    "hit_dice": [
        (1, "Aldo the Bold", {"level": 3, "hit_dice": 3, "hp": 11}),
        (2, "Brisk Mara", {"level": 2, "hit_dice": 2, "hp": 7}),
        (0, "Gate Sergeant (NPC)", {"level": 1, "hit_dice": 4, "hp": 14}),
    ],
    "deckahedron": [
        (1, "Cael", {"strength": 3, "dexterity": 2, "intelligence": 1}),
        (2, "Ysolde", {"strength": 1, "dexterity": 3, "intelligence": 4}),
    ],
    "old_school": [
        (1, "Dorn Ironhand", {"race": "dwarf", "age": 60, "level": 2}),
        (2, "Pell of the Reeds", {"race": "halfling", "age": 34, "level": 1}),
    ],
    # Two warbands of five, each led by a hero with 3 wounds.
    "warband": [
        (1, "Vessa the Red", {"warband": "Red Hand", "max_wounds": 3, "agility": 12}),
        (1, "Oskar", {"warband": "Red Hand"}),
        (1, "Brannoc", {"warband": "Red Hand", "move": 5}),
        (1, "Ilse", {"warband": "Red Hand", "agility": 12}),
        (1, "Tam the Quick", {"warband": "Red Hand", "move": 7}),
        (2, "Crow Captain", {"warband": "Grey Crows", "max_wounds": 3}),
        (2, "Hookbill", {"warband": "Grey Crows"}),
        (2, "Tallow", {"warband": "Grey Crows"}),
        (2, "Wren", {"warband": "Grey Crows", "agility": 13}),
        (2, "Mossback", {"warband": "Grey Crows", "move": 5}),
    ],
    # One character in each state: ok, incapacitated, dying, terminal, dead.
    "condition_monitor": [
        (1, "Sister Oda", {"strength": 2, "willpower": 4}),
        (1, "Ines Vale", {"strength": 3, "willpower": 3}),
        (2, "Brannoc", {"strength": 4, "willpower": 2}),
        (0, "Courier Pim (NPC)", {"strength": 2}),
        (0, "Old Garret (NPC)", {"strength": 1, "indomitable": True}),
    ],
}
# What happened to them before the session: actions the referee resolves after creation,
# through the same service as the API (logged, with the campaign's dice).
OPENING_ACTIONS: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {
    ("condition_monitor", "Ines Vale"): [
        ("damage", {"amount": 1, "kind": "lethal", "soak_dice": 0}),
        ("damage", {"amount": 2, "kind": "normal"}),  # soaked with her strength
    ],
    ("condition_monitor", "Brannoc"): [("damage", {"amount": 4, "kind": "normal", "soak_dice": 0})],
    ("condition_monitor", "Sister Oda"): [
        ("damage", {"amount": 4, "kind": "lethal", "soak_dice": 0})
    ],
    ("condition_monitor", "Courier Pim (NPC)"): [
        ("damage", {"amount": 5, "kind": "aggravated", "soak_dice": 0})
    ],
    ("condition_monitor", "Old Garret (NPC)"): [
        ("damage", {"amount": 9, "kind": "normal", "soak_dice": 0})
    ],
    # The warband battle's first blows, the attack's d20 as the table rolled it (WB-1).
    ("warband", "Hookbill"): [("injury_check", {"attack_roll": 16, "attack": "ranged"})],
    ("warband", "Crow Captain"): [("injury_check", {"attack_roll": 18, "attack": "ranged"})],
    ("warband", "Oskar"): [("injury_check", {"attack_roll": 12, "attack": "melee"})],
    ("warband", "Tallow"): [("injury_check", {"attack_roll": 19, "attack": "melee"})],
}
# The demo battle under way (ruling WB-6): the turn order and how many phases it has
# moved on; its first blows are in OPENING_ACTIONS.
DEMO_BATTLE = ("Red Hand", "Grey Crows")
DEMO_PHASES = 3


class Command(BaseCommand):
    help = "Create or refresh the demo campaigns and print the demo logins (embedded mode)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.SAWBONES_EMBEDDED:
            raise CommandError("seed_demo runs only in the local embedded mode (make run)")
        user_model = get_user_model()
        logins = []
        with transaction.atomic():
            users = []
            for username in DEMO_USERS:
                user, _ = user_model.objects.get_or_create(username=username)
                password = secrets.token_urlsafe(8)
                user.set_password(password)
                user.save(update_fields=["password"])
                users.append(user)
                logins.append((username, password))
            for ruleset in all_rulesets():
                self._campaign(ruleset.key, ruleset.name, users)
        self.stdout.write(self.style.SUCCESS("Demo ready on http://127.0.0.1:8000"))
        for username, password in logins:
            self.stdout.write(f"  log in as {username:<8} password {password}")

    def _campaign(self, ruleset: str, ruleset_name: str, users: list[Any]) -> None:
        name = f"Demo: {ruleset_name}"
        if Campaign.objects.filter(name=name, ruleset=ruleset).exists():
            return
        campaign = campaign_create(user=users[0], name=name, ruleset=ruleset)
        for user in users[1:]:
            Membership.objects.create(campaign=campaign, user=user, role=Role.PLAYER)
        referee = Membership.objects.get(campaign=campaign, user=users[0])
        for owner_index, character_name, sheet in PARTIES.get(ruleset, []):
            character = character_create(
                membership=referee,
                name=character_name,
                sheet=sheet,
                owner_id=users[owner_index].pk,
            )
            for action, params in OPENING_ACTIONS.get((ruleset, character_name), []):
                resolution_create_action(
                    character_id=character.pk,
                    actor=users[0],
                    by_referee=True,
                    action=action,
                    params=params,
                )
        if warband_rules(campaign) is not None:  # a battle under way, three phases in
            battle_begin(campaign_id=campaign.pk, warbands=DEMO_BATTLE, actor=users[0])
            for _ in range(DEMO_PHASES):
                battle_advance(campaign_id=campaign.pk, actor=users[0])
