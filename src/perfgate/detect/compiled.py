"""perfgate's own C functions (optional extensions that setuptools builds where a C compiler is
found; plain C with no Python API, loaded with ctypes), or None where one was not built: each
caller then falls back to a library's code with the same results."""

from __future__ import annotations

import ctypes
import importlib.util
from typing import Any


def c_function(module: str, name: str, restype: Any, argtypes: list[Any]) -> Any | None:
    """The function ``name`` of the built extension ``module``, typed, or None."""
    spec = importlib.util.find_spec(module)     # finds the built file, runs nothing
    if spec is None or not spec.origin:
        return None
    try:
        function = getattr(ctypes.CDLL(spec.origin), name)
    except (OSError, AttributeError):
        return None
    function.restype, function.argtypes = restype, argtypes
    return function
