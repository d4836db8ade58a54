"""An export read a row at a time (issue 39): what ``campaign_import`` reads it through.

An export of a long campaign is a document of a hundred MiB and more; parsed whole it
takes several times that in memory. A file is read here with ijson, an incremental JSON
parser: one pass (:func:`scan`) keeps the small parts whole (the format, the version, the
campaign, its tables and characters: the *head*) and of the log and the effects only
what the import checks before it writes anything (how many rows, whether a text holds a
NUL, whether the log is in the order of its ids); each later pass yields the rows of one
array (:meth:`ExportFile.rows`), built one at a time. An export already parsed (the API's
body, under its 1 MiB limit; the import page's file) is read through the same passes
(:class:`ExportData`), so the checks, their answers and the rows written are one code.

A file whose log is not in the order of its ids, or that names the log or the effects
twice, is not one the export writes (rules.logbook.export.campaign_export_chunks): it is
read whole, as every file was before, so it is imported as it was.
"""

from __future__ import annotations

import json
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

import ijson

Event = tuple[str, str, Any]
ROWS = ("resolutions", "effects")  # the arrays read a row at a time
_STARTS = ("start_map", "start_array")
_ENDS = ("end_map", "end_array")
_KINDS = {"start_map": "object", "start_array": "array"}
_MISSING = object()


@dataclass
class Scan:
    """What one pass over the export found: the head whole, of the rows their number."""

    is_object: bool = False
    head: dict[str, Any] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)  # the rows' key -> "array", ...
    counts: dict[str, int] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)  # how often each row key comes
    nul: bool = False  # a text (a key or a value) holds U+0000
    in_order: bool = True  # the log's ids are whole numbers, none less than the one before


def scan(events: Iterator[Event]) -> Scan:
    """The export's head and what the import checks of its rows, in one pass of events
    (ijson's ``parse``); no row is held."""
    found = Scan()
    first = next(events, None)
    if first is None or first[1] != "start_map":
        return found
    found.is_object = True
    depth, key = 1, ""
    builder: ijson.ObjectBuilder | None = None
    last_id: Any = None
    row_id: Any = _MISSING
    for prefix, event, value in events:
        if event in ("string", "map_key") and "\x00" in value:
            found.nul = True
        if depth == 1:
            if event == "map_key":
                key = value
                if key in ROWS:
                    found.seen[key] = found.seen.get(key, 0) + 1
                continue
            if event == "end_map":
                break
            # the start of ``key``'s value
            if key in ROWS:
                found.kinds[key] = _KINDS.get(event, "other")
                found.counts[key] = 0
            else:
                builder = ijson.ObjectBuilder()
                builder.event(event, value)
        elif builder is not None:
            builder.event(event, value)
        elif depth == 2 and event not in _ENDS:  # a row begins
            found.counts[key] += 1
            if key == "resolutions":
                row_id = _MISSING
                if event != "start_map":
                    found.in_order = False
        elif key == "resolutions" and depth == 3 and prefix == "resolutions.item.id":
            if event not in ("map_key", *_ENDS):  # the row's id (the last one given)
                row_id = value if event not in _STARTS else _MISSING
        elif key == "resolutions" and depth == 3 and event == "end_map":  # the row ends
            if type(row_id) is not int or (last_id is not None and row_id < last_id):
                found.in_order = False
            last_id = row_id
        if event in _STARTS:
            depth += 1
        elif event in _ENDS:
            depth -= 1
        if depth == 1 and builder is not None:
            found.head[key] = builder.value
            builder = None
    return found


def value_events(value: Any, prefix: str = "") -> Iterator[Event]:
    """A parsed JSON value as the events ijson's ``parse`` gives of its text."""
    if isinstance(value, dict):
        yield prefix, "start_map", None
        for key, item in value.items():
            yield prefix, "map_key", key
            yield from value_events(item, f"{prefix}.{key}" if prefix else str(key))
        yield prefix, "end_map", None
    elif isinstance(value, list | tuple):
        yield prefix, "start_array", None
        for item in value:
            yield from value_events(item, f"{prefix}.item" if prefix else "item")
        yield prefix, "end_array", None
    elif value is None:
        yield prefix, "null", None
    elif isinstance(value, bool):
        yield prefix, "boolean", value
    elif isinstance(value, int | float):
        yield prefix, "number", value
    else:
        yield prefix, "string", value


class ExportSource(Protocol):
    def scan(self) -> Scan: ...

    def rows(self, key: str) -> Iterator[Any]:
        """The rows of ``resolutions`` (in the order of their ids) or ``effects``, once
        :meth:`scan` found them an array."""
        ...


class ExportData:
    """An export parsed already (the API's body, the import page's file)."""

    def __init__(self, data: Any) -> None:
        self.data = data

    def scan(self) -> Scan:
        found = scan(value_events(self.data))
        found.in_order = True  # rows() sorts the log, as the import always did
        return found

    def rows(self, key: str) -> Iterator[Any]:
        rows = self.data[key]
        if key == "resolutions":  # an error (a row without an id) is the import's 400
            return iter(sorted(rows, key=lambda row: row["id"]))
        return iter(rows)


class ExportFile:
    """An export in a file opened in binary (seekable: each pass reads it again)."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        self.whole: ExportData | None = None  # a file not as the export writes it

    def _events(self) -> Iterator[Event]:
        self.file.seek(0)
        events: Iterator[Event] = ijson.parse(self.file, use_float=True)
        return events

    def scan(self) -> Scan:
        try:
            found = scan(self._events())
        except ijson.JSONError:  # not JSON: not an export (the import says so)
            return Scan()
        if found.in_order and all(found.seen.get(key, 0) <= 1 for key in ROWS):
            return found
        self.file.seek(0)
        self.whole = ExportData(json.load(self.file))
        return self.whole.scan()

    def rows(self, key: str) -> Iterator[Any]:
        if self.whole is not None:
            return self.whole.rows(key)
        self.file.seek(0)
        rows: Iterator[Any] = ijson.items(self.file, f"{key}.item", use_float=True)
        return rows


class IdMap:
    """The export's ids -> the new rows' ids. Ids given in ascending order (the export's)
    are kept in two arrays, 16 bytes a row, looked up by bisection; any other in a dict.
    Looked up as a dict would be: ``True`` and ``1.0`` find 1; a missing id is a
    ``KeyError`` of it."""

    def __init__(self) -> None:
        self._old = array("q")
        self._new = array("q")
        self._other: dict[Any, int] = {}

    def __setitem__(self, old: Any, new: int) -> None:
        if (
            not self._other
            and type(old) is int
            and -(2**63) <= old < 2**63
            and (not self._old or old >= self._old[-1])
        ):
            self._old.append(old)
            self._new.append(new)
        else:
            self._other[old] = new

    def get(self, old: Any, default: Any = None) -> Any:
        if old in self._other:
            return self._other[old]
        if isinstance(old, float) and old.is_integer():
            old = int(old)
        if isinstance(old, int) and -(2**63) <= old < 2**63:
            at = bisect_right(self._old, int(old)) - 1
            if at >= 0 and self._old[at] == old:
                return self._new[at]
        return default

    def __getitem__(self, old: Any) -> int:
        new = self.get(old, _MISSING)
        if new is _MISSING:
            raise KeyError(old)
        return int(new)

    def __contains__(self, old: Any) -> bool:
        return self.get(old, _MISSING) is not _MISSING
