# What the project uses of ijson (it ships no types): rules.logbook.reading.
from collections.abc import Iterator
from typing import IO, Any

backend: str

class JSONError(Exception): ...
class IncompleteJSONError(JSONError): ...

class ObjectBuilder:
    value: Any
    def __init__(self, map_type: type[Any] | None = ...) -> None: ...
    def event(self, event: str, value: Any) -> None: ...

def parse(
    source: IO[bytes] | bytes | str, buf_size: int = ..., *, use_float: bool = ...
) -> Iterator[tuple[str, str, Any]]: ...
def items(
    source: IO[bytes] | bytes | str,
    prefix: str,
    map_type: type[Any] | None = ...,
    buf_size: int = ...,
    *,
    use_float: bool = ...,
) -> Iterator[Any]: ...
