"""Every action of every ruleset reads in German through the API (issue 37).

For each ruleset, each action is taken for real through ``POST characters/{id}/actions/``
on a character in the first sample state of ``rules.engine.tests.action_walk`` where the
engine takes it (its choice, if it asks one, answered with its first option), and then
``GET characters/{id}/resolutions/`` with ``Accept-Language: de``: every entry keeps its
message (``said``), its summary is German (the catalogue says every message it is made
of, and it reads otherwise than the English the log keeps), with ``Content-Language: de``;
the same entries without the header stay English, as the log keeps them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from campaigns.models import Membership
from characters.models import Character
from rules.engine.dice import Dice, DiceError, HmacGenerator
from rules.engine.interface import ActionBlocked, RuleError, Ruleset
from rules.engine.registry import all_rulesets
from rules.engine.tests.action_walk import CONTEXT, sample_params, sample_sheets
from rules.engine.tests.test_words import catalogue, message_ids
from rules.engine.words import Message
from rules.log.models import Resolution
from rules.play.services import campaign_table_set, character_create

pytestmark = pytest.mark.django_db


def takes(ruleset: Ruleset) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(action, params, sheet): each action once, where the engine takes it."""
    generator = HmacGenerator(b"said")
    for spec in ruleset.actions:
        found = None
        for sheet in sample_sheets(ruleset):
            for params in sample_params(ruleset, spec):
                try:
                    ruleset.resolve(sheet, spec.key, params, Dice(generator), CONTEXT)
                except (RuleError, ActionBlocked, DiceError):
                    continue
                found = (spec.key, params, sheet)
                break
            if found:
                break
        assert found, f"{ruleset.key} {spec.key}: no sample state takes it"
        yield found


@pytest.mark.parametrize("ruleset", all_rulesets(), ids=lambda r: r.key)
def test_every_action_reads_in_german_through_the_api(
    ruleset: Ruleset, make_campaign: Any, referee: Any, client_for: Any
) -> None:
    campaign = make_campaign(ruleset.key)
    for key, table in CONTEXT.tables.items():
        if key in ruleset.tables:
            campaign_table_set(campaign=campaign, key=key, data=table)
    membership = Membership.objects.get(campaign=campaign, user=referee)
    client = client_for(referee)
    characters = []
    for index, (action, params, sheet) in enumerate(takes(ruleset)):
        character = character_create(
            membership=membership, name=f"Aldo {index}", sheet=dict(ruleset.example_initial)
        )
        Character.objects.filter(pk=character.pk).update(sheet=sheet)
        answer = client.post(
            f"/api/v1/characters/{character.pk}/actions/",
            {"action": action, "params": params},
            format="json",
        )
        assert answer.status_code in (200, 201), (action, params, answer.content[:300])
        choice = answer.json().get("pending_choice")
        if choice:
            chosen = client.post(
                f"/api/v1/characters/{character.pk}/choices/",
                {"choice_id": choice["id"], "option": choice["options"][0]["key"]},
                format="json",
            )
            assert chosen.status_code in (200, 201), (action, chosen.content[:300])
        characters.append((action, character))

    german = catalogue("de")
    for action, character in characters:
        path = f"/api/v1/characters/{character.pk}/resolutions/"
        answer = client.get(path, HTTP_ACCEPT_LANGUAGE="de")
        assert answer.status_code == 200
        assert answer["Content-Language"] == "de"
        english = client.get(path, HTTP_ACCEPT_LANGUAGE="en").json()["results"]
        logged = {r.pk: r for r in Resolution.objects.filter(character=character)}
        for entry, in_english in zip(answer.json()["results"], english, strict=True):
            row = logged[entry["id"]]
            where = f"{ruleset.key} {action} {row.kind} {row.summary!r}"
            assert row.said is not None, f"{where}: the log keeps no message"
            said = Message.from_data(row.said)
            for msgid, _plural in message_ids(said):
                found = german.get(msgid)
                assert found is not None and (found.msgstr or found.msgstr_plural), (
                    f"{where}: {msgid!r} is not translated"
                )
            assert in_english["summary"] == row.summary, where
            # a roll's label is said too; the data it is said from stays in the log
            assert all("label_said" not in roll for roll in entry["rolls"]), where
            assert [r["label"] for r in in_english["rolls"]] == [r["label"] for r in row.rolls]
            assert entry["summary"] != row.summary, f"{where}: still English"
