"""The referee's party action page (issue 13): pick characters, one action, one form.

The dashboard links here; the action's form is built from its params' JSON Schema like
a sheet's action forms (web.forms), and ``rules.play.party.party_action`` resolves it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from rules.engine.interface import RuleError
from rules.engine.registry import get_ruleset
from rules.logbook.selectors import party_characters
from rules.play.party import party_action
from web.forms import parse_params, posted_values, schema_fields
from web.plain import field_labels
from web.referee import referee_membership
from web.views.characters import BAD_INPUT, CONFLICT, _message, _status


@login_required
def party_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    membership = referee_membership(request, campaign_id)
    campaign = membership.campaign
    ruleset = get_ruleset(campaign.ruleset)
    characters = party_characters(membership)
    source = request.POST if request.method == "POST" else request.GET
    key = source.get("action") or ruleset.actions[0].key
    try:
        spec = ruleset.action(key)
    except RuleError:
        spec = ruleset.actions[0]
    fields = schema_fields(spec.params, ruleset=ruleset.key)
    context: dict[str, Any] = {
        "campaign": campaign,
        "ruleset": ruleset,
        "spec": spec,
        "characters": characters,
        "chosen": {c.pk for c in characters},
        "fields": fields,
        "error": "",
        "outcome": None,
    }
    picked = {int(pk) for pk in request.GET.getlist("characters") if pk.isdigit()}
    if picked:  # chosen on the dashboard
        context["chosen"] = picked & context["chosen"]
    status = 200
    if request.method == "POST":
        chosen = [int(pk) for pk in request.POST.getlist("characters") if pk.isdigit()]
        context["chosen"] = set(chosen)
        try:
            params = parse_params(fields, request.POST)
            if not chosen:
                raise RuleError(_("Pick at least one character."))
            context["outcome"] = party_action(
                campaign_id=campaign.pk,
                actor=request.user,
                action=spec.key,
                params=params,
                character_ids=chosen,
            )
        except (*BAD_INPUT, *CONFLICT) as error:
            status = _status(error)
            context["error"] = _message(error, field_labels(fields))
            context["fields"] = schema_fields(
                spec.params, ruleset=ruleset.key, values=posted_values(fields, request.POST)
            )
    return render(request, "campaigns/party.html", context, status=status)
