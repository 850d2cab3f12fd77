"""What machine a run happened on.  Runs whose fingerprints differ are different testbeds, so
they are never silently compared; the container runner adds the image digest and harness
versions to this."""

from __future__ import annotations

import hashlib
import json
import os
import platform
from typing import Any


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpuset() -> str:
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return ""
    return ",".join(map(str, cpus))


def host_fingerprint() -> dict[str, Any]:
    return {
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "cpuset": cpuset(),
        "arch": platform.machine(),
        "kernel": platform.release(),
        "os": platform.system(),
    }


def testbed_name(fingerprint: dict[str, Any], prefix: str = "local") -> str:
    """A stable name for the parts of a fingerprint that change what is measured.  The kernel
    is recorded but left out of the name, so routine kernel updates on CI hosts do not split
    history; the image digest, CPU model and cpuset are in."""
    keys = ("image_digest", "cpu_model", "cpus", "cpuset", "arch")
    basis = json.dumps({k: fingerprint.get(k) for k in keys}, sort_keys=True)
    return f"{prefix}-{hashlib.sha256(basis.encode()).hexdigest()[:10]}"
