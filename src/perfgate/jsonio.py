"""JSON as perfgate writes and reads its own documents (``--json`` output, saved detect reports):
orjson, for speed — a 10,000-series report is written in a tenth of the standard library's
time.  NaN and infinities are written as null (valid JSON); text written by older perfgates may
hold NaN, which only the standard library reads, so reading falls back to it."""

from __future__ import annotations

import json
from dataclasses import asdict, is_dataclass
from typing import Any

import orjson

_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def dumps(obj: Any, *, indent: bool = False) -> bytes:
    return orjson.dumps(obj, default=_plain, option=_OPTIONS | (orjson.OPT_INDENT_2 if indent else 0))


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _plain(obj: Any) -> Any:
    """What orjson does not serialise itself."""
    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    if hasattr(obj, "tolist"):      # numpy scalars and arrays of kinds orjson does not take
        return obj.tolist()
    if isinstance(obj, float):      # a float subclass
        return float(obj)
    raise TypeError(f"cannot serialise {type(obj).__name__}")
