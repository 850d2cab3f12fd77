"""GitHub's published contract (cut from @octokit/openapi 23.0.2: contracts/github/README.md) as
a validator: the formats its document uses, over the shared OpenAPI checks."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
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
