"""GitHub's published contract (cut from @octokit/openapi 23.0.2: contracts/github/README.md) as
a validator: the formats its document uses, over the shared OpenAPI checks."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jsonschema import FormatChecker

from openapi_contract import OpenApi as _OpenApi

CONTRACT = Path(__file__).resolve().parents[2] / "contracts" / "github"
SPEC = CONTRACT / "openapi.json"
FORMATS = FormatChecker([])


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    if isinstance(value, str):
        if "T" not in value:
            raise ValueError("not an RFC 3339 date-time")
        if datetime.fromisoformat(value.replace("Z", "+00:00")).tzinfo is None:
            raise ValueError("date-time without a time zone")
    return True


@FORMATS.checks("uri")
def _uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme and (parts.netloc or parts.path))


class OpenApi(_OpenApi):
    def __init__(self, path: Path = SPEC):
        super().__init__(path, FORMATS)

    def response_schema(self, op_id: str, status: str) -> dict:
        for methods in self.doc["paths"].values():
            for op in methods.values():
                if isinstance(op, dict) and op.get("operationId") == op_id:
                    return self.resolve(op["responses"][status])["content"]["application/json"]["schema"]
        raise KeyError(op_id)

    def instance(self, schema: Any) -> Any:
        """A value valid for ``schema`` with every required field, as small as possible."""
        schema = self.resolve(schema)
        if "allOf" in schema:
            merged: dict = {}
            for part in schema["allOf"]:
                merged = merge(merged, self.instance(part))
            return merged
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self.instance(next((s for s in schema[key] if self.resolve(s).get("type") != "null"),
                                          schema[key][0]))
        if schema.get("nullable"):
            return None
        if "enum" in schema:
            return schema["enum"][0]
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            props = schema.get("properties", {})
            return {name: self.instance(props[name]) for name in schema.get("required", []) if name in props}
        if kind == "array":
            return []
        if kind == "integer":
            return 1
        if kind == "number":
            return 1.0
        if kind == "boolean":
            return False
        fmt = schema.get("format")
        return {"date-time": "2026-01-01T00:00:00Z", "uri": "https://example.org/x", "email": "a@example.org"}.get(fmt, "x")


def merge(a: Any, b: Any) -> Any:
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = merge(a[k], v) if k in a else v
        return out
    return b
