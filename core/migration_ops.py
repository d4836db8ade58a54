"""Operations migrations share. Kept stable: migrations written with them import them."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def move_content_type(model: str, *, from_label: str, to_label: str) -> migrations.RunPython:
    """A model moved between apps keeps its content type (and the permissions on it)
    under the same id, relabelled; reversed, it goes back. A database that already has
    one under the new label (made by Django after a migrate back and forth) keeps both."""

    def move(apps: Any, source: str, target: str) -> None:
        content_type = apps.get_model("contenttypes", "ContentType")
        if not content_type.objects.filter(app_label=target, model=model).exists():
            content_type.objects.filter(app_label=source, model=model).update(app_label=target)

    return migrations.RunPython(
        lambda apps, _editor: move(apps, from_label, to_label),
        lambda apps, _editor: move(apps, to_label, from_label),
    )
