"""The log took the play's tables and history (issue 35) without changing them: the app
label ``rules``, the table names, the migration graph; the play keeps no model and no
migration, so a database made before the move needs nothing (``migrate --plan`` says no
operation, ``showmigrations`` is the same)."""

from __future__ import annotations

from django.apps import apps
from django.db.migrations.loader import MigrationLoader

# What the play had before the move (rules/play/tests/test_split_migration.py fills a
# database through this history).
TABLES = {
    "resolution": "rules_resolution",
    "scheduledeffect": "rules_scheduledeffect",
    "campaigntable": "rules_campaigntable",
}
LAST_MIGRATION = ("rules", "0008_resolution_imported_actor")


def test_the_log_is_the_rules_app_with_the_same_tables():
    log = apps.get_app_config("rules")
    assert log.name == "rules.log"
    assert {m._meta.model_name: m._meta.db_table for m in log.get_models()} == TABLES


def test_the_play_owns_no_table_and_no_migration():
    play = apps.get_app_config("play")
    assert play.name == "rules.play"
    assert list(play.get_models()) == []
    loader = MigrationLoader(None, ignore_no_migrations=True)  # from disk only
    assert "play" not in loader.migrated_apps
    assert loader.graph.leaf_nodes("rules") == [LAST_MIGRATION]
    assert not [key for key in loader.disk_migrations if key[0] == "play"]
