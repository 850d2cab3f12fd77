"""Validate requests and responses against Bencher's OpenAPI 3.0 document with jsonschema.

OpenAPI 3.0 schemas are not quite JSON Schema: ``nullable: true`` becomes ``anyOf [null, ...]``
here, and every object schema that lists ``properties`` without saying otherwise is closed
(``additionalProperties: false``) so a misspelt field fails loudly instead of being ignored.
Formats the document uses (uuid, date-time, uint8/32/64, double) are checked too.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

# Bencher's published contract (OpenAPI document and BMF schema, v0.6.12), kept in the
# repository with its source and licence: contracts/bencher/README.md.
CONTRACT = Path(__file__).resolve().parents[2] / "contracts" / "bencher"
SPEC = CONTRACT / "openapi.json"
BMF_SCHEMA = json.loads((CONTRACT / "bmf.json").read_text())

_FORMATS = FormatChecker()


@_FORMATS.checks("uuid")
def _uuid(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(re.fullmatch(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", value)) and bool(uuid.UUID(value))


@_FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    if isinstance(value, str):
        if "T" not in value:
            raise ValueError("not an RFC 3339 date-time")
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            raise ValueError("date-time without a time zone")
    return True


def _uint(bits: int):
    def check(value: object) -> bool:
        return not isinstance(value, int) or 0 <= value < 2 ** bits
    return check


for _bits in (8, 32, 64):
    _FORMATS.checks(f"uint{_bits}")(_uint(_bits))


@_FORMATS.checks("double")
def _double(value: object) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


def to_json_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [to_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: to_json_schema(v) for k, v in node.items() if k not in ("nullable", "description", "example")}
    if "properties" in out and "additionalProperties" not in out and out.get("type") == "object":
        out["additionalProperties"] = False
    if node.get("nullable"):
        return {"anyOf": [{"type": "null"}, out]}
    return out


class OpenApi:
    def __init__(self, path: Path = SPEC):
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        self.doc = doc
        self.components = {"schemas": to_json_schema(doc["components"]["schemas"])}
        self.routes: list[tuple[re.Pattern[str], str, dict]] = []
        for template, methods in doc["paths"].items():
            pattern = re.compile("^" + re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$")
            for method, op in methods.items():
                self.routes.append((pattern, method.upper(), op))

    def match(self, method: str, path: str) -> tuple[dict, dict[str, str]] | None:
        for pattern, m, op in self.routes:
            found = pattern.match(path)
            if found and m == method:
                return op, found.groupdict()
        return None

    def _resolve(self, node: dict) -> dict:
        while "$ref" in node:
            parts = node["$ref"].removeprefix("#/").split("/")
            target: Any = self.doc
            for p in parts:
                target = target[p]
            node = target
        return node

    @lru_cache(maxsize=None)
    def _validator(self, schema_json: str) -> Draft202012Validator:
        schema = {**to_json_schema(json.loads(schema_json)), "components": self.components}
        return Draft202012Validator(schema, format_checker=_FORMATS)

    def errors(self, schema: dict, instance: Any, where: str) -> list[str]:
        validator = self._validator(json.dumps(schema, sort_keys=True))
        return [f"{where}: {'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:300]}"
                for e in validator.iter_errors(instance)]

    def check_request(self, op: dict, path_params: dict[str, str], query: dict[str, list[str]],
                      body: Any) -> list[str]:
        problems: list[str] = []
        where = f"request {op['operationId']}"
        declared = {p["name"]: p for p in op.get("parameters", [])}
        for name, values in query.items():
            param = declared.get(name)
            if param is None or param["in"] != "query":
                problems.append(f"{where}: unknown query parameter {name!r}")
                continue
            if len(values) != 1:
                problems.append(f"{where}: query parameter {name!r} given {len(values)} times")
            problems += self.errors(param["schema"], _coerce(self._resolve(param["schema"]), values[0]),
                                    f"{where} ?{name}")
        for name, param in declared.items():
            if param.get("required") and param["in"] == "query" and name not in query:
                problems.append(f"{where}: missing required query parameter {name!r}")
            if param["in"] == "path":
                problems += self.errors(param["schema"], path_params.get(name), f"{where} path {name}")
        request_body = op.get("requestBody")
        if request_body:
            schema = request_body["content"]["application/json"]["schema"]
            if body is None:
                problems.append(f"{where}: missing JSON body")
            else:
                problems += self.errors(schema, body, f"{where} body")
        elif body is not None:
            problems.append(f"{where}: unexpected body")
        return problems

    def check_response(self, op: dict, status: int, body: Any, headers: dict[str, str]) -> list[str]:
        responses = op["responses"]
        spec = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX")
        where = f"response {op['operationId']} {status}"
        if spec is None:
            return [f"{where}: status not declared"]
        spec = self._resolve(spec)
        problems = []
        lower = {k.lower() for k in headers}
        for name, h in (spec.get("headers") or {}).items():
            if h.get("required") and name.lower() not in lower:
                problems.append(f"{where}: missing header {name}")
        content = (spec.get("content") or {}).get("application/json")
        if content:
            problems += self.errors(content["schema"], body, f"{where} body")
        return problems


def _coerce(schema: dict, raw: str) -> Any:
    """A query string value as the type its schema names (query strings are all text)."""
    kinds = schema.get("type")
    if kinds is None and "anyOf" not in schema and "oneOf" not in schema and "$ref" not in schema:
        return raw
    if kinds == "integer":
        try:
            return int(raw)
        except ValueError:
            return raw
    if kinds == "boolean":
        return {"true": True, "false": False}.get(raw, raw)
    return raw
