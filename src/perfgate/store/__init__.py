"""History stores behind one interface, chosen by one setting (``--store`` / ``PERFGATE_STORE``).

``sqlite:PATH`` (the default, ``sqlite:.perfgate/history.db``) or
``bencher+http(s)://HOST[:PORT]/PROJECT`` for a Bencher server.
"""

from __future__ import annotations

from typing import Callable

from perfgate.errors import PerfgateError
from perfgate.urls import quoted
from perfgate.store.base import Point, RunSummary, SeriesKey, Store, raw_samples

DEFAULT_STORE = "sqlite:.perfgate/history.db"

__all__ = ["DEFAULT_STORE", "Point", "RunSummary", "SeriesKey", "Store", "open_store", "raw_samples", "register_scheme"]

# scheme prefix -> factory(spec, project, create): ``create`` whether a store that does not exist
# yet may be made (by the verbs that record); a server's project always exists or is refused.
_SCHEMES: dict[str, Callable[[str, str, bool], Store]] = {}


def register_scheme(prefix: str, factory: Callable[[str, str, bool], Store]) -> None:
    _SCHEMES[prefix] = factory


def _sqlite(spec: str, project: str, create: bool) -> Store:
    from perfgate.store.sqlite import SqliteStore

    path = spec.removeprefix("sqlite:")
    if not path:
        raise PerfgateError("--store sqlite: needs a path, e.g. sqlite:.perfgate/history.db")
    return SqliteStore(path, project, create=create)


register_scheme("sqlite:", _sqlite)


def open_store(spec: str | None = None, project: str = "default", *, create: bool = True) -> Store:
    """The store ``spec`` names.  ``create=False`` for a verb that only reads or adds to a history:
    a history that is not there is then an error (a mistyped ``--store`` in CI must not pass as an
    empty history), not a new empty one."""
    spec = spec or DEFAULT_STORE
    for prefix, factory in _SCHEMES.items():
        if spec.startswith(prefix):
            return factory(spec, project, create)
    _load_optional_backends()
    for prefix, factory in _SCHEMES.items():
        if spec.startswith(prefix):
            return factory(spec, project, create)
    known = ", ".join(sorted(_SCHEMES))
    raise PerfgateError(f"--store {quoted(spec)}: unknown store; use one of: {known}")


def _load_optional_backends() -> None:
    """Backends that register themselves on import (kept lazy: they pull in HTTP clients)."""
    try:
        import perfgate.store.bencher  # noqa: F401
    except ModuleNotFoundError as e:
        if e.name != "perfgate.store.bencher":
            raise
