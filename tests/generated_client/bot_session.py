"""A bot's whole session, written against the client that openapi-python-client
generates from the served schema (tests/test_generated_client.py generates it as the
package ``sawbones_client``, type-checks this file with it, then runs it on a live test
server). Not imported by the project: the package exists only in the test's directory.

The session: register, a token from the password, the rulesets, then for every ruleset
a campaign, a character (read back typed by its ruleset: ``HitDiceCharacter`` with a
``HitDiceSheet``...), an action and a clock advance with its job; on hit_dice the action
stops on a choice that is answered; each character's log, the campaign's export
imported again (typed), its log as CSV and its recap as Markdown (each text), an advance
until a date (its month a number or a name), a webhook whose secret is rotated; then a
spare character and the campaign are deleted, each with nothing but what the schema
declares (``confirm`` in the query).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_type

from sawbones_client import AuthenticatedClient, Client
from sawbones_client.api.v1 import (
    v1_auth_register_create,
    v1_auth_token_create,
    v1_campaigns_characters_create,
    v1_campaigns_clock_advance_create,
    v1_campaigns_clock_jobs_retrieve,
    v1_campaigns_create,
    v1_campaigns_destroy,
    v1_campaigns_export_retrieve,
    v1_campaigns_import_create,
    v1_campaigns_log_csv_retrieve,
    v1_campaigns_partial_update,
    v1_campaigns_recap_md_retrieve,
    v1_campaigns_webhooks_create,
    v1_campaigns_webhooks_rotate_secret_create,
    v1_characters_actions_create,
    v1_characters_choices_create,
    v1_characters_destroy,
    v1_characters_resolutions_list,
    v1_characters_retrieve,
    v1_invitations_list,
    v1_rulesets_list,
)
from sawbones_client.models import (
    AdvanceOutput,
    CampaignCharactersInputRequest,
    CampaignCharactersInputRequestSheet,
    CampaignExport,
    CampaignImportInputRequest,
    ChoiceInputRequest,
    ClockAdvanceInputRequest,
    ClockJobDetail,
    ConditionMonitorCampaignOutput,
    ConditionMonitorCampaignRequest,
    ConditionMonitorCharacter,
    ConditionMonitorResolution,
    DamageActionRequest,
    DamageActionRequestConditionMonitorDamageParams,
    DamageActionRequestConditionMonitorDamageParamsKindOfDamage,
    DamageActionRequestHitDiceDamageParams,
    DeckahedronCampaignOutput,
    DeckahedronCampaignRequest,
    DeckahedronCampaignRequestOptions,
    DeckahedronCampaignUpdateRequest,
    DeckahedronCharacter,
    DeckahedronResolution,
    HitDiceCampaignOutput,
    HitDiceCampaignRequest,
    HitDiceCharacter,
    HitDiceResolution,
    HitDiceSheet,
    ImportedExportRequest,
    InjuryRollActionRequest,
    OldSchoolCampaignOutput,
    OldSchoolCampaignRequest,
    OldSchoolCharacter,
    OldSchoolResolution,
    RegisterInputRequest,
    RegisterOutput,
    ResolutionPage,
    RestActionRequest,
    SaveActionRequest,
    SaveActionRequestOldSchoolSaveParams,
    SaveActionRequestOldSchoolSaveParamsCategory,
    TokenInputRequest,
    TokenOutput,
    UntilRequest,
    WarbandCampaignOutput,
    WarbandCampaignRequest,
    WarbandCharacter,
    WarbandResolution,
    WebhookCreated,
    WebhookListInputRequest,
)
from sawbones_client.types import Unset

Campaign = (
    HitDiceCampaignRequest
    | DeckahedronCampaignRequest
    | OldSchoolCampaignRequest
    | ConditionMonitorCampaignRequest
    | WarbandCampaignRequest
)
CampaignAnswer = (
    HitDiceCampaignOutput
    | DeckahedronCampaignOutput
    | OldSchoolCampaignOutput
    | ConditionMonitorCampaignOutput
    | WarbandCampaignOutput
)
Action = DamageActionRequest | RestActionRequest | SaveActionRequest | InjuryRollActionRequest
Resolution = (
    HitDiceResolution
    | DeckahedronResolution
    | OldSchoolResolution
    | ConditionMonitorResolution
    | WarbandResolution
)
Character = (
    HitDiceCharacter
    | DeckahedronCharacter
    | OldSchoolCharacter
    | ConditionMonitorCharacter
    | WarbandCharacter
)


def run(
    base_url: str,
    username: str,
    password: str,
    before_choice: Callable[[], object],
    after_choice: Callable[[], object],
    webhook_url: str = "http://127.0.0.1:9/sawbones-hook",
) -> dict[str, list[str]]:
    """The session; ``before_choice`` and ``after_choice`` are called around the action
    that must stop on a choice (the test scripts the dice there). Answers each
    ruleset's log, newest first, as summaries."""
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    registered = v1_auth_register_create.sync(
        client=anonymous, body=RegisterInputRequest(username=username, password=password)
    )
    assert isinstance(registered, RegisterOutput), registered
    assert registered.username == username
    token = v1_auth_token_create.sync(
        client=anonymous, body=TokenInputRequest(username=username, password=password)
    )
    assert isinstance(token, TokenOutput), token
    bot = AuthenticatedClient(
        base_url=base_url, token=token.token, prefix="Token", raise_on_unexpected_status=True
    )

    rulesets = v1_rulesets_list.sync(client=bot)
    assert isinstance(rulesets, list), rulesets
    keys = [ruleset.key for ruleset in rulesets]

    heal_later = DeckahedronCampaignRequestOptions.from_dict({"heal_minutes": 600})
    campaigns: dict[str, Campaign] = {
        "hit_dice": HitDiceCampaignRequest(name="Bot: hit dice", ruleset="hit_dice"),
        "deckahedron": DeckahedronCampaignRequest(
            name="Bot: deckahedron", ruleset="deckahedron", options=heal_later
        ),
        "old_school": OldSchoolCampaignRequest(name="Bot: old school", ruleset="old_school"),
        "condition_monitor": ConditionMonitorCampaignRequest(
            name="Bot: condition monitor", ruleset="condition_monitor"
        ),
        "warband": WarbandCampaignRequest(name="Bot: warband", ruleset="warband"),
    }
    assert sorted(campaigns) == sorted(keys), keys
    sheets: dict[str, dict[str, object]] = {
        "hit_dice": {"level": 2, "hit_dice": 2, "hp": 10},
        "warband": {"warband": "The Grey Company"},
    }
    actions: dict[str, Action] = {
        "hit_dice": DamageActionRequest(
            action="damage", params=DamageActionRequestHitDiceDamageParams(amount=12)
        ),
        "deckahedron": RestActionRequest(action="rest"),
        "old_school": SaveActionRequest(
            action="save",
            params=SaveActionRequestOldSchoolSaveParams(
                category=SaveActionRequestOldSchoolSaveParamsCategory.POISON
            ),
        ),
        "condition_monitor": DamageActionRequest(
            action="damage",
            params=DamageActionRequestConditionMonitorDamageParams(
                amount=2, kind=DamageActionRequestConditionMonitorDamageParamsKindOfDamage.NORMAL
            ),
        ),
        "warband": InjuryRollActionRequest(action="injury_roll"),
    }

    logs: dict[str, list[str]] = {}
    for key in keys:
        campaign = v1_campaigns_create.sync(client=bot, body=campaigns[key])
        assert isinstance(campaign, CampaignAnswer), campaign
        assert campaign.ruleset == key and campaign.my_role == "referee"
        if isinstance(campaign, DeckahedronCampaignOutput):
            # the options typed by the campaign's ruleset (DeckahedronOptions)
            heal_minutes: int = campaign.options.heal_minutes
            assert heal_minutes == 600, heal_minutes
            # a rename need not name the ruleset: the campaign's is meant
            renamed = v1_campaigns_partial_update.sync(
                campaign.id, client=bot, body=DeckahedronCampaignUpdateRequest(name="Bot: deck")
            )
            assert isinstance(renamed, DeckahedronCampaignOutput), renamed
            assert renamed.name == "Bot: deck" and renamed.options.heal_minutes == 600
            campaign = renamed
        sheet = CampaignCharactersInputRequestSheet.from_dict(sheets.get(key, {}))
        character = v1_campaigns_characters_create.sync(
            campaign.id,
            client=bot,
            body=CampaignCharactersInputRequest(name=f"{key} hero", sheet=sheet),
        )
        assert isinstance(character, Character), character

        if key == "hit_dice":
            before_choice()
        resolution = v1_characters_actions_create.sync(character.id, client=bot, body=actions[key])
        if key == "hit_dice":
            after_choice()
        assert isinstance(resolution, Resolution), resolution
        assert resolution.version == character.version + 1
        assert resolution.ruleset == key
        if isinstance(resolution, HitDiceResolution):
            # the outcome typed by the ruleset (HitDiceOutcome): the damage taken
            amount = resolution.outcome.amount
            assert isinstance(amount, int) and amount == 12, amount
            # and what it was asked with, typed too (HitDiceParams)
            asked = resolution.params.amount
            assert isinstance(asked, int) and asked == 12, asked
        if key == "hit_dice":
            choice = resolution.pending_choice
            assert choice is not None, resolution.summary
            option = choice.options[0].key
            answered = v1_characters_choices_create.sync(
                character.id,
                client=bot,
                body=ChoiceInputRequest(choice_id=choice.id, option=option),
            )
            assert isinstance(answered, Resolution), answered
            assert answered.pending_choice is None

        advanced = v1_campaigns_clock_advance_create.sync(
            campaign.id, client=bot, body=ClockAdvanceInputRequest(minutes=60)
        )
        assert isinstance(advanced, AdvanceOutput), advanced
        job = v1_campaigns_clock_jobs_retrieve.sync(campaign.id, advanced.job, client=bot)
        assert isinstance(job, ClockJobDetail), job
        # until a date: the month typed as a number or a name (without a calendar, unread)
        month: int | str = "Bloom" if key == "old_school" else 1
        date = UntilRequest(day=3, month=month)
        assert_type(date.month, int | str | Unset)  # not Any: mypy holds it
        until = v1_campaigns_clock_advance_create.sync(
            campaign.id, client=bot, body=ClockAdvanceInputRequest(until=date)
        )
        assert isinstance(until, AdvanceOutput), until

        page = v1_characters_resolutions_list.sync(character.id, client=bot)
        assert isinstance(page, ResolutionPage), page
        logs[key] = [entry.summary for entry in page.results]

        # the character read back, typed by its ruleset down to its sheet's fields
        typed = v1_characters_retrieve.sync(character.id, client=bot)
        assert isinstance(typed, Character), typed
        assert typed.ruleset == key
        if isinstance(typed, HitDiceCharacter):
            assert isinstance(typed.sheet, HitDiceSheet)
            hp: int = typed.sheet.hp
            assert 0 <= hp <= 10, hp

        export = v1_campaigns_export_retrieve.sync(campaign.id, client=bot)
        assert isinstance(export, CampaignExport), export
        assert export.campaign.ruleset == key
        assert [c.name for c in export.characters] == [f"{key} hero"]
        # the export imported again, typed as the current export version
        copy = v1_campaigns_import_create.sync(
            client=bot,
            body=CampaignImportInputRequest(
                export=ImportedExportRequest.from_dict(export.to_dict())
            ),
        )
        assert isinstance(copy, CampaignAnswer), copy
        assert copy.ruleset == key and copy.my_role == "referee"
        assert v1_invitations_list.sync(client=bot) == []  # nobody named: nobody invited
        # the log as CSV and the recap as Markdown, each read as the text it is
        log_csv = v1_campaigns_log_csv_retrieve.sync(campaign.id, client=bot)
        assert isinstance(log_csv, str) and log_csv.startswith("id,minute,character"), log_csv
        recap = v1_campaigns_recap_md_retrieve.sync(campaign.id, client=bot)
        assert isinstance(recap, str) and "session recap" in recap, recap

        hook = v1_campaigns_webhooks_create.sync(
            campaign.id, client=bot, body=WebhookListInputRequest(url=webhook_url)
        )
        assert isinstance(hook, WebhookCreated), hook
        rotated = v1_campaigns_webhooks_rotate_secret_create.sync(campaign.id, hook.id, client=bot)
        assert isinstance(rotated, WebhookCreated), rotated
        assert rotated.secret != hook.secret

        spare = v1_campaigns_characters_create.sync(
            campaign.id,
            client=bot,
            body=CampaignCharactersInputRequest(name="Spare", sheet=sheet),
        )
        assert isinstance(spare, Character), spare
        gone = v1_characters_destroy.sync_detailed(spare.id, client=bot, confirm="Spare")
        assert gone.status_code == 204, gone.content
        campaign_gone = v1_campaigns_destroy.sync_detailed(
            campaign.id, client=bot, confirm=campaign.name
        )
        assert campaign_gone.status_code == 204, campaign_gone.content
    return logs
