"""A hot query's SQL compiled by Django once per process, run again with new values.

Django compiles a queryset's SQL on every call: for the row an action locks (the
character, its campaign and the player's membership in one statement) that took 330 µs
of CPU, more than PostgreSQL spends running it (bench/actions.py, issue 39). A
:class:`CompiledQuery` compiles its queryset the first time, with a marker value in each
slot the caller fills, then runs the same text with the caller's values and makes the
model instances as Django's own iterator does (its converters, its ``select_related``
populators, its annotations). Only for a queryset whose SQL text does not depend on the
values (a filter on a key, an annotation with parameters): ``test_compiled.py`` compares
each use with the queryset's own answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]

M = TypeVar("M", bound=Model)

# Marker values the slots are compiled with, found again among the compiled parameters:
# numbers no key or count of ours takes (slot n is -(MARK + n)).
_MARK = 7_330_000_001


@dataclass(frozen=True)
class _Compiled:
    sql: str
    # each parameter: the slot it takes (its name) or a value fixed at compile time
    params: tuple[tuple[str | None, Any], ...]
    compiler: Any
    converters: Any
    init_list: list[str]
    model_span: tuple[int, int]
    populators: list[Any]
    annotations: dict[str, int]


class CompiledQuery(Generic[M]):
    """``build(**slots)`` makes the queryset; :meth:`first` runs it with ``slots``' values.

    ``build`` gets an integer marker for each slot and must use it only as a parameter
    (``filter(pk=id)``, a ``RawSQL`` parameter), never in the text or to decide what to
    build. Compiled per database alias, inside the caller's transaction when the
    queryset locks (``select_for_update``)."""

    def __init__(self, build: Callable[..., QuerySet[M]], *slots: str) -> None:
        self._build = build
        self._slots = slots
        self._compiled: dict[str, _Compiled] = {}

    def _compile(self, using: str) -> _Compiled:
        marks = {name: -(_MARK + n) for n, name in enumerate(self._slots)}
        queryset = self._build(**marks)
        compiler = queryset.query.get_compiler(using=using)
        sql, raw_params = compiler.as_sql()
        by_mark = {mark: name for name, mark in marks.items()}
        params = tuple(
            (by_mark[p], None) if type(p) is int and p in by_mark else (None, p) for p in raw_params
        )
        missing = set(self._slots) - {name for name, _ in params if name is not None}
        if missing:
            raise ValueError(f"slots not found among the parameters: {sorted(missing)}")
        select, klass_info = compiler.select, compiler.klass_info
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        fields = [s[0] for s in select[0 : compiler.col_count]]
        return _Compiled(
            sql=sql,
            params=params,
            compiler=compiler,
            converters=compiler.get_converters(fields),
            init_list=[f[0].target.attname for f in select[start:end]],
            model_span=(start, end),
            populators=get_related_populators(klass_info, select, using),
            annotations=dict(compiler.annotation_col_map),
        )

    def first(self, using: str = "default", **values: Any) -> M | None:
        """The first row as a model instance (as ``queryset.first()`` without its
        ordering: the queryset's own), or None."""
        compiled = self._compiled.get(using)
        if compiled is None:
            compiled = self._compiled[using] = self._compile(using)
        params = [values[name] if name is not None else value for name, value in compiled.params]
        with connections[using].cursor() as cursor:
            cursor.execute(compiled.sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        if compiled.converters:
            [row] = compiled.compiler.apply_converters([row], compiled.converters)
        start, end = compiled.model_span
        model: type[M] = compiled.compiler.klass_info["model"]
        obj = model.from_db(using, compiled.init_list, row[start:end])
        for populator in compiled.populators:
            populator.populate(row, obj)
        for name, position in compiled.annotations.items():
            setattr(obj, name, row[position])
        return obj
