"""Every endpoint of the REST API (API.md), under /api/v1/."""

from django.urls import path

from accounts.api import (
    DiscordLinkApi,
    DiscordLinkCodeApi,
    RegisterApi,
    TokenApi,
    TokenDetailApi,
    TokenListApi,
)
from campaigns.api import (
    CampaignCalendarApi,
    CampaignDetailApi,
    CampaignListApi,
    CampaignUnarchiveApi,
    DiceSeedListApi,
    InviteCreateApi,
    InviteDetailApi,
    JoinApi,
)
from characters.api import LeaveApi, MemberDetailApi
from core.urls import CAMPAIGN, CHARACTER, DELIVERY, INVITATION, WEBHOOK, paths
from discord_play.api import CampaignDiscordApi
from rules.battles.api import BattleApi, BattleEndApi, BattleNextApi
from rules.clock.api import (
    CampaignEffectsApi,
    ClockAdvanceApi,
    ClockJobDetailApi,
    ClockJobListApi,
    ClockJobResumeApi,
    ClockLogApi,
    LiveClockApi,
)
from rules.logbook.api import (
    CampaignExportApi,
    CampaignImportApi,
    CampaignLogApi,
    CampaignLogCsvApi,
    CampaignRecapApi,
    CampaignRecapMarkdownApi,
)
from rules.logbook.invitation_api import (
    ImportInvitationListApi,
    InvitationAcceptApi,
    InvitationDeclineApi,
    InvitationListApi,
)
from rules.play.api import (
    ActionApi,
    CampaignTableListApi,
    ChoiceApi,
    ChoiceCancelApi,
    DiceExportApi,
    OddsApi,
    RedoApi,
    ResolutionListApi,
    RevealApi,
    RulesetListApi,
    UndoApi,
    table_detail_view,
)
from rules.play.api_schema import table_keys
from rules.play.campaign_api import CampaignArchiveApi, DiceRotateApi
from rules.play.character_api import (
    CampaignCharactersApi,
    CharacterDetailApi,
    CorrectApi,
    LevelUpApi,
    OwnerApi,
    RetireApi,
)
from rules.play.party_api import PartyActionApi
from webhooks.api import (
    WebhookDeliveriesApi,
    WebhookDetailApi,
    WebhookListApi,
    WebhookResendApi,
    WebhookSecretRotateApi,
)

JOB = CAMPAIGN + "clock/jobs/<int:job_id>/"

urlpatterns = [
    *paths(
        ("auth/register/", RegisterApi, "api-register"),
        ("auth/token/", TokenApi, "api-token"),
        ("auth/tokens/", TokenListApi, "api-tokens"),
        ("auth/tokens/<int:token_id>/", TokenDetailApi, "api-token-detail"),
        # Play from Discord (docs/discord.md): a person's link, a campaign's channel.
        ("auth/discord/link-code/", DiscordLinkCodeApi, "api-discord-link-code"),
        ("auth/discord/", DiscordLinkApi, "api-discord-link"),
        ("rulesets/", RulesetListApi, "api-rulesets"),
        ("campaigns/", CampaignListApi, "api-campaigns"),
        ("campaigns/join/", JoinApi, "api-campaign-join"),
        (CAMPAIGN, CampaignDetailApi, "api-campaign"),
        (CAMPAIGN + "calendar/", CampaignCalendarApi, "api-campaign-calendar"),
        (CAMPAIGN + "invites/", InviteCreateApi, "api-invites"),
        (CAMPAIGN + "archive/", CampaignArchiveApi, "api-campaign-archive"),
        (CAMPAIGN + "unarchive/", CampaignUnarchiveApi, "api-campaign-unarchive"),
        (CAMPAIGN + "invites/<int:invite_id>/", InviteDetailApi, "api-invite"),
        (CAMPAIGN + "members/<int:user_id>/", MemberDetailApi, "api-member"),
        (CAMPAIGN + "leave/", LeaveApi, "api-campaign-leave"),
        (CAMPAIGN + "resolutions/", CampaignLogApi, "api-campaign-log"),
        (CAMPAIGN + "export/", CampaignExportApi, "api-campaign-export"),
        (CAMPAIGN + "log.csv", CampaignLogCsvApi, "api-campaign-log-csv"),
        ("campaigns/import/", CampaignImportApi, "api-campaign-import"),
        (CAMPAIGN + "import-invitations/", ImportInvitationListApi, "api-import-invitations"),
        ("invitations/", InvitationListApi, "api-invitations"),
        (INVITATION + "accept/", InvitationAcceptApi, "api-invitation-accept"),
        (INVITATION + "decline/", InvitationDeclineApi, "api-invitation-decline"),
        (CAMPAIGN + "recap/", CampaignRecapApi, "api-campaign-recap"),
        (CAMPAIGN + "recap.md", CampaignRecapMarkdownApi, "api-campaign-recap-md"),
        (CAMPAIGN + "party-actions/", PartyActionApi, "api-party-actions"),
        (CAMPAIGN + "characters/", CampaignCharactersApi, "api-campaign-characters"),
        (CAMPAIGN + "tables/", CampaignTableListApi, "api-tables"),
    ),
    # One path per table key (each its own shape in the schema), all named "api-table":
    # reverse("api-table", kwargs={"campaign_id": 1, "key": "diseases"}) finds its own.
    *(
        path(
            f"{CAMPAIGN}tables/{key}/",
            table_detail_view(key).as_view(),
            {"key": key},
            name="api-table",
        )
        for key in table_keys()
    ),
    *paths(
        (CHARACTER + "resolutions/<int:resolution_id>/reveal/", RevealApi, "api-reveal"),
        (CHARACTER, CharacterDetailApi, "api-character"),
        (CHARACTER + "actions/", ActionApi, "api-actions"),
        (CHARACTER + "odds/", OddsApi, "api-odds"),
        (CHARACTER + "choices/", ChoiceApi, "api-choices"),
        (CHARACTER + "choices/cancel/", ChoiceCancelApi, "api-choice-cancel"),
        (CHARACTER + "level-up/", LevelUpApi, "api-level-up"),
        (CHARACTER + "correct/", CorrectApi, "api-correct"),
        (CHARACTER + "retire/", RetireApi, "api-retire"),
        (CHARACTER + "owner/", OwnerApi, "api-character-owner"),
        (CHARACTER + "undo/", UndoApi, "api-undo"),
        (CHARACTER + "redo/", RedoApi, "api-redo"),
        (CHARACTER + "resolutions/", ResolutionListApi, "api-resolutions"),
        # The campaign clock (docs/clock.md).
        (CAMPAIGN + "clock/advance/", ClockAdvanceApi, "api-clock-advance"),
        (CAMPAIGN + "clock/jobs/", ClockJobListApi, "api-clock-jobs"),
        (JOB, ClockJobDetailApi, "api-clock-job"),
        (JOB + "resume/", ClockJobResumeApi, "api-clock-job-resume"),
        (CAMPAIGN + "clock/live/", LiveClockApi, "api-clock-live"),
        (CAMPAIGN + "clock/log/", ClockLogApi, "api-clock-log"),
        (CAMPAIGN + "effects/", CampaignEffectsApi, "api-effects"),
        (CAMPAIGN + "dice/seeds/", DiceSeedListApi, "api-dice-seeds"),
        (CAMPAIGN + "dice/rotate/", DiceRotateApi, "api-dice-rotate"),
        (CAMPAIGN + "dice/export/", DiceExportApi, "api-dice-export"),
        # Webhooks (docs/webhooks.md).
        (CAMPAIGN + "webhooks/", WebhookListApi, "api-webhooks"),
        (WEBHOOK, WebhookDetailApi, "api-webhook"),
        (WEBHOOK + "rotate-secret/", WebhookSecretRotateApi, "api-webhook-rotate-secret"),
        (WEBHOOK + "deliveries/", WebhookDeliveriesApi, "api-webhook-deliveries"),
        (DELIVERY + "resend/", WebhookResendApi, "api-webhook-resend"),
        (CAMPAIGN + "discord/", CampaignDiscordApi, "api-campaign-discord"),
        # Warband battles (docs/rulesets/warband.md).
        (CAMPAIGN + "battle/", BattleApi, "api-battle"),
        (CAMPAIGN + "battle/next/", BattleNextApi, "api-battle-next"),
        (CAMPAIGN + "battle/end/", BattleEndApi, "api-battle-end"),
    ),
]
