"""schemathesis over every operation of the API (issues 15 and 27), as the referee of a
campaign, as one of its players and as an outsider: requests generated from the served
schema, with the path's ids set to real objects (a campaign of each ruleset in turn,
its character, a resolution, a clock job, an invite, a member, a token; webhooks left
unmade, so no delivery leaves the machine), and every check schemathesis has: no 5xx, no
status, content type, header or body off the schema, schema-valid requests accepted
(``positive_data_acceptance``) and schema-invalid ones refused
(``negative_data_rejection``).

A well-formed request the rules or the campaign's state refuse (a wrong password, a
``confirm`` that is not the name, params of another ruleset) is a 400 the schema
declares as such (``core.openapi.refused``: its description starts with
``core.openapi.REFUSAL``); such a 400 is no failure of positive data acceptance.

Each case sends an ``Idempotency-Key`` of its own (``unique_idempotency_keys``):
schemathesis draws header values from a small pool, and a key sent again with another body
is the server's 422 by design, not a refusal of the data.

Bounded so it fits the suite's time: ``EXAMPLES`` generated requests per operation and
role, no shrinking search beyond hypothesis' default.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, settings
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import positive_data_acceptance

from accounts.services import token_create
from campaigns.access import TokenScope
from campaigns.models import Membership
from campaigns.services import invite_create
from core.openapi import REFUSAL
from rules.clock.services import clock_advance_start
from rules.log.models import Resolution
from rules.play.services import character_create

# generated requests per operation and role; more for a deeper search by hand
EXAMPLES = int(os.environ.get("SAWBONES_SCHEMATHESIS_EXAMPLES", "4"))
RULESETS = ["hit_dice", "deckahedron", "old_school", "condition_monitor", "warband"]
SHEETS: dict[str, dict[str, Any]] = {"warband": {"warband": "The Grey Company"}}


# The served schema; its operations are called through the WSGI app in this process.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())


# schemathesis draws header values from a small pool, so two cases of one operation often
# share an ``Idempotency-Key`` with different bodies: the server rightly answers 422
# (docs/api.md), which is no refusal of the second case's data. Each case gets a key of its
# own; a key the schema refuses (a negative case) is left as drawn, to be refused.
IDEMPOTENCY_KEY = re.compile(r"[ -~]{1,255}")


@schema.hook("map_headers")
def unique_idempotency_keys(context: Any, headers: dict[str, Any] | None) -> Any:
    key = (headers or {}).get("Idempotency-Key")
    if isinstance(key, str) and IDEMPOTENCY_KEY.fullmatch(key):
        headers = {**(headers or {}), "Idempotency-Key": f"case-{uuid.uuid4()}"}
    return headers


def test_each_case_has_an_idempotency_key_of_its_own() -> None:
    """Two cases drawing the same key get two keys (a reused key with another body is a
    422 by design, docs/api.md); a key the schema refuses stays as drawn, to be refused."""
    drawn = {"Idempotency-Key": "0", "Accept": "application/json"}
    first, second = (unique_idempotency_keys(None, dict(drawn)) for _ in range(2))
    assert first["Idempotency-Key"] != second["Idempotency-Key"]
    assert IDEMPOTENCY_KEY.fullmatch(first["Idempotency-Key"])
    assert first["Accept"] == "application/json"
    assert unique_idempotency_keys(None, {"Idempotency-Key": "\x00"}) == {"Idempotency-Key": "\x00"}
    assert unique_idempotency_keys(None, None) is None


@pytest.fixture(autouse=True)
def _one_connection() -> Iterator[None]:
    """The test's database transaction stays open across requests, as Django's test
    client keeps it: no connection closed at a request's end."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def make_world(node_name: str, user: Any, referee: Any, player: Any, make_campaign) -> Any:
    """A campaign (its ruleset chosen by the test's name) with everything the paths name,
    and ``user``'s token; the real ids by name."""
    ruleset = RULESETS[sum(map(ord, node_name)) % len(RULESETS)]
    campaign = make_campaign(ruleset)
    membership = Membership.objects.get(campaign=campaign, user=player)
    hero = character_create(membership=membership, name="Hero", sheet=SHEETS.get(ruleset))
    job = clock_advance_start(campaign_id=campaign.pk, minutes=30, requested_by=referee)
    invite = invite_create(campaign=campaign, user=referee)
    token, secret = token_create(user=user, name="schemathesis", scope=TokenScope.REFEREE)
    return {
        "headers": {"Authorization": f"Token {secret}"},
        "ids": {
            "campaign_id": campaign.pk,
            "character_id": hero.pk,
            "resolution_id": Resolution.objects.filter(character=hero).latest("pk").pk,
            "job_id": job.pk,
            "invite_id": invite.pk,
            "user_id": player.pk,
            "token_id": token.pk,
        },
    }


@pytest.fixture
def as_referee(request, referee, player, make_campaign) -> Any:
    return make_world(request.node.name, referee, referee, player, make_campaign)


@pytest.fixture
def as_player(request, referee, player, make_campaign) -> Any:
    return make_world(request.node.name, player, referee, player, make_campaign)


@pytest.fixture
def as_outsider(request, outsider, referee, player, make_campaign) -> Any:
    return make_world(request.node.name, outsider, referee, player, make_campaign)


def declares_refusals(case: Any) -> bool:
    """The operation's 400 says well-formed requests may be refused (core.openapi.refused)."""
    answer = case.operation.definition.raw.get("responses", {}).get("400", {})
    return str(answer.get("description", "")).startswith(REFUSAL)


def positive_data_accepted_or_refused(ctx: Any, response: Any, case: Any) -> bool | None:
    """schemathesis' positive_data_acceptance, but for a 400 the schema declares as a
    refusal of well-formed input."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if response.status_code == 400 and declares_refusals(case):
            return None
        raise


def exercise(case: Any, world: dict[str, Any]) -> None:
    if case.path_parameters:
        # assigned whole (not item by item), so schemathesis sees the change and judges
        # the request as it is sent: real ids make a negated path a valid one
        case.path_parameters = {
            name: world["ids"].get(name, value) for name, value in case.path_parameters.items()
        }
    case.call_and_validate(
        headers=world["headers"],
        excluded_checks=[positive_data_acceptance],
        additional_checks=[positive_data_accepted_or_refused],
    )


# Derandomized: every run (a developer's, CI's) sends the same cases, so a red run is
# one anybody can repeat, never a roll of the generator's dice.
BOUNDED = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.django_db
@schema.parametrize()
@BOUNDED
def test_every_operation_as_the_referee(case: Any, as_referee) -> None:
    exercise(case, as_referee)


@pytest.mark.django_db
@schema.parametrize()
@BOUNDED
def test_every_operation_as_an_outsider(case: Any, as_outsider) -> None:
    exercise(case, as_outsider)


@pytest.mark.django_db
@schema.parametrize()
@BOUNDED
def test_every_operation_as_a_player(case: Any, as_player) -> None:
    exercise(case, as_player)
