"""Small real workloads timed in-process for the A/A and power scripts (shared by both).

Each workload is a plain Python function doing real work (sorting, hashing, parsing, string and
dict building, arithmetic) at several sizes; a sample is the wall time of one call measured with
``time.perf_counter_ns`` on this machine, with whatever else the machine is doing at the time.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from typing import Callable


def _sort(n: int) -> Callable[[], object]:
    data = [random.Random(n).random() for _ in range(n)]
    return lambda: sorted(data)


def _hash(n: int) -> Callable[[], object]:
    blob = bytes(range(256)) * (n // 256 + 1)
    return lambda: hashlib.sha256(blob[:n]).digest()


def _json(n: int) -> Callable[[], object]:
    doc = {str(i): [i, str(i), {"x": i * 0.5}] for i in range(n)}
    return lambda: json.loads(json.dumps(doc))


def _join(n: int) -> Callable[[], object]:
    return lambda: "".join(str(i) for i in range(n))


def _dict(n: int) -> Callable[[], object]:
    return lambda: {i: i * i for i in range(n)}


def _loop(n: int) -> Callable[[], object]:
    def work() -> int:
        acc = 0
        for i in range(n):
            acc = (acc * 31 + i) & 0xFFFFFFFF
        return acc
    return work


def _primes(n: int) -> Callable[[], object]:
    def work() -> int:
        sieve = bytearray([1]) * n
        for i in range(2, int(n ** 0.5) + 1):
            if sieve[i]:
                sieve[i * i::i] = bytearray(len(range(i * i, n, i)))
        return sum(sieve)
    return work


def _regex(n: int) -> Callable[[], object]:
    import re
    text = "abc123 def456 " * n
    pat = re.compile(r"[a-z]+(\d+)")
    return lambda: len(pat.findall(text))


def _fmt(n: int) -> Callable[[], object]:
    return lambda: [f"{i:08.3f}|{i:x}" for i in range(n)]


def _set(n: int) -> Callable[[], object]:
    a, b = set(range(0, 2 * n, 2)), set(range(0, 3 * n, 3))
    return lambda: len(a & b) + len(a | b)


KINDS = {"sort": (_sort, 800), "sha256": (_hash, 60_000), "json": (_json, 150), "join": (_join, 1500),
         "dict": (_dict, 2500), "loop": (_loop, 3000), "primes": (_primes, 20_000), "regex": (_regex, 300),
         "format": (_fmt, 600), "set": (_set, 1500)}
SIZES = (1.0, 1.3, 1.7, 2.2, 3.0)


def workloads() -> dict[str, Callable[[], object]]:
    """50 benchmarks: 10 kinds × 5 sizes, each roughly 0.1–1 ms a call."""
    out = {}
    for kind, (make, base) in KINDS.items():
        for s in SIZES:
            out[f"{kind}-{int(base * s)}"] = make(int(base * s))
    return out


def time_once(fn: Callable[[], object]) -> float:
    t = time.perf_counter_ns()
    fn()
    return float(time.perf_counter_ns() - t)
