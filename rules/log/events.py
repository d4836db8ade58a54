"""What the play tells a campaign's webhooks (docs/webhooks.md): every resolution and
every decision left waiting.

The one publisher of resolutions: both places that write resolutions call it in their
writing transaction (``rules.play.services.persist_result`` for every action, choice,
undo, edit and battle step; the clock's batch writer for applied effects), and
``webhooks.services.events_record`` delivers after the commit, building nothing for a
campaign without webhooks. The clock's own events are ``rules.clock.events``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from characters.choices import public_choice
from rules.log.models import Resolution
from rules.log.selectors import resolution_view
from webhooks.services import events_record


def publish_resolutions(
    campaign_id: int,
    ruleset_key: str,
    resolutions: Sequence[Resolution] | Callable[[], Sequence[Resolution]],
) -> None:
    """``resolution.created`` for each (as the referee sees it: the referee registered
    the webhook), and ``choice.pending`` after one that leaves a decision waiting.
    ``resolutions`` may be a function that makes them, called only for a campaign with
    webhooks (the clock's batch holds plain rows: rules.log.rows)."""

    def events() -> list[tuple[str, dict[str, Any]]]:
        built: list[tuple[str, dict[str, Any]]] = []
        for resolution in resolutions() if callable(resolutions) else resolutions:
            built.append(
                (
                    "resolution.created",
                    resolution_view(
                        resolution, ruleset_key=ruleset_key, viewer_is_referee=True, english=True
                    ),
                )
            )
            if resolution.pending_choice is not None:
                built.append(
                    (
                        "choice.pending",
                        {
                            "character": resolution.character_id,
                            "resolution": resolution.pk,
                            "choice": public_choice(resolution.pending_choice, english=True),
                        },
                    )
                )
        return built

    if callable(resolutions) or resolutions:
        events_record(campaign_id=campaign_id, events=events)
