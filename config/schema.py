"""drf-spectacular postprocessing hook: the parts of the OpenAPI schema only the rules know.

The serializers can only say "``params`` is an object" and "``options`` is an object";
the ruleset registry knows exactly which actions exist, what each one's params are and
which campaign options each ruleset has. This hook writes that into the schema:

* ``POST characters/{id}/actions/``: the body is a ``oneOf`` with one object per action
  key (``action`` fixed to the key, ``params`` the action's JSON Schema from the
  registry, optional ``expected_version``), with a discriminator on ``action``. A key
  offered by several rulesets (``damage``, ``heal``) is one entry whose ``params`` is
  an ``anyOf`` of each ruleset's schema, so the ``oneOf`` stays exclusive.
* ``GET rulesets/``: each item is one of the registered rulesets (discriminated by
  ``key``) with its action keys, its options and their defaults, its tables.
* ``POST campaigns/``: one body per ruleset with that ruleset's options;
  ``PATCH campaigns/{id}/``: ``options`` is one of the rulesets' option objects.
* Error answers (API.md): 400, 403, 404 and 409 where an operation can give them.

The registry's schemas are JSON Schema 2020-12. OpenAPI 3.1 takes them as they are;
for OpenAPI 3.0 (drf-spectacular's default ``OAS_VERSION``) :func:`to_openapi_30`
rewrites them into 3.0's subset and keeps what 3.0 cannot say under ``x-`` keys.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from config import api_urls
from rules.engine.interface import ActionSpec, Ruleset
from rules.engine.registry import all_rulesets

API_PREFIX = "/api/v1/"
REF = "#/components/schemas/"

# Answers an operation can give besides the ones every operation of its kind gives
# (400 with a body, 403 when signed in, 404 with an id in the path): URL name ->
# method -> status -> why. Every 409 of API.md is here.
EXTRA_ERRORS: dict[str, dict[str, dict[str, str]]] = {
    "api-campaign": {
        "patch": {"409": "Conflict: the ruleset is fixed once the campaign has characters."}
    },
    "api-actions": {
        "post": {
            "409": "Conflict: `expected_version` is stale, a pending choice blocks the action "
            "(ruling G-3), or the character cannot act (dead, incapacitated...)."
        }
    },
    "api-choices": {
        "post": {"409": "Conflict: `choice_id` is not the pending choice (stale or answered)."}
    },
    "api-choice-cancel": {"post": {"409": "Conflict: no choice is pending."}},
    "api-undo": {"post": {"409": "Conflict: nothing to undo, or `to` is not an entry in force."}},
    "api-character": {"patch": {"409": "Conflict: the character already has that name."}},
    "api-retire": {"post": {"409": "Conflict: already retired, or not retired."}},
    "api-level-up": {
        "post": {"409": "Conflict: a choice is pending, or the character is retired."}
    },
    "api-invite": {"delete": {"409": "Conflict: the invite is already revoked."}},
    "api-member": {"delete": {"409": "Conflict: a referee, or not a member."}},
    "api-campaign-leave": {"post": {"409": "Conflict: the referee cannot leave."}},
    "api-redo": {"post": {"409": "Conflict: no undo to take back, or something happened since."}},
    "api-clock-job-resume": {
        "post": {"409": "Conflict: the choice the job waits on is still open, or the job is done."}
    },
    "api-effects": {"get": {"400": "Bad filter: an unknown `state` or a bad `character` id."}},
    "api-battle": {"post": {"409": "Conflict: a battle is already under way in the campaign."}},
}

ERROR_DESCRIPTIONS = {
    "400": "Bad input: field errors (`{field: [messages]}`), or `{detail}` for a request "
    "the rules reject.",
    "401": "Not signed in: no session or token, or the token is unknown, expired or "
    "revoked (`WWW-Authenticate: Token`).",
    "403": "Not allowed: referee only, or outside what the token's scope allows.",
    "404": "No such object, or not visible to you (outsiders, other players' characters).",
    "413": "The request body is larger than the server accepts (1 MB unless configured).",
    "429": "Too many requests (per person, per address, new accounts; or a username locked "
    "after repeated wrong passwords): wait the `Retry-After` seconds.",
}

# Keywords of an OpenAPI 3.0 Schema Object (besides ``$ref`` and ``x-`` extensions).
_OPENAPI_30_KEYWORDS = frozenset(
    {
        "title",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
        "enum",
        "type",
        "not",
        "allOf",
        "oneOf",
        "anyOf",
        "items",
        "properties",
        "additionalProperties",
        "description",
        "format",
        "default",
        "nullable",
        "discriminator",
        "readOnly",
        "writeOnly",
        "example",
        "externalDocs",
        "deprecated",
        "xml",
    }
)
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
_DROPPED = frozenset({"$schema", "$id", "$comment", "$defs", "definitions"})

Converter = Callable[[Mapping[str, Any]], dict[str, Any]]


# -- JSON Schema -> OpenAPI ------------------------------------------------------------
def inline_local_refs(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Replace ``{"$ref": "#/$defs/x"}`` by the definition: embedded in the OpenAPI
    document, a local ``$ref`` would point at the document's root instead."""
    root = schema

    def resolve(node: Any, depth: int) -> Any:
        if depth > 64:
            raise ValueError("recursive $ref in a ruleset schema cannot be inlined")
        if isinstance(node, list):
            return [resolve(item, depth) for item in node]
        if not isinstance(node, Mapping):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = root
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            return resolve(merged, depth + 1)
        return {key: resolve(value, depth + 1) for key, value in node.items()}

    result = resolve(schema, 0)
    assert isinstance(result, dict)
    return result


def to_openapi_31(schema: Mapping[str, Any]) -> dict[str, Any]:
    """OpenAPI 3.1 speaks JSON Schema 2020-12: the schema as it is, refs inlined."""
    return {k: v for k, v in inline_local_refs(schema).items() if k not in _DROPPED}


def to_openapi_30(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON Schema 2020-12 schema as an OpenAPI 3.0 Schema Object.

    ``const`` becomes a one-value ``enum``, ``type: [t, "null"]`` becomes ``nullable``,
    numeric ``exclusiveMinimum``/``exclusiveMaximum`` become 3.0's boolean form, an
    empty ``required`` is dropped; keywords 3.0 lacks (``if``/``then``,
    ``propertyNames``...) are kept verbatim as ``x-<keyword>``.
    """
    converted: dict[str, Any] = _convert_30(inline_local_refs(schema))
    return converted


def _convert_30(node: Any) -> Any:
    if isinstance(node, bool):  # ``true``/``false`` schemas
        return {} if node else {"not": {}}
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    nullable = False
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key == "const":
            out["enum"] = [value]
            nullable = nullable or value is None
        elif key == "enum":
            out["enum"] = list(value)
            nullable = nullable or None in value
        elif key == "type":
            types = [value] if isinstance(value, str) else list(value)
            if "null" in types:
                nullable = True
                types.remove("null")
            if len(types) == 1:
                out["type"] = types[0]
            elif types:
                out["anyOf"] = [{"type": t} for t in types]
            else:
                out["enum"] = [None]
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(value, bool):
            out["minimum" if key == "exclusiveMinimum" else "maximum"] = value
            out[key] = True
        elif key == "required":
            if value:
                out["required"] = list(value)
        elif key == "examples":
            if value:
                out["example"] = value[0]
        elif key == "properties":
            out["properties"] = {name: _convert_30(sub) for name, sub in value.items()}
        elif key in ("items", "not") and isinstance(value, Mapping | bool):
            out[key] = _convert_30(value)
        elif key == "additionalProperties":
            out[key] = value if isinstance(value, bool) else _convert_30(value)
        elif key in _SUBSCHEMA_LISTS:
            out[key] = [_convert_30(sub) for sub in value]
        elif key in _OPENAPI_30_KEYWORDS or key.startswith("x-"):
            out[key] = copy.deepcopy(value)
        else:
            out[f"x-{key}"] = copy.deepcopy(value)
    if nullable:
        out["nullable"] = True
    return out


def converter_for(openapi_version: str) -> Converter:
    return to_openapi_31 if openapi_version.startswith(("3.1", "3.2")) else to_openapi_30


def _const(value: Any, openapi_version: str) -> dict[str, Any]:
    kind = _json_type(value)
    if openapi_version.startswith(("3.1", "3.2")):
        return {"type": kind, "const": value}
    return {"type": kind, "enum": [value]}


# -- where the API's operations are ----------------------------------------------------
def api_paths() -> dict[str, str]:
    """URL name -> OpenAPI path of every endpoint in ``config/api_urls.py``."""
    paths = {}
    for pattern in api_urls.urlpatterns:
        route = str(pattern.pattern)
        paths[str(pattern.name)] = API_PREFIX + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
    return paths


def _operation(result: dict[str, Any], url_name: str, method: str) -> dict[str, Any]:
    path = api_paths()[url_name]
    try:
        operation: dict[str, Any] = result["paths"][path][method]
    except KeyError:
        raise KeyError(f"the schema has no {method.upper()} {path} ({url_name})") from None
    return operation


def _register(schemas: dict[str, Any], name: str, schema: dict[str, Any]) -> dict[str, str]:
    if name in schemas and schemas[name] != schema:
        raise ValueError(f"component {name} already exists in the schema")
    schemas[name] = schema
    return {"$ref": REF + name}


def _pascal(key: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^0-9A-Za-z]+", key) if part)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def _set_body(operation: dict[str, Any], ref: dict[str, str]) -> str | None:
    """Point every media type of the operation's body at ``ref``; the old component."""
    old = None
    for media in operation["requestBody"]["content"].values():
        old_ref = media.get("schema", {}).get("$ref", "")
        old = old_ref.removeprefix(REF) or old
        media["schema"] = dict(ref)
    return old


def _drop_if_unused(result: dict[str, Any], name: str | None) -> None:
    if name and json.dumps(result).count(f'"{REF}{name}"') == 0:
        result["components"]["schemas"].pop(name, None)


def _body_component(result: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    component: dict[str, Any] = result["components"]["schemas"][ref.removeprefix(REF)]
    return component


# -- actions ---------------------------------------------------------------------------
def _requires_params(schema: Mapping[str, Any]) -> bool:
    return bool(schema.get("required")) or int(schema.get("minProperties", 0)) > 0


def _action_variant(ruleset: Ruleset, spec: ActionSpec, convert: Converter) -> dict[str, Any]:
    params = convert(spec.params)
    params["title"] = f"{ruleset.name}: {spec.label}"
    who = "the referee" if spec.who == "referee" else "the owner or the referee"
    params["description"] = " ".join(
        part for part in (spec.description, f"({ruleset.key}; taken by {who}.)") if part
    )
    return params


def action_request_schemas(
    rulesets: Iterable[Ruleset], openapi_version: str
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """The per-action body components and the ``oneOf`` over them (discriminated)."""
    convert = converter_for(openapi_version)
    by_key: dict[str, list[tuple[Ruleset, ActionSpec]]] = {}
    for ruleset in rulesets:
        for spec in ruleset.actions:
            by_key.setdefault(spec.key, []).append((ruleset, spec))
    components: dict[str, dict[str, Any]] = {}
    mapping: dict[str, str] = {}
    for key, offers in by_key.items():
        variants = [_action_variant(ruleset, spec, convert) for ruleset, spec in offers]
        params: dict[str, Any] = variants[0]
        if len(variants) > 1:
            params = {
                "anyOf": variants,
                "description": "The params of the character's ruleset: "
                + ", ".join(ruleset.key for ruleset, _ in offers),
            }
        name = f"{_pascal(key)}ActionRequest"
        required = ["action"]
        if all(_requires_params(spec.params) for _, spec in offers):
            required.append("params")
        components[name] = {
            "type": "object",
            "title": key,
            "description": "; ".join(f"{ruleset.name}: {spec.label}" for ruleset, spec in offers),
            "properties": {
                "action": _const(key, openapi_version),
                "params": params,
                "expected_version": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "The character's version you saw; 409 if it changed.",
                },
            },
            "required": required,
            "x-rulesets": [
                {"ruleset": ruleset.key, "label": spec.label, "who": spec.who}
                for ruleset, spec in offers
            ],
        }
        mapping[key] = REF + name
    one_of = {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "action", "mapping": mapping},
        "description": "One action of the character's ruleset (`GET rulesets/`). Params are "
        "checked against the action's JSON Schema: unknown params, wrong types and "
        "out-of-range numbers are a 400.",
    }
    return components, one_of


def _document_actions(result: dict[str, Any], rulesets: list[Ruleset]) -> None:
    schemas = result["components"]["schemas"]
    components, one_of = action_request_schemas(rulesets, result["openapi"])
    for name, schema in components.items():
        _register(schemas, name, schema)
    operation = _operation(result, "api-actions", "post")
    old = _set_body(operation, _register(schemas, "ActionRequest", one_of))
    _drop_if_unused(result, old)


# -- rulesets and campaign options -----------------------------------------------------
def _options_schema(ruleset: Ruleset, *, all_required: bool) -> dict[str, Any]:
    properties = {
        key: {"type": _json_type(default), "default": copy.deepcopy(default)}
        for key, default in ruleset.options.items()
    }
    schema: dict[str, Any] = {
        "type": "object",
        "title": f"{ruleset.name} options",
        "properties": properties,
        "additionalProperties": False,
    }
    if all_required and properties:
        schema["required"] = sorted(properties)
    return schema


def _ruleset_schema(ruleset: Ruleset, openapi_version: str) -> dict[str, Any]:
    tables: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    if ruleset.tables:
        tables["items"]["enum"] = sorted(ruleset.tables)
    else:
        tables["maxItems"] = 0
    keys = [spec.key for spec in ruleset.actions]
    return {
        "type": "object",
        "title": ruleset.name,
        "properties": {
            "key": _const(ruleset.key, openapi_version),
            "name": _const(ruleset.name, openapi_version),
            "actions": {
                "type": "array",
                "items": {
                    "allOf": [{"$ref": REF + "ActionSpec"}],
                    "type": "object",
                    "properties": {"key": {"type": "string", "enum": keys}},
                },
                "minItems": len(keys),
                "maxItems": len(keys),
                "description": "In this order: " + ", ".join(keys),
            },
            "sheet_schema": {
                "type": "object",
                "additionalProperties": {},
                "description": "JSON Schema (2020-12) of this ruleset's sheet.",
            },
            "options": _options_schema(ruleset, all_required=True),
            "tables": tables,
        },
        "required": ["key", "name", "actions", "sheet_schema", "options", "tables"],
    }


def _document_rulesets(result: dict[str, Any], rulesets: list[Ruleset]) -> None:
    schemas = result["components"]["schemas"]
    version = result["openapi"]
    mapping = {
        ruleset.key: _register(
            schemas, f"{_pascal(ruleset.key)}Ruleset", _ruleset_schema(ruleset, version)
        )["$ref"]
        for ruleset in rulesets
    }
    operation = _operation(result, "api-rulesets", "get")
    media = operation["responses"]["200"]["content"]["application/json"]
    old = media["schema"].get("items", {}).get("$ref", "").removeprefix(REF)
    media["schema"] = {
        "type": "array",
        "items": {
            "oneOf": [{"$ref": ref} for ref in mapping.values()],
            "discriminator": {"propertyName": "key", "mapping": mapping},
        },
    }
    _drop_if_unused(result, old)


def _document_campaign_bodies(result: dict[str, Any], rulesets: list[Ruleset]) -> None:
    schemas = result["components"]["schemas"]
    version = result["openapi"]
    create = _operation(result, "api-campaigns", "post")
    base = _body_component(result, create)
    mapping = {}
    for ruleset in rulesets:
        body = copy.deepcopy(base)
        body["title"] = f"A {ruleset.name} campaign"
        body["properties"]["ruleset"] = _const(ruleset.key, version)
        options = _options_schema(ruleset, all_required=False)
        options["description"] = "Campaign options; the ones left out keep their default."
        body["properties"]["options"] = options
        name = f"{_pascal(ruleset.key)}CampaignRequest"
        mapping[ruleset.key] = _register(schemas, name, body)["$ref"]
    one_of = {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "ruleset", "mapping": mapping},
    }
    old = _set_body(create, _register(schemas, "CampaignRequest", one_of))
    _drop_if_unused(result, old)

    update = _body_component(result, _operation(result, "api-campaign", "patch"))
    update["properties"]["options"] = {
        "anyOf": [_options_schema(ruleset, all_required=False) for ruleset in rulesets],
        "description": "Options of the campaign's ruleset (after a ruleset change, of the "
        "new one); the ones left out keep their value.",
    }


def _document_character_sheet(result: dict[str, Any]) -> None:
    create = _operation(result, "api-campaign-characters", "post")
    sheet = _body_component(result, create)["properties"]["sheet"]
    sheet["description"] = (
        "Initial sheet fields on top of the ruleset's defaults, checked against the "
        "`sheet_schema` of `GET rulesets/` (400 if invalid; nothing is created)."
    )


# -- error answers ---------------------------------------------------------------------
def _error_components(schemas: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    detail = _register(
        schemas,
        "ErrorDetail",
        {
            "type": "object",
            "properties": {"detail": {"type": "string"}},
            "required": ["detail"],
        },
    )
    invalid = _register(
        schemas,
        "InputErrors",
        {
            "type": "object",
            "description": "Field name (or `non_field_errors`) -> messages; `detail` -> a "
            "message for input the rules reject.",
            "additionalProperties": {},
        },
    )
    return detail, invalid


def _document_errors(result: dict[str, Any]) -> None:
    detail, invalid = _error_components(result["components"]["schemas"])
    by_path = {path: name for name, path in api_paths().items()}
    for path, item in result["paths"].items():
        url_name = by_path.get(path)
        for method, operation in item.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            responses = operation.setdefault("responses", {})
            errors: dict[str, tuple[str, dict[str, str]]] = {}
            if "requestBody" in operation:
                errors["400"] = (ERROR_DESCRIPTIONS["400"], invalid)
                errors["413"] = (ERROR_DESCRIPTIONS["413"], detail)
            if any(requirement for requirement in operation.get("security", [{}])):
                errors["401"] = (ERROR_DESCRIPTIONS["401"], detail)
                errors["403"] = (ERROR_DESCRIPTIONS["403"], detail)
            if "{" in path or any(p.get("name") == "page" for p in operation.get("parameters", [])):
                errors["404"] = (ERROR_DESCRIPTIONS["404"], detail)
            errors["429"] = (ERROR_DESCRIPTIONS["429"], detail)
            for status, why in EXTRA_ERRORS.get(url_name or "", {}).get(method, {}).items():
                errors[status] = (why, invalid if status == "400" else detail)
            for status, (description, schema) in errors.items():
                responses.setdefault(
                    status,
                    {
                        "description": description,
                        "content": {"application/json": {"schema": dict(schema)}},
                    },
                )


# -- the hook --------------------------------------------------------------------------
def postprocess_schema(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular ``POSTPROCESSING_HOOKS`` entry (see the module's docstring)."""
    result.setdefault("components", {}).setdefault("schemas", {})
    rulesets = all_rulesets()
    _document_actions(result, rulesets)
    _document_rulesets(result, rulesets)
    _document_campaign_bodies(result, rulesets)
    _document_character_sheet(result)
    _document_errors(result)
    return result
