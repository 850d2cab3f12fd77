"""Errors a user can act on.  Each names the file, the place in it and the reason."""

from __future__ import annotations

# Exit codes, documented in the README and in ``perfgate --help``.
EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3    # a failure perfgate did not foresee (a bug, or out of memory): never "regression found"
# check or compare judged nothing (every benchmark renamed, too few rounds): neither a pass nor a
# regression, and not a usage error either, which it was (2) until CI read it as "perfgate broke"
EXIT_NO_VERDICT = 4


def shown(value: str, limit: int = 40) -> str:
    """A value as a message may quote it: cut short, repr-quoted (which shows control and bidi
    characters as escapes: the value may hold anything)."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


class PerfgateError(Exception):
    """Base for errors reported to the user without a traceback (exit 2)."""

    exit_code = EXIT_USAGE
    side = ""        # ``perfgate check``: the side (base or head) whose commit failed, when known


class InputError(PerfgateError):
    """Bad input: ``file:place: reason``."""

    def __init__(self, source: str, place: str, reason: str):
        self.source, self.place, self.reason = source, place, reason
        # The file and place come from the user (a path, a line quoted): a newline or escape
        # sequence in them is shown, not sent, so a message is one line that cannot forge another.
        from perfgate.escape import visible

        where = f"{visible(source)}:{visible(place)}" if place else visible(source)
        super().__init__(f"{where}: {reason}")


class StoreError(PerfgateError):
    """The history store could not do what was asked (nothing was written)."""


class UnusableStoreError(StoreError):
    """The history file at ``path`` is one this perfgate cannot use as it is (nothing was written)."""

    def __init__(self, message: str, path=None):
        super().__init__(message)   # (args stay the message alone: a worker's error unpickles in the parent)
        self.path = path


class DamagedStoreError(UnusableStoreError):
    """It failed SQLite's integrity check, or SQLite found a malformed page."""


class NewerStoreError(UnusableStoreError):
    """A newer perfgate wrote it: its schema is newer than this one understands."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cancelled CI job, ``timeout``), unwound like Ctrl-C: transactions roll back,
    temporary folders and containers are removed.  Here, not in :mod:`perfgate.cli`, so that a
    verb can tell it from Ctrl-C (run as ``python -m perfgate.cli``, that module is ``__main__``)."""
