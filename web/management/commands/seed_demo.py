"""Load the demo for ``make run``: a referee, two players, one campaign per ruleset.

Each campaign's party is its ruleset's ``PRESENTATION.party`` (``web/rulesets/<key>.py``).

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
from rules.battles.selectors import warband_rules
from rules.battles.services import battle_advance, battle_begin
from rules.engine.registry import all_rulesets
from rules.play.services import campaign_table_set, character_create, resolution_create_action
from web.rulesets import presentation

DEMO_USERS = ("referee", "player1", "player2")
# The demo battle under way (ruling WB-6): the turn order and how many phases it has
# moved on; its first blows are in the warband party's openings (web/rulesets/warband.py).
DEMO_BATTLE = ("Red Hand", "Grey Crows")
DEMO_PHASES = 3
# Tables the demo fills in where the ruleset ships an empty one (issue 29): the warband
# rules leave the Scars table to the referee, so "Roll for scars" works in the demo.
DEMO_TABLES: dict[str, dict[str, Any]] = {
    "warband": {
        "scars": {
            "dice": "1d6",
            "rows": [
                {"min": 1, "max": 1, "scar": "Old wound: it fights on, slower to rise."},
                {"min": 2, "max": 2, "scar": "Limp: one inch less of move."},
                {"min": 3, "max": 3, "scar": "Scarred face: a grim look, nothing worse."},
                {"min": 4, "max": 4, "scar": "Smashed hand: a shaky grip on its weapon."},
                {"min": 5, "max": 5, "scar": "Nervous: it flinches at the first blow."},
                {"min": 6, "max": 6, "scar": "Hardened: it has seen worse and shrugs it off."},
            ],
        }
    }
}


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
        shown = presentation(ruleset)
        for demo in shown.party if shown is not None else ():
            character = character_create(
                membership=referee,
                name=demo.name,
                sheet=dict(demo.sheet),
                owner_id=users[demo.owner].pk,
            )
            # What happened to them before the session: resolved by the referee through
            # the same service as the API (logged, with the campaign's dice).
            for action, params in demo.opening:
                resolution_create_action(
                    character_id=character.pk,
                    actor=users[0],
                    by_referee=True,
                    action=action,
                    params=dict(params),
                )
        for key, table in DEMO_TABLES.get(ruleset, {}).items():
            campaign_table_set(campaign=campaign, key=key, data=table)
        if warband_rules(campaign) is not None:  # a battle under way, three phases in
            battle_begin(campaign_id=campaign.pk, warbands=DEMO_BATTLE, actor=users[0])
            for _ in range(DEMO_PHASES):
                battle_advance(campaign_id=campaign.pk, actor=users[0])
