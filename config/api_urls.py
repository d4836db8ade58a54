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

urlpatterns = [
    path("auth/register/", RegisterApi.as_view(), name="api-register"),
    path("auth/token/", TokenApi.as_view(), name="api-token"),
    path("auth/tokens/", TokenListApi.as_view(), name="api-tokens"),
    path("auth/tokens/<int:token_id>/", TokenDetailApi.as_view(), name="api-token-detail"),
    # Play from Discord (docs/discord.md): a person's link, a campaign's channel.
    path("auth/discord/link-code/", DiscordLinkCodeApi.as_view(), name="api-discord-link-code"),
    path("auth/discord/", DiscordLinkApi.as_view(), name="api-discord-link"),
    path("rulesets/", RulesetListApi.as_view(), name="api-rulesets"),
    path("campaigns/", CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/join/", JoinApi.as_view(), name="api-campaign-join"),
    path("campaigns/<int:campaign_id>/", CampaignDetailApi.as_view(), name="api-campaign"),
    path(
        "campaigns/<int:campaign_id>/calendar/",
        CampaignCalendarApi.as_view(),
        name="api-campaign-calendar",
    ),
    path("campaigns/<int:campaign_id>/invites/", InviteCreateApi.as_view(), name="api-invites"),
    path(
        "campaigns/<int:campaign_id>/archive/",
        CampaignArchiveApi.as_view(),
        name="api-campaign-archive",
    ),
    path(
        "campaigns/<int:campaign_id>/unarchive/",
        CampaignUnarchiveApi.as_view(),
        name="api-campaign-unarchive",
    ),
    path(
        "campaigns/<int:campaign_id>/invites/<int:invite_id>/",
        InviteDetailApi.as_view(),
        name="api-invite",
    ),
    path(
        "campaigns/<int:campaign_id>/members/<int:user_id>/",
        MemberDetailApi.as_view(),
        name="api-member",
    ),
    path("campaigns/<int:campaign_id>/leave/", LeaveApi.as_view(), name="api-campaign-leave"),
    path(
        "campaigns/<int:campaign_id>/resolutions/",
        CampaignLogApi.as_view(),
        name="api-campaign-log",
    ),
    path(
        "campaigns/<int:campaign_id>/export/",
        CampaignExportApi.as_view(),
        name="api-campaign-export",
    ),
    path(
        "campaigns/<int:campaign_id>/log.csv",
        CampaignLogCsvApi.as_view(),
        name="api-campaign-log-csv",
    ),
    path("campaigns/import/", CampaignImportApi.as_view(), name="api-campaign-import"),
    path(
        "campaigns/<int:campaign_id>/import-invitations/",
        ImportInvitationListApi.as_view(),
        name="api-import-invitations",
    ),
    path("invitations/", InvitationListApi.as_view(), name="api-invitations"),
    path(
        "invitations/<int:invitation_id>/accept/",
        InvitationAcceptApi.as_view(),
        name="api-invitation-accept",
    ),
    path(
        "invitations/<int:invitation_id>/decline/",
        InvitationDeclineApi.as_view(),
        name="api-invitation-decline",
    ),
    path(
        "campaigns/<int:campaign_id>/recap/",
        CampaignRecapApi.as_view(),
        name="api-campaign-recap",
    ),
    path(
        "campaigns/<int:campaign_id>/recap.md",
        CampaignRecapMarkdownApi.as_view(),
        name="api-campaign-recap-md",
    ),
    path(
        "campaigns/<int:campaign_id>/party-actions/",
        PartyActionApi.as_view(),
        name="api-party-actions",
    ),
    path(
        "campaigns/<int:campaign_id>/characters/",
        CampaignCharactersApi.as_view(),
        name="api-campaign-characters",
    ),
    path("campaigns/<int:campaign_id>/tables/", CampaignTableListApi.as_view(), name="api-tables"),
    # One path per table key (each its own shape in the schema), all named "api-table":
    # reverse("api-table", kwargs={"campaign_id": 1, "key": "diseases"}) finds its own.
    *(
        path(
            f"campaigns/<int:campaign_id>/tables/{key}/",
            table_detail_view(key).as_view(),
            {"key": key},
            name="api-table",
        )
        for key in table_keys()
    ),
    path(
        "characters/<int:character_id>/resolutions/<int:resolution_id>/reveal/",
        RevealApi.as_view(),
        name="api-reveal",
    ),
    path("characters/<int:character_id>/", CharacterDetailApi.as_view(), name="api-character"),
    path("characters/<int:character_id>/actions/", ActionApi.as_view(), name="api-actions"),
    path("characters/<int:character_id>/odds/", OddsApi.as_view(), name="api-odds"),
    path("characters/<int:character_id>/choices/", ChoiceApi.as_view(), name="api-choices"),
    path(
        "characters/<int:character_id>/choices/cancel/",
        ChoiceCancelApi.as_view(),
        name="api-choice-cancel",
    ),
    path("characters/<int:character_id>/level-up/", LevelUpApi.as_view(), name="api-level-up"),
    path("characters/<int:character_id>/correct/", CorrectApi.as_view(), name="api-correct"),
    path("characters/<int:character_id>/retire/", RetireApi.as_view(), name="api-retire"),
    path("characters/<int:character_id>/owner/", OwnerApi.as_view(), name="api-character-owner"),
    path("characters/<int:character_id>/undo/", UndoApi.as_view(), name="api-undo"),
    path("characters/<int:character_id>/redo/", RedoApi.as_view(), name="api-redo"),
    path(
        "characters/<int:character_id>/resolutions/",
        ResolutionListApi.as_view(),
        name="api-resolutions",
    ),
    # The campaign clock (docs/clock.md).
    path(
        "campaigns/<int:campaign_id>/clock/advance/",
        ClockAdvanceApi.as_view(),
        name="api-clock-advance",
    ),
    path(
        "campaigns/<int:campaign_id>/clock/jobs/", ClockJobListApi.as_view(), name="api-clock-jobs"
    ),
    path(
        "campaigns/<int:campaign_id>/clock/jobs/<int:job_id>/",
        ClockJobDetailApi.as_view(),
        name="api-clock-job",
    ),
    path(
        "campaigns/<int:campaign_id>/clock/jobs/<int:job_id>/resume/",
        ClockJobResumeApi.as_view(),
        name="api-clock-job-resume",
    ),
    path("campaigns/<int:campaign_id>/clock/live/", LiveClockApi.as_view(), name="api-clock-live"),
    path("campaigns/<int:campaign_id>/clock/log/", ClockLogApi.as_view(), name="api-clock-log"),
    path("campaigns/<int:campaign_id>/effects/", CampaignEffectsApi.as_view(), name="api-effects"),
    path(
        "campaigns/<int:campaign_id>/dice/seeds/", DiceSeedListApi.as_view(), name="api-dice-seeds"
    ),
    path(
        "campaigns/<int:campaign_id>/dice/rotate/",
        DiceRotateApi.as_view(),
        name="api-dice-rotate",
    ),
    path(
        "campaigns/<int:campaign_id>/dice/export/",
        DiceExportApi.as_view(),
        name="api-dice-export",
    ),
    # Webhooks (docs/webhooks.md).
    path("campaigns/<int:campaign_id>/webhooks/", WebhookListApi.as_view(), name="api-webhooks"),
    path(
        "campaigns/<int:campaign_id>/webhooks/<int:webhook_id>/",
        WebhookDetailApi.as_view(),
        name="api-webhook",
    ),
    path(
        "campaigns/<int:campaign_id>/webhooks/<int:webhook_id>/rotate-secret/",
        WebhookSecretRotateApi.as_view(),
        name="api-webhook-rotate-secret",
    ),
    path(
        "campaigns/<int:campaign_id>/webhooks/<int:webhook_id>/deliveries/",
        WebhookDeliveriesApi.as_view(),
        name="api-webhook-deliveries",
    ),
    path(
        "campaigns/<int:campaign_id>/webhooks/<int:webhook_id>/deliveries/<int:delivery_id>/resend/",
        WebhookResendApi.as_view(),
        name="api-webhook-resend",
    ),
    path(
        "campaigns/<int:campaign_id>/discord/",
        CampaignDiscordApi.as_view(),
        name="api-campaign-discord",
    ),
    # Warband battles (docs/rulesets/warband.md).
    path("campaigns/<int:campaign_id>/battle/", BattleApi.as_view(), name="api-battle"),
    path(
        "campaigns/<int:campaign_id>/battle/next/", BattleNextApi.as_view(), name="api-battle-next"
    ),
    path("campaigns/<int:campaign_id>/battle/end/", BattleEndApi.as_view(), name="api-battle-end"),
]
