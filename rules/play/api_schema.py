"""The rules' parts of the API schema, built from the ruleset registry for ``extend_schema``.

The views' serializers can only say "``params`` is an object"; the registry knows which
actions exist and what each one's params are, what each ruleset answers in
``GET rulesets/``, and the shape of each editable table:

* :func:`action_request`: the body of ``characters/{id}/actions/`` (and ``odds/``), one
  object per action key discriminated by ``action``. A key offered by several rulesets
  (``damage``, ``heal``) is one object whose ``params`` is any of their schemas.
* :func:`ruleset_answer`: one item of ``GET rulesets/``, discriminated by ``key``.
* :func:`table_data_schema`: what ``PUT tables/{key}/`` takes as ``data``.

The registry's schemas are JSON Schema 2020-12, which OpenAPI 3.1 takes as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from core.openapi import (
    ProxyMap,
    SerializerClass,
    const_field,
    json_schema_field,
    options_component,
    pascal,
    serializer_class,
)
from rules.engine.interface import ActionSpec, Ruleset
from rules.engine.registry import all_rulesets


def _requires_params(schema: Mapping[str, Any]) -> bool:
    return bool(schema.get("required")) or int(schema.get("minProperties", 0)) > 0


def _params_variant(ruleset: Ruleset, spec: ActionSpec) -> dict[str, Any]:
    who = "the referee" if spec.who == "referee" else "the owner or the referee"
    description = " ".join(
        part
        for part in (
            f"{ruleset.name}: {spec.label}.",
            spec.description,
            f"({ruleset.key}; taken by {who}.)",
        )
        if part
    )
    # A stable title (generated clients name their classes after it): key words only.
    title = f"{pascal(ruleset.key)}{pascal(spec.key)}Params"
    return {**spec.params, "title": title, "description": description}


def _action_serializer(key: str, offers: list[tuple[Ruleset, ActionSpec]]) -> SerializerClass:
    variants = [_params_variant(ruleset, spec) for ruleset, spec in offers]
    params: dict[str, Any] = variants[0]
    if len(variants) > 1:
        params = {
            "anyOf": variants,
            "description": "The params of the character's ruleset: "
            + ", ".join(ruleset.key for ruleset, _ in offers),
        }
    name = pascal(key)
    fields = {
        "action": const_field(key, max_length=64),
        "params": json_schema_field(
            params,
            name=f"{name}ParamsField",
            required=all(_requires_params(spec.params) for _, spec in offers),
        ),
        "expected_version": serializers.IntegerField(
            min_value=1,
            required=False,
            help_text="The character's version you saw; 409 if it changed.",
        ),
    }
    doc = "; ".join(f"{ruleset.name} ({ruleset.key}): {spec.label}" for ruleset, spec in offers)
    return serializer_class(f"{name}Action", doc, fields)


def _actions_by_key(rulesets: Iterable[Ruleset]) -> dict[str, list[tuple[Ruleset, ActionSpec]]]:
    by_key: dict[str, list[tuple[Ruleset, ActionSpec]]] = {}
    for ruleset in rulesets:
        for spec in ruleset.actions:
            by_key.setdefault(spec.key, []).append((ruleset, spec))
    return by_key


@cache
def _action_serializers() -> ProxyMap:
    by_key = _actions_by_key(all_rulesets())
    return {key: _action_serializer(key, offers) for key, offers in by_key.items()}


def action_request() -> PolymorphicProxySerializer:
    """One action of the character's ruleset, its params as the registry checks them."""
    return PolymorphicProxySerializer(
        component_name="Action",
        serializers=_action_serializers(),
        resource_type_field_name="action",
    )


class ActionSpecSerializer(serializers.Serializer):
    key = serializers.CharField()
    params = serializers.DictField(help_text="JSON Schema of the params object")
    who = serializers.ChoiceField(choices=["owner", "referee"])
    description = serializers.CharField()

    def get_fields(self) -> dict[str, serializers.Field]:
        # declared here: a class attribute "label" would hide the serializer's own label
        return {**super().get_fields(), "label": serializers.CharField()}


class RulesetSerializer(serializers.Serializer):
    """A ruleset as ``GET rulesets/`` answers it (any ruleset: the output's one style)."""

    key = serializers.CharField()
    name = serializers.CharField()
    actions = ActionSpecSerializer(many=True)
    sheet_schema = serializers.DictField()
    options = serializers.DictField(help_text="campaign options and their defaults")
    tables = serializers.ListField(child=serializers.CharField())


def _ruleset_serializer(ruleset: Ruleset) -> SerializerClass:
    tables: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    if ruleset.tables:
        tables["items"]["enum"] = sorted(ruleset.tables)
    else:
        tables["maxItems"] = 0
    keys = [spec.key for spec in ruleset.actions]
    name = pascal(ruleset.key)
    fields = {
        "key": const_field(ruleset.key),
        "name": const_field(ruleset.name),
        "actions": ActionSpecSerializer(many=True, help_text="In this order: " + ", ".join(keys)),
        "sheet_schema": serializers.DictField(
            help_text="JSON Schema (2020-12) of this ruleset's sheet."
        ),
        "options": options_component(
            ruleset, help_text="The campaign options, each at its default."
        ),
        "tables": json_schema_field(tables, name=f"{name}TablesField"),
    }
    return type(f"{name}Ruleset", (serializers.Serializer,), {"__doc__": ruleset.name, **fields})


@cache
def _ruleset_serializers() -> ProxyMap:
    return {ruleset.key: _ruleset_serializer(ruleset) for ruleset in all_rulesets()}


def ruleset_answer(*, many: bool = False) -> PolymorphicProxySerializer:
    """An item of ``GET rulesets/``: one of the registered rulesets."""
    return PolymorphicProxySerializer(
        component_name="Ruleset",
        serializers=_ruleset_serializers(),
        resource_type_field_name="key",
        many=many,
    )


def table_keys() -> list[str]:
    return sorted({key for ruleset in all_rulesets() for key in ruleset.tables})


def table_schema(key: str) -> dict[str, Any]:
    """Table ``key``'s shape, from the ruleset that has it (a key is one ruleset's)."""
    owners = [ruleset for ruleset in all_rulesets() if key in ruleset.tables]
    if len(owners) != 1:
        raise ValueError(f"table {key!r} belongs to {len(owners)} rulesets, not one")
    return {**owners[0].table_schema(key), "title": f"{owners[0].name}: {key}"}


def table_data_schema() -> dict[str, Any]:
    """Any of the registered tables' shapes (the path's ``key`` says which)."""
    variants = []
    for ruleset in all_rulesets():
        for key in sorted(ruleset.tables):
            schema = ruleset.table_schema(key)
            variants.append({**schema, "title": f"{ruleset.name}: {key}"})
    return {
        "anyOf": variants,
        "description": "The table in its ruleset's shape (see each table's title); "
        "`GET tables/` shows the one in use.",
    }
