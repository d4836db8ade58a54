"""Nothing the referee keeps hidden reaches a player until revealed (ruling G-4, issue 36):
not in any field of any answer of the API, any page, the session recap (JSON and
Markdown), the clock's advance report or the e-mail digest.

The actions that can keep a secret are found, not listed: every action of every ruleset
is walked over the sample states of ``rules.engine.tests.action_walk``, with params made
from its schema (every text param, and the disease the campaign's table names, the secret
string ``SECRET``), and each whose result holds a hidden roll, a hidden scheduled effect
or something for the referee only (``outcome.referee_only``) is a case; so is the
creation of a character when its ruleset rolls in secret (a Deckahedron deck's shuffle).
A new action or ruleset that keeps secrets is a new case without a line here.

Each case is played for real: a campaign of the ruleset with the secret disease in its
table, the player's character in the sample state, the action taken by the referee
through the API. Then, as the player: every GET of the API and every page whose path
names only the campaign, the character or the entry (found from the URL patterns) is
searched for ``SECRET`` and for the hidden rolls. Then the clock runs past every hidden
effect (a secret disease shows itself at its first save, ruling OS-6: from then on the
sheet names it) and the tellings of what happened, which leave out entries with a hidden
roll or of a hidden effect until revealed, are searched again: the recap, the job's
report (API and page) and the digest mail.

Webhooks are the referee's (only a referee registers one: ``docs/webhooks.md``), and so
are the export and the CSV log (403 for a player: tests/test_access_matrix.py).
"""

from __future__ import annotations

import copy
import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core import mail
from django.urls import URLPattern

from campaigns.models import Membership, Role
from campaigns.services import campaign_create, membership_digest_set
from characters.models import Character
from config import api_urls, web_urls
from rules.clock.digest import digest_send
from rules.clock.models import ClockJob
from rules.clock.services import clock_advance_run, clock_advance_start
from rules.engine.dice import Dice, DiceError, HmacGenerator
from rules.engine.interface import ActionBlocked, Context, Result, RuleError
from rules.engine.registry import all_rulesets, get_ruleset
from rules.engine.tests.action_walk import SCARS, STEPS, sample_params, sample_sheets
from rules.log.models import Resolution, ScheduledEffect
from rules.log.redaction import keeps_secret
from rules.play.services import campaign_table_set, character_create

SECRET = "Quietus Pox"  # a disease only the campaign's table names
DISEASES = copy.deepcopy(get_ruleset("old_school").tables["diseases"])
DISEASES[SECRET] = copy.deepcopy(DISEASES["Green River Fever"])
CONTEXT = Context(by_referee=True, tables={"scars": SCARS, "diseases": DISEASES})
# Sample states beyond the walk's: a secret disease to cure; a deck drawn to its end, so
# that the next flip shuffles the discard pile back in secret (ruling DK-3).
STEPS_TOO = {
    **STEPS,
    "old_school": [
        *STEPS["old_school"],
        [("contract_disease", {"disease": SECRET, "hidden": True})],
    ],
}


def drawn_to_the_end(sheet: dict[str, Any]) -> dict[str, Any] | None:
    if not sheet.get("deck"):
        return None
    return {**sheet, "deck": [], "discard": [*sheet.get("discard", []), *sheet["deck"]]}


def keeps_a_secret(result: Result) -> bool:
    return (
        any(roll.hidden for roll in result.rolls)
        or any(effect.hidden for effect in result.effects)
        or "referee_only" in result.outcome
    )


@dataclass(frozen=True)
class Case:
    ruleset: str
    action: str  # "create": the character's creation
    sheet: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    # what is kept is knowledge (``referee_only``, a hidden effect), which its params
    # name, or only dice (then the params are the player's to read)
    knowledge: bool = False

    @property
    def id(self) -> str:
        return f"{self.ruleset}-{self.action}"


def hidden_capable_cases() -> list[Case]:
    """Every action of every ruleset that can keep a secret, with a state and params in
    which it does (the first the walk finds, preferring params naming ``SECRET``)."""
    cases: dict[tuple[str, str], Case] = {}
    for ruleset in all_rulesets():
        dice = Dice(HmacGenerator(f"create-{ruleset.key}".encode()))
        ruleset.new_sheet(dict(ruleset.example_initial), dice)
        if any(roll.hidden for roll in dice.rolls):
            cases[ruleset.key, "create"] = Case(ruleset.key, "create")
        sheets = sample_sheets(ruleset, CONTEXT, STEPS_TOO)
        sheets += [s for s in map(drawn_to_the_end, sheets) if s is not None]
        generator = HmacGenerator(f"secrets-{ruleset.key}".encode())
        for sheet in sheets:
            for spec in ruleset.actions:
                named = {(ruleset.key, "disease"): SECRET}
                for params in sample_params(ruleset, spec, named, SECRET):
                    try:
                        result = ruleset.resolve(sheet, spec.key, params, Dice(generator), CONTEXT)
                    except (RuleError, ActionBlocked, DiceError):
                        continue
                    known = cases.get((ruleset.key, spec.key))
                    if keeps_a_secret(result) and (
                        known is None or (SECRET not in str(known.params) and SECRET in str(params))
                    ):
                        knowledge = "referee_only" in result.outcome or any(
                            effect.hidden for effect in result.effects
                        )
                        cases[ruleset.key, spec.key] = Case(
                            ruleset.key, spec.key, sheet, params, knowledge
                        )
    return list(cases.values())


CASES = hidden_capable_cases()


def test_the_walk_finds_the_secrets_the_rules_keep() -> None:
    """The walk is no empty search: the secrets the rulesets are known to keep are found
    (a new one is found without being named here)."""
    assert {
        ("old_school", "expose_disease"),
        ("old_school", "contract_disease"),
        ("old_school", "cure_disease"),
        ("deckahedron", "create"),
        ("deckahedron", "flip"),
    } <= {(case.ruleset, case.action) for case in CASES}


# -- what a player can read ---------------------------------------------------------------
READABLE = {"campaign_id", "character_id", "resolution_id", "job_id"}


def readable_paths(patterns: list[Any], prefix: str, ids: dict[str, int]) -> list[str]:
    """Every path of ``patterns`` naming nothing but the campaign, the character, the
    entry or the clock job (and no fixed argument: a table's key), filled in with
    ``ids``."""
    paths = []
    for pattern in patterns:
        if not isinstance(pattern, URLPattern) or pattern.default_args:
            continue
        names = set(pattern.pattern.converters)
        if not names or not names <= READABLE or not names <= set(ids):
            continue
        route = str(pattern.pattern)
        for name in names:
            route = re.sub(rf"<\w+:{name}>", str(ids[name]), route)
        paths.append(prefix + route)
    return paths


def read_as(client: Any, paths: list[str]) -> dict[str, str]:
    """Each path's answer as text, where the person may read it (200)."""
    read = {}
    for path in paths:
        answer = client.get(path)
        assert answer.status_code < 500, (path, answer.status_code)
        if answer.status_code == 200 and not answer.streaming:
            read[path] = answer.content.decode()
    return read


def rolls_in(value: Any) -> list[str]:
    """The labels of the rolls (objects with a label and dice) a JSON answer holds."""
    if isinstance(value, dict):
        found = [value["label"]] if "label" in value and "dice" in value else []
        return found + [label for item in value.values() for label in rolls_in(item)]
    if isinstance(value, list):
        return [label for item in value for label in rolls_in(item)]
    return []


def leaks(read: dict[str, str], hidden_rolls: set[str], secret: str | None) -> list[str]:
    """What of the secrets the answers hold: the secret string anywhere, or a hidden roll
    (by its label) shown as a roll; ``secret``: the secret string, when what is kept is
    knowledge. (That a deck was shuffled is no secret, and a summary
    may say so: its order is.)"""
    found = []
    for path, text in read.items():
        if text[:1] in "[{":
            shown = set(rolls_in(json.loads(text)))
            text = json.dumps(json.loads(text), ensure_ascii=False)
        else:
            shown = set(re.findall(r'<span class="roll-label">(.*?)</span>', text))
            shown = {html.unescape(label) for label in shown}
        if secret is not None and secret in text:
            found.append(f"{path}: {secret}")
        found += [f"{path}: the roll {label}" for label in shown & hidden_rolls]
    return found


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_nothing_hidden_reaches_a_player(
    case: Case, referee, player, client_for, web, django_capture_on_commit_callbacks
) -> None:
    campaign = campaign_create(user=referee, name="Hidden", ruleset=case.ruleset)
    membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
    player.email = "player@example.org"
    player.save(update_fields=["email"])
    membership_digest_set(membership_id=membership.pk, on=True)
    ruleset = get_ruleset(case.ruleset)
    for key, table in CONTEXT.tables.items():
        if key in ruleset.tables:
            campaign_table_set(campaign=campaign, key=key, data=table)
    hero = character_create(membership=membership, name="Pell")
    if case.action == "create":
        entry = Resolution.objects.get(character=hero, kind="create")
    else:
        Character.objects.filter(pk=hero.pk).update(sheet=case.sheet)
        acted = client_for(referee).post(
            f"/api/v1/characters/{hero.pk}/actions/",
            {"action": case.action, "params": case.params},
            format="json",
        )
        assert acted.status_code == 201, acted.content
        entry = Resolution.objects.get(pk=acted.json()["id"])
    assert keeps_secret(entry)
    hidden_labels = {roll["label"] for roll in entry.rolls if roll.get("hidden")}
    ids = {"campaign_id": campaign.pk, "character_id": hero.pk, "resolution_id": entry.pk}

    # Every answer and page the player can read, as the action left them.
    api = readable_paths(api_urls.urlpatterns, "/api/v1/", ids)
    api.append(f"/api/v1/campaigns/{campaign.pk}/recap/?format=md")
    pages = readable_paths(web_urls.urlpatterns, "/", ids)
    read = read_as(client_for(player), api) | read_as(web(player), pages)
    assert {f"/api/v1/characters/{hero.pk}/resolutions/", f"/characters/{hero.pk}/"} <= set(read)
    assert f"/api/v1/campaigns/{campaign.pk}/recap/?format=md" in read
    secret = SECRET if case.knowledge else None
    assert not leaks(read, hidden_labels, secret)
    # ...and the referee reads it all (the search would find it)
    as_referee = read_as(client_for(referee), [f"/api/v1/characters/{hero.pk}/resolutions/"])
    assert leaks(as_referee, hidden_labels, secret) or not (hidden_labels or secret)

    # The clock runs past every hidden effect: the tellings still keep the secret.
    if "diseases" in ruleset.tables:  # something the player may be told of, for the digest
        client_for(referee).post(
            f"/api/v1/characters/{hero.pk}/actions/",
            {"action": "contract_disease", "params": {"disease": "Green River Fever"}},
            format="json",
        )
    # up to the last hidden effect, not past it: a secret disease's first save shows it,
    # and the saves after it are the player's to read (ruling OS-6)
    hidden_due = ScheduledEffect.objects.filter(campaign=campaign, hidden=True).values_list(
        "due_at", flat=True
    )
    minutes = max([*hidden_due, 24 * 60]) - campaign.clock
    with django_capture_on_commit_callbacks(execute=True):
        job = clock_advance_start(campaign_id=campaign.pk, minutes=minutes, requested_by=referee)

    clock_advance_run(job_id=job.pk)
    assert ClockJob.objects.get(pk=job.pk).state == "done"
    ids["job_id"] = job.pk
    tellings = [
        f"/api/v1/campaigns/{campaign.pk}/recap/",
        f"/api/v1/campaigns/{campaign.pk}/recap/?format=md",
        f"/api/v1/campaigns/{campaign.pk}/clock/jobs/{job.pk}/",
    ]
    told = read_as(client_for(player), tellings)
    told |= read_as(web(player), [f"/campaigns/{campaign.pk}/clock/jobs/{job.pk}/"])
    told |= read_as(web(player), [f"/campaigns/{campaign.pk}/recap/?from=0"])
    assert len(told) == 5, sorted(told)
    mail.outbox.clear()
    digest_send(membership_id=membership.pk)
    told |= {f"mail {n}": str(sent.body) for n, sent in enumerate(mail.outbox)}
    assert not leaks(told, hidden_labels, secret)
    report = json.loads(told[f"/api/v1/campaigns/{campaign.pk}/clock/jobs/{job.pk}/"])
    assert bool(mail.outbox) is bool(report["report"]["characters"])  # told, and searched

    # The referee may reveal it (the page offers it), and then the player reads it all
    sheet_page = web(referee).get(f"/characters/{hero.pk}/").content.decode()
    assert f"/resolutions/{entry.pk}/reveal/" in sheet_page
    revealed = client_for(referee).post(
        f"/api/v1/characters/{hero.pk}/resolutions/{entry.pk}/reveal/"
    )
    assert revealed.status_code == 200, revealed.content
    now_told = read_as(client_for(player), [f"/api/v1/characters/{hero.pk}/resolutions/"])
    assert leaks(now_told, hidden_labels, secret) or not (hidden_labels or secret)
