"""The CPU time a running container used, from its cgroup (for ``host_load``'s ``others``).

The engine removes a container's cgroup as it exits, so its counter cannot be read afterwards:
:class:`Watch` reads it every ``INTERVAL`` seconds while the container runs and keeps the last
value (at most one interval short).  Linux only; where no counter can be read (another cgroup
layout, rootless engine, no ``/sys``) the value is None, never an error.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

CGROUP = "/sys/fs/cgroup"
INTERVAL = 0.05
_ID = re.compile(r"[0-9a-f]{64}")


def usage(cid: str, root: str = CGROUP) -> float | None:
    """CPU seconds container ``cid`` has used so far; None where its cgroup cannot be read."""
    # cgroupfs and systemd drivers, cgroup v2 (cpu.stat, microseconds) and v1 (cpuacct, nanoseconds)
    for where in (f"docker/{cid}", f"system.slice/docker-{cid}.scope"):
        try:
            for line in Path(root, where, "cpu.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        except (OSError, ValueError):
            pass
        for v1 in ("cpuacct", "cpu,cpuacct", "cpuacct,cpu"):
            try:
                return int(Path(root, v1, where, "cpuacct.usage").read_text()) / 1e9
            except (OSError, ValueError):
                pass
    return None


class Watch:
    """Reads the CPU time of the container whose id ``docker run --cidfile`` writes to
    ``cidfile``, until :meth:`stop`; ``seconds`` is the last value read (None: none was)."""

    def __init__(self, cidfile: Path, root: str = CGROUP) -> None:
        self.seconds: float | None = None
        self._cidfile, self._root = cidfile, root
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="perfgate-cpu-time", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        cid = None
        while not self._done.wait(INTERVAL):
            if cid is None:
                try:
                    text = self._cidfile.read_text().strip()
                except OSError:
                    continue
                if not text:    # the CLI creates the file before it knows the id
                    continue
                if not _ID.fullmatch(text):
                    return
                cid = text
            value = usage(cid, self._root)
            if value is not None:
                self.seconds = value

    def stop(self) -> float | None:
        self._done.set()
        self._thread.join()
        return self.seconds
