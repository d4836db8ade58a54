"""Every page of the web app (server-rendered, htmx), beside the API of api_urls.py."""

from django.urls import include, path

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

urlpatterns = [
    path("", include("web.account_urls")),
    path("live/events/", live_views.live_events, name="live-events"),
    path("campaigns/new/", campaign_views.campaign_new, name="campaign-new"),
    path("campaigns/new/options/", campaign_views.campaign_options, name="campaign-options"),
    path("campaigns/<int:campaign_id>/", campaign_views.campaign_detail, name="campaign"),
    path("campaigns/<int:campaign_id>/live/", campaign_views.campaign_live, name="campaign-live"),
    path("campaigns/<int:campaign_id>/invites/", campaign_views.invite_new, name="invite-new"),
    path(
        "campaigns/<int:campaign_id>/clock/jobs/<int:job_id>/",
        clock_views.clock_job_report,
        name="clock-report",
    ),
    path("campaigns/<int:campaign_id>/party/", party_views.party_page, name="party"),
    path("campaigns/<int:campaign_id>/log/", log_views.campaign_log_page, name="campaign-log"),
    path("campaigns/<int:campaign_id>/dice/", log_views.campaign_dice_page, name="campaign-dice"),
    path(
        "campaigns/<int:campaign_id>/recap/", recap_views.campaign_recap_page, name="campaign-recap"
    ),
    path(
        "campaigns/<int:campaign_id>/tables/", table_views.campaign_tables, name="campaign-tables"
    ),
    path(
        "campaigns/<int:campaign_id>/tables/<str:key>/",
        table_views.campaign_tables,
        name="campaign-table",
    ),
    path("campaigns/import/", manage_views.campaign_import_page, name="campaign-import"),
    path(
        "campaigns/<int:campaign_id>/settings/",
        manage_views.campaign_manage,
        name="campaign-manage",
    ),
    path(
        "campaigns/<int:campaign_id>/settings/calendar/preview/",
        clock_views.calendar_preview,
        name="calendar-preview",
    ),
    path(
        "campaigns/<int:campaign_id>/digest/",
        manage_views.campaign_digest_page,
        name="campaign-digest",
    ),
    path(
        "campaigns/<int:campaign_id>/leave/",
        manage_views.campaign_leave_page,
        name="campaign-leave",
    ),
    # The battle board of a warband campaign (web/views/battles.py).
    path("campaigns/<int:campaign_id>/battle/", battle_views.battle_board, name="battle"),
    path("campaigns/<int:campaign_id>/battle/live/", battle_views.battle_live, name="battle-live"),
    path(
        "campaigns/<int:campaign_id>/battle/start/",
        battle_views.battle_start,
        name="battle-start",
    ),
    path(
        "campaigns/<int:campaign_id>/battle/next/",
        battle_views.battle_next_phase,
        name="battle-next",
    ),
    path("campaigns/<int:campaign_id>/battle/end/", battle_views.battle_stop, name="battle-end"),
    path(
        "campaigns/<int:campaign_id>/battle/units/<int:character_id>/<str:action>/",
        battle_views.battle_unit_action,
        name="battle-unit-action",
    ),
    path(
        "campaigns/<int:campaign_id>/dice/rotate/", campaign_views.dice_rotate, name="dice-rotate"
    ),
    path(
        "campaigns/<int:campaign_id>/archive/",
        campaign_views.campaign_archive_view,
        name="campaign-archive",
    ),
    path(
        "campaigns/<int:campaign_id>/unarchive/",
        campaign_views.campaign_unarchive_view,
        name="campaign-unarchive",
    ),
    path(
        "campaigns/<int:campaign_id>/characters/new/",
        character_views.character_new,
        name="character-new",
    ),
    path("rules/", rules_views.rules_help_index, name="rules-help-index"),
    path("rules/<str:key>/", rules_views.rules_help, name="rules-help"),
    path("join/", campaign_views.join, name="join"),
    path("join/<str:code>/", campaign_views.join, name="join-code"),
    path("characters/<int:character_id>/", character_views.character_detail, name="character"),
    path(
        "characters/<int:character_id>/live/",
        character_views.character_live,
        name="character-live",
    ),
    path(
        "characters/<int:character_id>/actions/<str:action>/",
        character_views.character_action,
        name="character-action",
    ),
    path(
        "characters/<int:character_id>/actions/<str:action>/form/",
        character_views.character_action_form,
        name="character-action-form",
    ),
    path(
        "characters/<int:character_id>/odds/<str:action>/",
        character_views.character_odds,
        name="character-odds",
    ),
    path(
        "characters/<int:character_id>/choice/",
        character_views.character_choice,
        name="character-choice",
    ),
    path(
        "characters/<int:character_id>/choice/cancel/",
        character_views.character_cancel_choice,
        name="character-cancel-choice",
    ),
    path(
        "characters/<int:character_id>/resolutions/<int:resolution_id>/reveal/",
        character_views.character_reveal,
        name="character-reveal",
    ),
    path(
        "characters/<int:character_id>/resolutions/<int:resolution_id>/dice/",
        character_views.resolution_dice,
        name="resolution-dice",
    ),
    path(
        "characters/<int:character_id>/undo/",
        character_views.character_undo,
        name="character-undo",
    ),
    path(
        "characters/<int:character_id>/edit/",
        character_edit_views.character_edit,
        name="character-edit",
    ),
    path(
        "characters/<int:character_id>/redo/",
        character_views.character_redo,
        name="character-redo",
    ),
    path("campaigns/<int:campaign_id>/webhooks/", webhook_views.webhook_new, name="webhook-new"),
    path(
        "campaigns/<int:campaign_id>/webhooks/<int:webhook_id>/remove/",
        webhook_views.webhook_remove,
        name="webhook-remove",
    ),
    path(
        "campaigns/<int:campaign_id>/webhooks/<int:webhook_id>/deliveries/<int:delivery_id>/resend/",
        webhook_views.webhook_resend,
        name="webhook-resend",
    ),
]
