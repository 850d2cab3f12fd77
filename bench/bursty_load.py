"""Processes that busy-loop in bursts beside a benchmark: a noisy machine, as CI runners are.

``with bursty_load(n): ...`` runs ``n`` processes, each busy for a random 0.05–0.5 s, then idle
as long, again and again (seeded from ``random``), and kills them on leaving; ``n`` 0 runs none.
Used by ``complexity_check_rounds.py --load`` and ``aa_compare.py --load``.
"""

from __future__ import annotations

import contextlib
import random
import subprocess
import sys
from collections.abc import Iterator

BURSTS = """\
import random, sys, time
rng = random.Random(int(sys.argv[1]))
while True:
    on = rng.uniform(0.05, 0.5)
    end = time.perf_counter() + on
    while time.perf_counter() < end:
        pass
    time.sleep(rng.uniform(0.05, 0.5))
"""


@contextlib.contextmanager
def bursty_load(count: int) -> Iterator[None]:
    hogs = [subprocess.Popen([sys.executable, "-c", BURSTS, str(random.randrange(10**6))]) for _ in range(count)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
