"""The CPU each of some functions takes of its own, per request (issue 39; used by
bench/profile_actions.py ``--functions``).

cProfile times every call and charges each the cost of its timer (a system call for a
CPU clock): functions of many short calls read two to three times their cost, and the
rest in proportion. Here only the functions named are wrapped, each call timed by the
thread's CPU clock; a function's own time is its calls' less the time of the named
functions it called (as cProfile's "tottime", but over the named ones only), so the
figures add up to what the named functions cost in all.

A function is named ``module:qualname`` (``rules.clock.batch:_record``,
``rules.log.sql_writes:ResolutionWriter.add``) and replaced where that module holds it:
a module that imported it by name keeps the original, so name it there too (the module
it is called from).
"""

from __future__ import annotations

import importlib
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class FunctionMeter:
    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.own: dict[str, int] = defaultdict(int)  # ns of the thread's CPU
        self.calls: dict[str, int] = defaultdict(int)
        # the time of each open call's named callees, to take from its own
        self._inner: list[int] = [0]

    def _timed(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        inner, clock = self._inner, time.thread_time_ns

        def run(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            inner.append(0)
            try:
                return function(*args, **kwargs)
            finally:
                spent = clock() - start
                self.own[name] += spent - inner.pop()
                self.calls[name] += 1
                inner[-1] += spent

        return run

    @contextmanager
    def measuring(self) -> Iterator[FunctionMeter]:
        undo: list[tuple[Any, str, Any]] = []
        try:
            for name in self.names:
                module, _, qualname = name.partition(":")
                *path, attribute = qualname.split(".")
                owner: Any = importlib.import_module(module)
                for part in path:
                    owner = getattr(owner, part)
                original = owner.__dict__[attribute]  # as held, to put back
                undo.append((owner, attribute, original))
                timed: Any = self._timed(name, getattr(owner, attribute))
                if isinstance(original, staticmethod | classmethod):
                    # getattr gave the function, or the method bound to its class: no
                    # instance may be passed to it again
                    timed = staticmethod(timed)
                setattr(owner, attribute, timed)
            yield self
        finally:
            for owner, attribute, original in reversed(undo):
                setattr(owner, attribute, original)

    def print(self, requests: int) -> None:
        print(f"{'ms/req':>8}{'calls/req':>10}{'us/call':>9}  function (its own CPU)")
        for name in sorted(self.own, key=self.own.__getitem__, reverse=True):
            own, calls = self.own[name], self.calls[name]
            print(
                f"{own / 1e6 / requests:>8.3f}{calls / requests:>10.1f}"
                f"{own / 1e3 / calls:>9.1f}  {name}"
            )
        total = sum(self.own.values()) / 1e6 / requests
        print(f"{total:>8.3f}  in all, per request")
