"""MCP tool schemas made flat for a small model, and the model's arguments made whole again for the server.

A small model decodes one step under a JSON schema (assistant/decide.py); deep schemas make it slow and
error-prone. So only top-level properties are kept: text, numbers, integers, booleans and enums keep their
type; an object or array (or anything else) becomes a text argument holding JSON, parsed back before the
call. `required` is kept. At most MAX_PROPERTIES arguments are offered: required ones first, optional
JSON-text ones are the first left out, and every change is written down in `notes`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from wenshu.mcp.errors import McpArgumentError

SIMPLE = ("string", "number", "integer", "boolean")
MAX_PROPERTIES = 8
MAX_DESCRIPTION = 300
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True)
class FlatSchema:
    parameters: dict  # {"type": "object", "properties": {...}, "required": [...], "additionalProperties": False}
    kinds: dict[str, str] = field(default_factory=dict)  # argument -> string | number | integer | boolean | json
    notes: list[str] = field(default_factory=list)  # what was changed, in English


def qualified_name(server: str, tool: str) -> str:
    """`<server>__<tool>`, with anything but letters, digits, '_' and '-' replaced, at most 64 characters."""
    return _UNSAFE.sub("_", f"{server}__{tool}")[:MAX_NAME]


def short_description(text: str | None, limit: int = MAX_DESCRIPTION) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _resolve(spec, root: dict, depth: int = 0):
    """A local `$ref` (#/$defs/X, #/definitions/X) replaced by what it points to."""
    ref = spec.get("$ref") if isinstance(spec, dict) else None
    if not isinstance(ref, str) or not ref.startswith("#/") or depth > 5:
        return spec
    target = root
    for part in ref[2:].split("/"):
        target = target.get(part, {}) if isinstance(target, dict) else {}
    return _resolve({**target, **{k: v for k, v in spec.items() if k != "$ref"}}, root, depth + 1)


def _kind(spec, root: dict) -> tuple[str, list | None]:
    """(kind, enum values or None) of one property; "json" for anything that is not a simple value."""
    spec = _resolve(spec, root)
    if not isinstance(spec, dict):
        return "json", None
    values = spec["enum"] if isinstance(spec.get("enum"), list) else [spec["const"]] if "const" in spec else None
    if values and all(isinstance(v, (str, int, float, bool)) and v is not None for v in values):
        kinds = {"boolean" if isinstance(v, bool) else "string" if isinstance(v, str)
                 else "integer" if isinstance(v, int) else "number" for v in values}  # fmt: skip
        return (kinds.pop() if len(kinds) == 1 else "json"), values
    options = spec.get("anyOf") or spec.get("oneOf")
    if isinstance(options, list):
        real = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
        return _kind(real[0], root) if len(real) == 1 else ("json", None)
    kind = spec.get("type")
    if isinstance(kind, list):
        real = [k for k in kind if k != "null"]
        kind = real[0] if len(real) == 1 else None
    return (kind, None) if kind in SIMPLE else ("json", None)


def _property(spec, kind: str, values: list | None, root: dict) -> dict:
    spec = _resolve(spec, root) if isinstance(spec, dict) else {}
    text = short_description(spec.get("description") or spec.get("title") or "", 160)
    if kind == "json":
        shape = {"object": "an object", "array": "an array"}.get(spec.get("type"), "a value")
        return {"type": "string", "description": f"{text} (JSON text: {shape})".strip()}
    prop = {"type": kind, "description": text}
    return prop | ({"enum": values} if values else {})


def flatten_schema(schema: dict | None) -> FlatSchema:
    schema = schema if isinstance(schema, dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = [k for k in schema.get("required") or [] if k in props]
    kinds = {name: _kind(spec, schema) for name, spec in props.items()}
    order = sorted(props, key=lambda n: (n not in required, kinds[n][0] == "json"))
    keep, notes = order[:MAX_PROPERTIES], []
    for name in order[MAX_PROPERTIES:]:
        if name in required:
            keep.append(name)  # a required argument is never left out
        else:
            notes.append(f"left out the optional argument '{name}'")
    notes += [f"'{n}' is passed as JSON text" for n in keep if kinds[n][0] == "json"]
    keep = [n for n in props if n in keep]  # the server's order
    parameters = {"type": "object", "properties": {n: _property(props[n], *kinds[n], schema) for n in keep},
                  "required": [n for n in required if n in keep], "additionalProperties": False}  # fmt: skip
    return FlatSchema(parameters, {n: kinds[n][0] for n in keep}, notes)


def call_arguments(flat: FlatSchema, arguments: dict, tool: str) -> dict:
    """The model's flat arguments as the server expects them: JSON text parsed, numbers and booleans given
    as text converted, empty optional values left out."""
    out = {}
    for name, value in arguments.items():
        kind = flat.kinds.get(name, "string")
        if value is None or (value == "" and kind != "string" and name not in flat.parameters["required"]):
            continue
        try:
            if kind == "json" and isinstance(value, str):
                value = json.loads(value)
            elif kind == "integer" and isinstance(value, str):
                value = int(value)
            elif kind == "number" and isinstance(value, str):
                value = float(value)
            elif kind == "boolean" and isinstance(value, str):
                value = {"true": True, "false": False}[value.strip().lower()]
        except (ValueError, KeyError) as err:
            raise McpArgumentError(tool, name, f"expected {'JSON text' if kind == 'json' else kind}") from err
        out[name] = value
    return out
