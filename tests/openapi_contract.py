"""Validate HTTP requests and responses against a service's published OpenAPI 3.0 document with
jsonschema — what the Bencher and GitHub fakes check every exchange with.

OpenAPI 3.0 schemas are nearly JSON Schema: ``nullable: true`` becomes ``anyOf [null, ...]``, the
annotation keywords (``description``, ``example``, ``x-*``...) are dropped — only where they are
keywords, never a property that happens to be called ``description`` — and every object schema
that lists ``properties`` without saying otherwise is closed, so a misspelt field fails loudly.
Each service brings its own format checker (the formats its document uses).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

_DROP = {"nullable", "description", "example", "examples", "externalDocs", "title", "deprecated",
         "readOnly", "writeOnly"}


def to_json_schema(node: Any, close: bool = True) -> Any:
    if isinstance(node, list):
        return [to_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROP or key.startswith("x-"):
            continue
        if key == "properties":
            out[key] = {name: to_json_schema(v) for name, v in value.items()}
        elif key == "allOf":
            # Members of an allOf each see only their own properties: a closed member would
            # refuse the others' fields, so only the referenced (whole) schemas stay closed.
            out[key] = [to_json_schema(v, close=False) for v in value]
        else:
            out[key] = to_json_schema(value)
    if close and "properties" in out and "additionalProperties" not in out and out.get("type") == "object":
        out["additionalProperties"] = False
    if node.get("nullable"):
        return {"anyOf": [{"type": "null"}, out]}
    return out


class OpenApi:
    def __init__(self, path: Path, formats: FormatChecker):
        self.doc = json.loads(Path(path).read_text(encoding="utf-8"))
        self.version = self.doc["info"]["version"]
        self.formats = formats
        self.components = {"schemas": to_json_schema(self.doc["components"]["schemas"])}
        self.routes: list[tuple[re.Pattern[str], str, dict]] = []
        for template, methods in self.doc["paths"].items():
            pattern = re.compile("^" + re.sub(r"\\{(\w+)\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$")
            for method, op in methods.items():
                self.routes.append((pattern, method.upper(), op))

    def match(self, method: str, path: str) -> tuple[dict, dict[str, str]] | None:
        for pattern, m, op in self.routes:
            found = pattern.match(path)
            if found and m == method:
                return op, found.groupdict()
        return None

    def resolve(self, node: dict) -> dict:
        while "$ref" in node:
            target: Any = self.doc
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node

    @lru_cache(maxsize=None)
    def _validator(self, schema_json: str) -> Draft202012Validator:
        schema = {**to_json_schema(json.loads(schema_json)), "components": self.components}
        return Draft202012Validator(schema, format_checker=self.formats)

    def errors(self, schema: dict, instance: Any, where: str) -> list[str]:
        validator = self._validator(json.dumps(schema, sort_keys=True))
        return [f"{where}: {'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:300]}"
                for e in validator.iter_errors(instance)]

    def check_request(self, op: dict, path_params: dict[str, str], query: dict[str, list[str]], body: Any,
                      headers: dict[str, str] | None = None) -> list[str]:
        """``headers`` (lower-case names), when given, must send a body as JSON."""
        where = f"request {op['operationId']}"
        problems: list[str] = []
        declared = {p["name"]: p for p in (self.resolve(p) for p in op.get("parameters", []))}
        for name, values in query.items():
            param = declared.get(name)
            if param is None or param["in"] != "query":
                problems.append(f"{where}: unknown query parameter {name!r}")
                continue
            if len(values) != 1:
                problems.append(f"{where}: query parameter {name!r} given {len(values)} times")
            problems += self.errors(param["schema"], _coerce(self.resolve(param["schema"]), values[0]),
                                    f"{where} ?{name}")
        for name, param in declared.items():
            if param.get("required") and param["in"] == "query" and name not in query:
                problems.append(f"{where}: missing required query parameter {name!r}")
            if param["in"] == "path":   # URLs hold text
                problems += self.errors(param["schema"], _coerce(self.resolve(param["schema"]),
                                                                 path_params.get(name, "")), f"{where} path {name}")
        request_body = op.get("requestBody")
        if request_body:
            schema = request_body["content"]["application/json"]["schema"]
            if body is None:
                if request_body.get("required"):
                    problems.append(f"{where}: missing JSON body")
            else:
                sent_as = (headers or {}).get("content-type", "application/json").split(";")[0].strip()
                if sent_as != "application/json":
                    problems.append(f"{where}: body sent as {sent_as!r}, not application/json")
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
        spec = self.resolve(spec)
        problems = []
        lower = {k.lower() for k in headers}
        for name, h in (spec.get("headers") or {}).items():
            if self.resolve(h).get("required") and name.lower() not in lower:
                problems.append(f"{where}: missing header {name}")
        content = (spec.get("content") or {}).get("application/json")
        if content:
            problems += self.errors(content["schema"], body, f"{where} body")
        elif body is not None:
            problems.append(f"{where}: a body where none is declared")
        return problems


def _coerce(schema: dict, raw: str) -> Any:
    """A query or path value as the type its schema names (they arrive as text)."""
    if schema.get("type") == "integer":
        try:
            return int(raw)
        except ValueError:
            return raw
    if schema.get("type") == "boolean":
        return {"true": True, "false": False}.get(raw, raw)
    return raw
