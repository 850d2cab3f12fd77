"""Runs that could not be sent, kept on disk until the server answers again.

One file per run, ``<spool>/<sequence>-<key>.json``, holding the target (server URL and project,
never the token) and the exact ``POST /v0/run`` body.  An entry belongs to a flush when the
project and the URL path match and the server is the same: the same scheme and port, and a host
name equal once lower-cased, or two names that resolve to a common address (``localhost`` and
``127.0.0.1``, or a DNS alias) — so a flush through another name of the server finds its runs.
Files are written atomically (a temporary file in the same directory, flushed and fsynced, then
renamed), so a crash leaves either the whole entry or none.  The sequence number orders entries; ``flush`` sends them oldest first and
deletes each only after the server confirmed it, so a run is sent at least once, and the
idempotency key in its body makes the server keep it exactly once.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import re
import socket
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

from perfgate.errors import InputError
from perfgate.outputs import write_atomic

DEFAULT_SPOOL = ".perfgate/spool"
SENT = "sent.jsonl"   # idempotency keys the server confirmed: tells a resend from a new run
FORMAT = 1
_ENTRY = re.compile(r"^(\d{20})-(\d{6})-[0-9a-f-]+\.json$")
_ASIDE = re.compile(r"^\d{20}-\d{6}-([0-9a-f]{8}-[0-9a-f-]{27})\.json$")   # the key: a UUID


@dataclass(frozen=True)
class Entry:
    path: Path
    target: str
    body: dict[str, Any]


class Spool:
    def __init__(self, directory: str | Path | None = None):
        self.dir = Path(directory or os.environ.get("PERFGATE_SPOOL") or DEFAULT_SPOOL)
        self._turns = 0     # turn() taken and not yet given back, by this process

    def put(self, target: str, body: dict[str, Any]) -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        # Nanosecond clock plus a counter past the newest entry: ordered even within one tick.
        newest = self._names()
        counter = int(_ENTRY.match(newest[-1]).group(2)) + 1 if newest else 0
        key = str(body.get("idempotency_key") or "nokey")
        name = f"{time.time_ns():020d}-{counter % 1_000_000:06d}-{key}.json"
        if newest and name <= newest[-1]:  # clock went backwards: stay after the newest
            name = f"{int(newest[-1][:20]) + 1:020d}-{counter % 1_000_000:06d}-{key}.json"
        data = json.dumps({"format": FORMAT, "target": target, "body": body}, sort_keys=True, indent=1)
        write_atomic(self.dir / name, data, mode=0o600)
        return self.dir / name

    def pending(self, target: str | None = None) -> list[Entry]:
        """Entries oldest first (only those for ``target``, or the same server and project
        reached under another name, when given)."""
        entries = [self._read(self.dir / name) for name in self._names()]
        return [e for e in entries if target is None or same_target(e.target, target)]

    def unreadable(self) -> list[tuple[Path, str]]:
        """Entries no one can read (torn, foreign), each with the reason."""
        found = []
        for name in self._names():
            try:
                self._read(self.dir / name)
            except InputError as e:
                found.append((self.dir / name, e.reason))
        return found

    def remove(self, entry: Entry) -> None:
        entry.path.unlink(missing_ok=True)

    def reject(self, entry: Entry, reason: str) -> Path:
        """Move an entry the server refused (4xx) aside, with the reason, so it blocks nothing."""
        self.forget_rejected(str(entry.body.get("idempotency_key") or ""))
        return self.set_aside(entry.path, reason)

    def put_rejected(self, target: str, body: dict[str, Any], reason: str) -> Path:
        """Set aside a run the server refused, with the reason, as :meth:`reject` does.  A run
        refused again replaces its earlier copy."""
        key = str(body.get("idempotency_key") or "nokey")
        self.forget_rejected(key)
        dest = self._rejected_dir() / f"{time.time_ns():020d}-000000-{key}.json"
        write_atomic(dest, json.dumps({"format": FORMAT, "target": target, "body": body}, sort_keys=True, indent=1),
                     mode=0o600)
        dest.with_suffix(".reason.txt").write_text(reason + "\n", encoding="utf-8")
        return dest

    def set_aside(self, path: Path, reason: str) -> Path:
        """Move a spool entry to ``rejected/`` with the reason: one the server refused, or one no
        one can read, so the runs queued behind it are still sent and the file itself is kept."""
        dest = self._rejected_dir() / path.name
        os.replace(path, dest)
        dest.with_suffix(".reason.txt").write_text(reason + "\n", encoding="utf-8")
        return dest

    def set_aside_keys(self) -> set[str]:
        """Idempotency keys of the runs in ``rejected/``: each file's name ends in its run's key,
        so even an entry no one can read still says which run it held."""
        folder = self.dir / "rejected"
        if not folder.is_dir():
            return set()
        return {key for p in folder.iterdir() if (key := self.key_of(p))}

    @staticmethod
    def key_of(path: str | Path) -> str | None:
        """The idempotency key a spool (or ``rejected/``) file's name carries, if any."""
        m = _ASIDE.match(Path(path).name)
        return m.group(1) if m else None

    def forget_rejected(self, key: str) -> None:
        """Drop the set-aside copy of a run once it is refused again or accepted."""
        folder = self.dir / "rejected"
        if not key or not folder.is_dir():
            return
        for copy in folder.glob(f"*-{key}.json"):
            copy.with_suffix(".reason.txt").unlink(missing_ok=True)
            copy.unlink(missing_ok=True)

    def _rejected_dir(self) -> Path:
        folder = self.dir / "rejected"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def mark_sent(self, target: str, key: str) -> None:
        """Remember that the server confirmed the run with this idempotency key."""
        if not key:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        append_lines(self.dir / SENT, [json.dumps({"target": target, "key": key})])

    @contextmanager
    def turn(self) -> Iterator[None]:
        """One sender at a time: two flushes at once would each send every spooled run (the
        server keeps one, by its idempotency key, but both report it sent).  Taken again inside
        itself, it is already held (``publish --all`` holds it from reading its ledger to writing it)."""
        if self._turns:
            self._turns += 1
            try:
                yield
            finally:
                self._turns -= 1
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self._turns = 1
            try:
                yield
            finally:
                self._turns = 0
                fcntl.flock(lock, fcntl.LOCK_UN)

    def was_sent(self, target: str, key: str) -> bool:
        path = self.dir / SENT
        if not key or not path.exists():
            return False
        for line in read_lines(path):
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line torn by a crash: only a hint is lost
            if isinstance(entry, dict) and entry.get("key") == key and same_target(str(entry.get("target")), target):
                return True
        return False

    def _names(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.name for p in self.dir.iterdir() if _ENTRY.match(p.name))

    def _read(self, path: Path) -> Entry:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise InputError(str(path), "", f"unreadable spool entry ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise InputError(str(path), "format", f"not a perfgate spool entry of format {FORMAT}")
        if not isinstance(doc.get("target"), str) or not isinstance(doc.get("body"), dict):
            raise InputError(str(path), "target/body", "missing: not a perfgate spool entry")
        problem = _body_problem(doc["body"])
        if problem:   # not sent as it is, with the user's token, to be refused there
            raise InputError(str(path), "body", problem)
        return Entry(path, doc["target"], doc["body"])


def _body_problem(body: dict[str, Any]) -> str | None:
    """What makes a spooled body not one perfgate wrote for ``POST /v0/run``, or None."""
    for key in ("project", "branch", "hash", "testbed", "start_time", "end_time", "idempotency_key"):
        if key in body and not isinstance(body[key], str):
            return f"{key} is not a string"
    results = body.get("results")
    if not isinstance(results, list) or not results or not all(isinstance(r, str) for r in results):
        return "results is not a list of BMF documents"
    for key in ("start_time", "end_time"):
        if key not in body:
            return f"{key} is missing"
    return None


def read_lines(path: Path) -> list[str]:
    """The lines of a ``.jsonl`` record; bytes that are not UTF-8 become replacement characters,
    so their line fails to parse and is skipped like a torn one."""
    return path.read_bytes().decode("utf-8", errors="replace").splitlines() if path.exists() else []


def append_lines(path: Path, lines: list[str]) -> None:
    """Append lines to a ``.jsonl`` record, durably (one write, one fsync).  A line torn by a
    crash is ended first, so the new records do not run on from it and get lost with it."""
    with open(path, "a+b") as f:
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.write(b"\n")
        f.write("".join(line + "\n" for line in lines).encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())


def same_target(a: str, b: str) -> bool:
    """Whether two spool targets (``scheme://host:port/prefix/project``) name one server project."""
    if a == b:
        return True
    pa, pb = urlsplit(a), urlsplit(b)
    if (pa.scheme.lower(), _port(pa), pa.path.rstrip("/")) != (pb.scheme.lower(), _port(pb), pb.path.rstrip("/")):
        return False
    ha, hb = (pa.hostname or "").lower(), (pb.hostname or "").lower()
    return ha == hb or bool(_addresses(ha) & _addresses(hb))


def _port(parts: Any) -> int | None:
    try:
        return parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:
        return None


@functools.lru_cache(maxsize=32)
def _addresses(host: str) -> frozenset[str]:
    """The host's addresses; none when it does not resolve (then only equal names match)."""
    try:
        return frozenset(info[4][0] for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP))
    except (OSError, UnicodeError):
        return frozenset()
