"""A query compiled once (rules.log.statements.CompiledQuery) answers what its queryset answers."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import Exists
from django.test.utils import CaptureQueriesContext

from campaigns.models import Membership
from characters.access import mine_by_id
from characters.models import Character
from rules.clock.due import due_effects, earlier_jobs, first_due
from rules.clock.models import ClockJob
from rules.clock.tests.clock_helpers import wounded
from rules.log.models import CampaignTable
from rules.log.rows import EffectRow
from rules.log.statements import CompiledQuery
from rules.play import services as play_services
from rules.play.services import _locked_character, character_create

pytestmark = pytest.mark.django_db


def _fields(character: Character) -> dict[str, Any]:
    values = {f.attname: getattr(character, f.attname) for f in Character._meta.concrete_fields}
    campaign = character.campaign  # cached by select_related, not read again
    values["campaign"] = {
        f.attname: getattr(campaign, f.attname) for f in type(campaign)._meta.concrete_fields
    }
    for name in ("my_membership_id", "my_role", "webhooked"):
        values[name] = getattr(character, name)
    values["state"] = (character._state.adding, character._state.db)
    return values


def test_the_action_s_locked_row_is_the_queryset_s_row_for_every_viewer(
    campaign, player, referee, outsider
):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3})
    for user in (player, referee, outsider):
        with transaction.atomic():
            queryset = _locked_character(Character.objects.annotate(**mine_by_id(user.pk)), aldo.pk)
            [expected] = list(queryset)
            with CaptureQueriesContext(connection) as queries:
                found = play_services._locked_row_for(aldo.pk, user.pk)
                assert found is not None
                assert _fields(found) == _fields(expected)
            assert len(queries.captured_queries) == 1  # the campaign came with it
            locks = connection.features.has_select_for_update  # SQLite locks the database
            assert queries.captured_queries[0]["sql"].count("FOR UPDATE") == int(locks)
        # the sheet, a JSON column, went through Django's converters as in the queryset
        assert found.sheet == expected.sheet and isinstance(found.sheet, dict)
    with transaction.atomic():
        assert play_services._locked_row_for(aldo.pk + 1000, player.pk) is None


def test_a_query_runs_with_new_values_and_each_slot_must_be_a_parameter(campaign, player):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3})
    bea = character_create(membership=membership, name="Bea", sheet={"level": 2})
    query = CompiledQuery[Character]("character_id")
    assert not query.ready()
    query.compile(Character.objects.filter(pk=query.marks["character_id"]))
    assert query.ready()
    assert query.first(character_id=aldo.pk) == aldo
    assert query.first(character_id=bea.pk) == bea
    assert query.first(character_id=bea.pk + 1000) is None
    unused = CompiledQuery[Character]("character_id")
    with pytest.raises(ValueError, match="character_id"):
        unused.compile(Character.objects.all())


def test_the_first_effects_due_read_once_compiled_are_the_queryset_s_rows(campaign, player):
    # given Aldo's wound worsening every hour, an unfinished job of the campaign before
    # the one asking, and an edited table
    wounded(campaign, player, "Aldo", every=60)
    earlier = ClockJob.objects.create(campaign=campaign, minutes=60)
    CampaignTable.objects.create(campaign=campaign, key="house_rules", data={})
    for target, job_id in ((0, earlier.pk), (59, earlier.pk), (60, earlier.pk + 1), (500, 1)):
        queryset = due_effects(campaign.pk, target).annotate(
            earlier_job=Exists(earlier_jobs(campaign.pk, job_id)),
            edited_tables=Exists(CampaignTable.objects.filter(campaign_id=campaign.pk)),
        )
        expected = list(queryset.values_list(*EffectRow.COLUMNS, "earlier_job", "edited_tables"))
        # then the compiled statement reads the same rows, converted alike (booleans)
        assert first_due(campaign.pk, target, job_id, 17) == expected[:17]
    assert [row[-2:] for row in first_due(campaign.pk, 60, earlier.pk + 1, 17)] == [(True, True)]
