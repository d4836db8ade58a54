"""The import reads an export file a row at a time (issue 39, rules.logbook.reading): it
writes what the import of the parsed export writes, refuses what that refuses with the
same words, and never holds the whole log."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Mapping
from typing import IO, Any, cast

import pytest
from django.core.exceptions import ValidationError

from campaigns.models import Campaign
from characters.models import Character
from rules.log.models import CampaignTable, Resolution, ScheduledEffect
from rules.logbook import importing as importing_module
from rules.logbook.export import CHUNK, campaign_export, campaign_export_chunks
from rules.logbook.importing import campaign_import, campaign_import_file
from rules.logbook.reading import IdMap
from rules.logbook.tests.test_log_export import lived_in  # noqa: F401  # the fixture


def export_bytes(campaign: Campaign) -> bytes:
    dumps = lambda value: json.dumps(value, separators=(",", ":")).encode()  # noqa: E731
    return b"".join(campaign_export_chunks(campaign, dumps, b",", b":"))


def rows(campaign: Campaign) -> dict[str, list[dict[str, Any]]]:
    """Every column of every row the import wrote, ids as positions (two campaigns
    compare)."""
    chars = list(Character.objects.filter(campaign=campaign).order_by("pk").values())
    ress = list(Resolution.objects.filter(campaign=campaign).order_by("pk").values())
    effs = list(ScheduledEffect.objects.filter(campaign=campaign).order_by("pk").values())
    where = {
        "character": {row["id"]: n for n, row in enumerate(chars)},
        "resolution": {row["id"]: n for n, row in enumerate(ress)},
        "effect": {row["id"]: n for n, row in enumerate(effs)},
    }
    ids = {
        "id": "",
        "campaign_id": "",
        "character_id": "character",
        "undoes_id": "resolution",
        "created_by_id": "resolution",
        "resolution_id": "resolution",
        "cancelled_by_id": "resolution",
    }

    def plain(row: Mapping[str, Any]) -> dict[str, Any]:
        out = {}
        for name, value in row.items():
            if name.endswith("_at"):  # when the import ran
                out[name] = value is not None
                continue
            if name in ids:
                value = where[ids[name]].get(value) if ids[name] else None
            out[name] = value
        params = out.get("params")
        if isinstance(params, dict):
            params = dict(params)
            for key in ("resolution", "undo"):
                if key in params:
                    params[key] = where["resolution"][params[key]]
            if "scheduled_effect" in params:
                params["scheduled_effect"] = where["effect"][params["scheduled_effect"]]
            if "cancelled_effects" in params:
                params["cancelled_effects"] = [
                    where["effect"][pk] for pk in params["cancelled_effects"]
                ]
            out["params"] = params
        return out

    tables = CampaignTable.objects.filter(campaign=campaign).order_by("key")
    return {
        "characters": [plain(row) for row in chars],
        "resolutions": [plain(row) for row in ress],
        "effects": [plain(row) for row in effs],
        "tables": [{"key": t.key, "data": t.data} for t in tables],
    }


def test_the_file_read_a_row_at_a_time_writes_every_row_the_parsed_export_writes(
    lived_in,  # noqa: F811
    referee,
    outsider,
):
    text = export_bytes(lived_in)
    assert json.loads(text) == json.loads(json.dumps(campaign_export(lived_in)))
    for importer in (referee, outsider):  # their own entries, and someone else's
        whole = campaign_import(user=importer, data=json.loads(text), players={"player": "x"})
        streamed = campaign_import_file(
            user=importer, file=io.BytesIO(text), players={"player": "x"}
        )
        expected = rows(whole)
        assert expected["resolutions"] and expected["effects"]
        assert any(row["undoes_id"] is not None for row in expected["resolutions"])
        assert rows(streamed) == expected
        for field in ("clock", "dice_counter", "options", "calendar", "ruleset"):
            assert getattr(streamed, field) == getattr(whole, field)


def _export(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": "sawbones-campaign",
        "version": 1,
        "campaign": {"name": "X", "ruleset": "old_school"},
        "tables": {},
        "characters": [],
        "resolutions": [],
        "effects": [],
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


BAD = [
    ([1, 2], "this is not a Sawbones campaign export"),
    (_export(format="other"), "this is not a Sawbones campaign export"),
    (_export(version=2), "this export is of version 2, not 1"),
    (_export(version=[1]), "this export is of version [1], not 1"),
    (
        _export(campaign={"name": "X\x00", "ruleset": "old_school"}),
        "the export may not contain NUL characters (U+0000)",
    ),
    (_export(resolutions=[{"id": 1, "params": {"k\x00": 1}}]), "NUL"),
    (_export(resolutions=None), "the export lacks its campaign"),
    (_export(effects={"a": 1}), "the export lacks its campaign"),
    (_export(resolutions=[1, 2, 3, 4]), "at most 3 rows can be imported at once"),
    (_export(resolutions=[{"id": 1, "character": 5}]), "KeyError"),
    (_export(resolutions=[{"id": 2}, {"id": 1}]), "KeyError"),  # not in order: read whole
    (_export(resolutions=[{"character": 5}]), "KeyError 'id'"),
    (
        _export(characters=[{"id": 1, "name": "A", "sheet": {"strength": "tall"}, "version": 1}]),
        "",
    ),
]


@pytest.mark.parametrize(("export", "words"), BAD)
def test_a_bad_file_is_refused_with_the_words_of_the_parsed_one(
    export, words, outsider, monkeypatch
):
    monkeypatch.setattr(importing_module, "MAX_ROWS", 3)
    before = Campaign.objects.count()
    with pytest.raises(ValidationError) as whole:
        campaign_import(user=outsider, data=export)
    with pytest.raises(ValidationError) as streamed:
        campaign_import_file(user=outsider, file=io.BytesIO(json.dumps(export).encode()))
    assert streamed.value.message_dict == whole.value.message_dict
    assert words in " ".join(whole.value.message_dict["data"])
    assert Campaign.objects.count() == before


def test_a_file_that_is_not_json_is_not_an_export(outsider):
    with pytest.raises(ValidationError) as refused:
        campaign_import_file(user=outsider, file=io.BytesIO(b'{"format": "sawb'))
    assert refused.value.message_dict == {"data": ["this is not a Sawbones campaign export"]}


class GeneratedExport(io.RawIOBase):
    """An export of ``entries`` log entries made as it is read, never whole: how far
    each pass has read is known (``position``)."""

    def __init__(self, entries: int, sheet: dict[str, Any]) -> None:
        self.entries, self.sheet = entries, sheet
        self.position = 0
        self._pending = b""
        self._parts: Iterator[bytes] = iter(())
        self.seek(0)

    def _make(self) -> Iterator[bytes]:
        head = _export(
            characters=[{"id": 7, "name": "A", "owner": "a", "sheet": self.sheet, "version": 1}]
        )
        del head["resolutions"], head["effects"]
        yield json.dumps(head).encode()[:-1] + b', "resolutions": ['
        for n in range(1, self.entries + 1):
            row = {
                "id": 10 * n,
                "character": 7,
                "actor": "a",
                "undoes": 10 * (n - 1) if n % 3 == 0 else None,  # some in their chunk
                "batch": None,
                "kind": "undo" if n % 3 == 0 else "edit",
                "action": "rename",
                "params": {"name": f"A{n}", "pad": "x" * 200},
                "rolls": [],
                "summary": f"renamed {n}",
                "outcome": {},
                "sheet_before": self.sheet,
                "sheet_after": self.sheet,
                "version": n,
                "pending_choice": None,
                "clock": n,
                "dice_counter_start": 0,
                "dice_counter_end": 0,
                "revealed": False,
                "elapsed_minutes": 0,
                "said": None,
            }
            yield (b", " if n > 1 else b"") + json.dumps(row).encode()
        yield b'], "effects": []}'

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        assert (offset, whence) == (0, 0)
        self.position, self._pending, self._parts = 0, b"", self._make()
        return 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while len(self._pending) < len(buffer):
            part = next(self._parts, None)
            if part is None:
                break
            self._pending += part
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        self.position += size
        return size


def test_the_import_never_holds_the_whole_log(outsider, lived_in, monkeypatch):  # noqa: F811
    entries = 8 * CHUNK
    sheet = campaign_export(lived_in)["characters"][0]["sheet"]
    source = GeneratedExport(entries, sheet)
    total = sum(len(part) for part in source._make())
    row_bytes = total / entries
    read_when_written: list[tuple[int, int]] = []  # (rows written so far, bytes read)
    written = 0
    real = Resolution.objects.bulk_create
    write_one = Resolution.save

    def bulk_create(objs: list[Resolution], *args: Any, **kwargs: Any) -> Any:
        nonlocal written
        assert len(objs) <= CHUNK
        written += len(objs)
        read_when_written.append((written, source.position))
        return real(objs, *args, **kwargs)

    def save(self: Resolution, *args: Any, **kwargs: Any) -> None:
        nonlocal written
        written += 1
        read_when_written.append((written, source.position))
        write_one(self, *args, **kwargs)

    monkeypatch.setattr(Resolution.objects, "bulk_create", bulk_create)
    monkeypatch.setattr(Resolution, "save", save)
    campaign = campaign_import_file(user=outsider, file=cast(IO[bytes], source))
    assert Resolution.objects.filter(campaign=campaign).count() == entries
    undone = Resolution.objects.filter(campaign=campaign, undoes__isnull=False)
    assert undone.count() == entries // 3
    # Each write comes when the parser has read little more than the rows written: a
    # chunk ahead and its read buffer (64 KiB), never the whole log.
    slack = CHUNK * row_bytes + 2 * 64 * 1024 + 1024
    assert read_when_written[0][1] < total / 2
    for count, read in read_when_written:
        assert read <= count * row_bytes + slack, (count, read)


def test_ids_are_mapped_as_a_dict_maps_them():
    ids = IdMap()
    for old, new in ((1, 100), (5, 105), (5, 106), (9, 109), (3, 103), ("x", 1)):
        ids[old] = new
    assert [ids[1], ids[5], ids[9], ids[3], ids["x"]] == [100, 106, 109, 103, 1]
    assert ids[True] == 100 and ids[9.0] == 109 and ids.get(2) is None
    assert 4 not in ids and 3 in ids
    with pytest.raises(KeyError) as missing:
        ids[7]
    assert str(missing.value) == "7"
