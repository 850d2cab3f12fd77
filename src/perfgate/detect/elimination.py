"""Weakest-first elimination over an ordered chain of change point candidates.

Screening and pruning both drop, one at a time, the failing candidate with the smallest score
and then re-judge its two neighbours (whose windows have just widened).  Done with a list that is
O(k²) for k candidates; here a doubly linked chain and a heap with lazy invalidation make it
O(k log k) with the same result (ties go to the leftmost candidate, as ``min`` over a list does).
"""

from __future__ import annotations

import heapq
from typing import Callable

# judge(lo, t, hi) -> (passes, score): candidate t judged between its neighbours lo and hi
# (0 and n at the ends).
Judge = Callable[[int, int, int], tuple[bool, float]]


def eliminate(positions: list[int], n: int, judge: Judge) -> list[int]:
    """The candidates left when every survivor passes ``judge`` given its surviving neighbours."""
    k = len(positions)
    prev = list(range(-1, k - 1))
    nxt = list(range(1, k + 1))
    alive = [True] * k
    version = [0] * k

    def verdict(i: int) -> tuple[bool, float]:
        lo = positions[prev[i]] if prev[i] >= 0 else 0
        hi = positions[nxt[i]] if nxt[i] < k else n
        return judge(lo, positions[i], hi)

    heap = []
    for i in range(k):
        ok, score = verdict(i)
        if not ok:
            heap.append((score, i, 0))
    heapq.heapify(heap)
    while heap:
        _, i, v = heapq.heappop(heap)
        if not alive[i] or v != version[i]:
            continue                      # stale: removed, or re-judged since it was pushed
        alive[i] = False
        p, q = prev[i], nxt[i]
        if p >= 0:
            nxt[p] = q
        if q < k:
            prev[q] = p
        for j in (p, q):
            if 0 <= j < k:
                version[j] += 1
                ok, score = verdict(j)
                if not ok:
                    heapq.heappush(heap, (score, j, version[j]))
    return [positions[i] for i in range(k) if alive[i]]
