"""Bencher's published contract (OpenAPI document and BMF schema, v0.6.12, kept with its source and
licence: contracts/bencher/README.md) as a validator: the formats its document uses (uuid,
date-time, uint8/32/64, double), over the shared OpenAPI checks."""

from __future__ import annotations

import json
import math
import re
import uuid
from datetime import datetime
from pathlib import Path

from jsonschema import FormatChecker

from openapi_contract import OpenApi as _OpenApi

CONTRACT = Path(__file__).resolve().parents[2] / "contracts" / "bencher"
SPEC = CONTRACT / "openapi.json"
BMF_SCHEMA = json.loads((CONTRACT / "bmf.json").read_text())
FORMATS = FormatChecker()


@FORMATS.checks("uuid")
def _uuid(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(re.fullmatch(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", value)) and bool(uuid.UUID(value))


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    if isinstance(value, str):
        if "T" not in value:
            raise ValueError("not an RFC 3339 date-time")
        if datetime.fromisoformat(value).tzinfo is None:
            raise ValueError("date-time without a time zone")
    return True


def _uint(bits: int):
    def check(value: object) -> bool:
        return not isinstance(value, int) or 0 <= value < 2 ** bits
    return check


for _bits in (8, 32, 64):
    FORMATS.checks(f"uint{_bits}")(_uint(_bits))


@FORMATS.checks("double")
def _double(value: object) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


class OpenApi(_OpenApi):
    def __init__(self, path: Path = SPEC):
        super().__init__(path, FORMATS)
