"""Python's cycle collector paused while a large batch of objects lives (the clock's
batches: rules.clock.batch, rules.clock.services)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cycle_collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while a batch applies and writes its effects.

    A batch makes some hundred thousand objects that live until its end (sheets, rows,
    messages); as they pile up they set off full collections, each a walk through every
    object of the process, which found nothing to free (bench/clock_advance.py: 11 of
    them, half a second, an eighth of the advance's CPU in this process). Reference
    counting still frees what the batch drops; a cycle it leaves is collected after it.
    A worker's job pauses it for each batch's whole life (rules.clock.services): turned
    on while the batch's objects live, the next allocation would walk them all at once
    (a fifth of a second a batch, 5% of the catch-up), turned on once they are freed it
    finds few.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
