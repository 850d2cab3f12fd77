"""Runs that could not be sent, kept on disk until the server answers again.

One file per run, ``<spool>/<sequence>-<key>.json``, holding the target (server URL and project,
never the token) and the exact ``POST /v0/run`` body.  Files are written atomically (a temporary
file in the same directory, flushed and fsynced, then renamed), so a crash leaves either the
whole entry or none.  The sequence number orders entries; ``flush`` sends them oldest first and
deletes each only after the server confirmed it, so a run is sent at least once, and the
idempotency key in its body makes the server keep it exactly once.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfgate.errors import InputError

DEFAULT_SPOOL = ".perfgate/spool"
FORMAT = 1
_ENTRY = re.compile(r"^(\d{20})-(\d{6})-[0-9a-f-]+\.json$")


@dataclass(frozen=True)
class Entry:
    path: Path
    target: str
    body: dict[str, Any]


class Spool:
    def __init__(self, directory: str | Path | None = None):
        self.dir = Path(directory or os.environ.get("PERFGATE_SPOOL") or DEFAULT_SPOOL)

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
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.dir / name)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return self.dir / name

    def pending(self, target: str | None = None) -> list[Entry]:
        """Entries oldest first (only those for ``target`` when given)."""
        entries = [self._read(self.dir / name) for name in self._names()]
        return [e for e in entries if target is None or e.target == target]

    def remove(self, entry: Entry) -> None:
        entry.path.unlink(missing_ok=True)

    def reject(self, entry: Entry, reason: str) -> Path:
        """Move an entry the server refused (4xx) aside, with the reason, so it blocks nothing."""
        rejected = self.dir / "rejected"
        rejected.mkdir(parents=True, exist_ok=True)
        dest = rejected / entry.path.name
        os.replace(entry.path, dest)
        dest.with_suffix(".reason.txt").write_text(reason + "\n", encoding="utf-8")
        return dest

    def _names(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.name for p in self.dir.iterdir() if _ENTRY.match(p.name))

    def _read(self, path: Path) -> Entry:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise InputError(str(path), "", f"unreadable spool entry ({e}); move it away to continue") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise InputError(str(path), "format", f"not a perfgate spool entry of format {FORMAT}")
        if not isinstance(doc.get("target"), str) or not isinstance(doc.get("body"), dict):
            raise InputError(str(path), "target/body", "missing; move the file away to continue")
        return Entry(path, doc["target"], doc["body"])
