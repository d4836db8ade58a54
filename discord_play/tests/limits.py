"""Discord's documented limits on a message (its developer documentation: "Embed Limits",
message components, allowed mentions), checked on what Sawbones sends."""

from __future__ import annotations

from typing import Any


def check_message(data: dict[str, Any]) -> None:
    """Fail on anything of ``data`` (a message's JSON) beyond Discord's limits."""
    assert data.get("allowed_mentions") == {"parse": []}, "every message pings nobody"
    assert len(data.get("content", "")) <= 2000
    embeds = data.get("embeds", [])
    assert len(embeds) <= 10
    total = 0
    for embed in embeds:
        assert len(embed.get("title", "")) <= 256
        assert len(embed.get("description", "")) <= 4096
        fields = embed.get("fields", [])
        assert len(fields) <= 25
        for field in fields:
            assert 0 < len(field["name"]) <= 256
            assert 0 < len(field["value"]) <= 1024
        footer = embed.get("footer", {}).get("text", "")
        author = embed.get("author", {}).get("name", "")
        assert len(footer) <= 2048 and len(author) <= 256
        if "url" in embed:
            assert embed["url"].startswith(("https://", "http://"))
        total += len(embed.get("title", "")) + len(embed.get("description", ""))
        total += sum(len(f["name"]) + len(f["value"]) for f in fields) + len(footer) + len(author)
    assert total <= 6000, f"{total} characters in the embeds"
    rows = data.get("components", [])
    assert len(rows) <= 5
    for row in rows:
        assert row["type"] == 1 and len(row["components"]) <= 5
        for button in row["components"]:
            assert button["type"] == 2 and 0 < len(button["label"]) <= 80
            assert 0 < len(button["custom_id"]) <= 100
