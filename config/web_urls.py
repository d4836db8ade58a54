"""Every page of the web app (server-rendered, htmx), beside the API of api_urls.py."""

from django.urls import include, path

from core.urls import CAMPAIGN, CHARACTER, DELIVERY, WEBHOOK, paths
from web.views import battles as battle_views
from web.views import campaigns as campaign_views
from web.views import character_edit as character_edit_views
from web.views import characters as character_views
from web.views import clock as clock_views
from web.views import live as live_views
from web.views import log as log_views
from web.views import manage as manage_views
from web.views import party as party_views
from web.views import recap as recap_views
from web.views import rulebook as rules_views
from web.views import tables as table_views
from webhooks import views as webhook_views

SETTINGS = CAMPAIGN + "settings/"
UNIT = CAMPAIGN + "battle/units/<int:character_id>/"
ACTION = CHARACTER + "actions/<str:action>/"
CHOICE = CHARACTER + "choice/"
RESOLUTION = CHARACTER + "resolutions/<int:resolution_id>/"

urlpatterns = [
    path("", include("web.account_urls")),
    *paths(
        ("live/events/", live_views.live_events, "live-events"),
        ("campaigns/new/", campaign_views.campaign_new, "campaign-new"),
        ("campaigns/new/options/", campaign_views.campaign_options, "campaign-options"),
        (CAMPAIGN, campaign_views.campaign_detail, "campaign"),
        (CAMPAIGN + "live/", campaign_views.campaign_live, "campaign-live"),
        (CAMPAIGN + "invites/", campaign_views.invite_new, "invite-new"),
        (CAMPAIGN + "clock/jobs/<int:job_id>/", clock_views.clock_job_report, "clock-report"),
        (CAMPAIGN + "party/", party_views.party_page, "party"),
        (CAMPAIGN + "log/", log_views.campaign_log_page, "campaign-log"),
        (CAMPAIGN + "dice/", log_views.campaign_dice_page, "campaign-dice"),
        (CAMPAIGN + "recap/", recap_views.campaign_recap_page, "campaign-recap"),
        (CAMPAIGN + "tables/", table_views.campaign_tables, "campaign-tables"),
        (CAMPAIGN + "tables/<str:key>/", table_views.campaign_tables, "campaign-table"),
        ("campaigns/import/", manage_views.campaign_import_page, "campaign-import"),
        (SETTINGS, manage_views.campaign_manage, "campaign-manage"),
        (SETTINGS + "calendar/preview/", clock_views.calendar_preview, "calendar-preview"),
        (CAMPAIGN + "digest/", manage_views.campaign_digest_page, "campaign-digest"),
        (CAMPAIGN + "leave/", manage_views.campaign_leave_page, "campaign-leave"),
        # The battle board of a warband campaign (web/views/battles.py).
        (CAMPAIGN + "battle/", battle_views.battle_board, "battle"),
        (CAMPAIGN + "battle/live/", battle_views.battle_live, "battle-live"),
        (CAMPAIGN + "battle/start/", battle_views.battle_start, "battle-start"),
        (CAMPAIGN + "battle/next/", battle_views.battle_next_phase, "battle-next"),
        (CAMPAIGN + "battle/end/", battle_views.battle_stop, "battle-end"),
        (UNIT + "<str:action>/", battle_views.battle_unit_action, "battle-unit-action"),
        (CAMPAIGN + "dice/rotate/", campaign_views.dice_rotate, "dice-rotate"),
        (CAMPAIGN + "archive/", campaign_views.campaign_archive_view, "campaign-archive"),
        (CAMPAIGN + "unarchive/", campaign_views.campaign_unarchive_view, "campaign-unarchive"),
        (CAMPAIGN + "characters/new/", character_views.character_new, "character-new"),
        ("rules/", rules_views.rules_help_index, "rules-help-index"),
        ("rules/<str:key>/", rules_views.rules_help, "rules-help"),
        ("join/", campaign_views.join, "join"),
        ("join/<str:code>/", campaign_views.join, "join-code"),
        (CHARACTER, character_views.character_detail, "character"),
        (CHARACTER + "live/", character_views.character_live, "character-live"),
        (ACTION, character_views.character_action, "character-action"),
        (ACTION + "form/", character_views.character_action_form, "character-action-form"),
        (CHARACTER + "odds/<str:action>/", character_views.character_odds, "character-odds"),
        (CHOICE, character_views.character_choice, "character-choice"),
        (CHOICE + "cancel/", character_views.character_cancel_choice, "character-cancel-choice"),
        (RESOLUTION + "reveal/", character_views.character_reveal, "character-reveal"),
        (RESOLUTION + "dice/", character_views.resolution_dice, "resolution-dice"),
        (CHARACTER + "undo/", character_views.character_undo, "character-undo"),
        (CHARACTER + "edit/", character_edit_views.character_edit, "character-edit"),
        (CHARACTER + "redo/", character_views.character_redo, "character-redo"),
        (CAMPAIGN + "webhooks/", webhook_views.webhook_new, "webhook-new"),
        (WEBHOOK + "remove/", webhook_views.webhook_remove, "webhook-remove"),
        (DELIVERY + "resend/", webhook_views.webhook_resend, "webhook-resend"),
    ),
]
