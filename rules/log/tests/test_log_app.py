"""The log took the play's tables and history (issue 35) without changing them: the app
label ``rules``, the table names, the migration graph; the play keeps no model and no
migration, so a database made before the move needed nothing (``migrate --plan`` said no
operation, ``showmigrations`` was the same). The one migration since is Django's state
only (0009: RESTRICT instead of PROTECT on ``undoes``)."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db import connection
from django.db.migrations.loader import MigrationLoader

# What the play had before the move (rules/play/tests/test_split_migration.py fills a
# database through this history).
TABLES = {
    "resolution": "rules_resolution",
    "scheduledeffect": "rules_scheduledeffect",
    "campaigntable": "rules_campaigntable",
}
# 0011, 0012: fewer indexes; 0013: the effects index in the order they apply; 0014: the
# large JSON left out of ANALYZE
LAST_MIGRATION = ("rules", "0015_log_actor_and_batch_indexed_where_set")


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


def test_the_only_migration_since_the_move_runs_no_sql():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    before = loader.project_state(("rules", "0008_resolution_imported_actor")).apps
    after = loader.project_state(LAST_MIGRATION).apps
    old = before.get_model("rules", "resolution")._meta.get_field("undoes")
    new = after.get_model("rules", "resolution")._meta.get_field("undoes")
    # Django's own test for "this change alters the column": it does not
    editor: Any = connection.SchemaEditorClass(connection, collect_sql=True)
    assert not editor._field_should_be_altered(old, new)
