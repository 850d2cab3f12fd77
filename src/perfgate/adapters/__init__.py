"""Harness adapters: one module per harness, discovered by name.

See :mod:`perfgate.adapters.base` for the interface every adapter module implements.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from perfgate.adapters.base import Parsed, read_text
from perfgate.errors import InputError

__all__ = ["Parsed", "adapter_names", "get_adapter", "parse_file"]


def _modules() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "parse"):
            found[module.NAME] = module
    return found


_ADAPTERS = _modules()


def adapter_names() -> list[str]:
    return sorted(_ADAPTERS)


def get_adapter(name: str) -> ModuleType:
    try:
        return _ADAPTERS[name]
    except KeyError:
        raise InputError("--adapter", "", f"unknown adapter {name!r}; choose auto or one of: "
                         + ", ".join(adapter_names())) from None


def sniff(text: str, source: str) -> ModuleType:
    """The adapter whose format ``text`` is in.  Generic formats (BMF) sniff last."""
    ordered = sorted(_ADAPTERS.values(), key=lambda m: (getattr(m, "SNIFF_ORDER", 50), m.NAME))
    for module in ordered:
        try:
            if module.sniff(text):
                return module
        except Exception:  # a sniffer must never turn a detection into a crash
            continue
    if text.lstrip()[:1] in ("{", "["):
        from perfgate.adapters.base import load_json

        load_json(text, source)  # a broken JSON file gets its JSON error, with the position
    raise InputError(source, "", "format not recognised; name it with --adapter (one of: "
                     + ", ".join(adapter_names()) + ")")


def parse_file(path: str, adapter: str = "auto") -> tuple[str, Parsed]:
    """Read and parse one harness output file; returns (adapter name, parsed)."""
    text = read_text(path)
    module = sniff(text, path) if adapter == "auto" else get_adapter(adapter)
    parsed = module.parse(text, path)
    if not parsed.metrics:
        raise InputError(path, "", f"no results found in this {module.NAME} output")
    return module.NAME, parsed
