"""Series analysed in worker processes give what one process gives, in order."""

from __future__ import annotations

import json
import os

import numpy as np

from perfgate.parallel import MIN_ITEMS, map_in_processes


def _pid_and_square(x: int) -> tuple[int, int]:
    return os.getpid(), x * x


def test_map_in_processes_keeps_order_and_uses_workers():
    items = list(range(MIN_ITEMS * 4))
    out = map_in_processes(_pid_and_square, items, workers=2)
    assert [sq for _, sq in out] == [x * x for x in items]
    assert os.getpid() not in {pid for pid, _ in out}         # the work ran in workers
    few = map_in_processes(_pid_and_square, items[:3], workers=2)
    assert {pid for pid, _ in few} == {os.getpid()}           # too few to be worth workers


def test_batch_detect_same_with_one_or_two_workers(cli, tmp_path):
    rng = np.random.default_rng(9)
    batch = []
    for i in range(MIN_ITEMS + 8):
        x = 100 * (1 + 0.01 * rng.standard_normal(150))
        if i % 3:
            x[40 + i:] *= 1.05 if i % 2 else 0.95
        batch.append([float(v) for v in x])
    f = tmp_path / "batch.json"
    f.write_text(json.dumps(batch))
    one = cli("detect", "--series", str(f), "--json", "--jobs", "1")
    two = cli("detect", "--series", str(f), "--json", "--jobs", "2")
    assert one.returncode == two.returncode == 1
    assert json.loads(one.stdout) == json.loads(two.stdout)
    found = [[c["index"] for c in r["change_points"]] for r in json.loads(two.stdout)]
    assert found[1] == [41] and found[2] == [42] and found[0] == found[3] == []
    assert cli("detect", "--series", str(f), "--jobs", "0").returncode == 2


def test_store_detect_same_with_one_or_two_workers(cli, store_path):
    from perfgate.model import Metric, Run
    from perfgate.model import Testbed as Bed
    from perfgate.store.sqlite import SqliteStore

    rng = np.random.default_rng(12)
    n, count = 80, MIN_ITEMS + 4
    values = 1e6 * (1 + 0.01 * rng.standard_normal((count, n)))
    values[::4, 50:] *= 1.2                           # every fourth benchmark regresses at c0050
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"),
                            [Metric(f"b{k:02d}", "latency", float(values[k, i])) for k in range(count)],
                            start_time=1_700_000_000.0 + i) for i in range(n)])
    one = json.loads(cli("detect", "--json", "--no-record", "--jobs", "1").stdout)
    two = cli("detect", "--json", "--jobs", "2")
    assert two.returncode == 1, two.stderr
    data = json.loads(two.stdout)

    def found(d):
        return [[{k: v for k, v in c.items() if k != "alert"} for c in s["change_points"]] for s in d["series"]]

    assert found(one) == found(data)
    flagged = sorted(a["benchmark"] for a in data["new_alerts"] if a["kind"] == "change_point")
    assert flagged == [f"b{k:02d}" for k in range(0, count, 4)]


def test_without_fork_the_items_are_sent_to_the_workers(monkeypatch):
    """Where processes cannot be forked (Windows), the items are pickled to the workers of the
    platform's start method instead of inherited: the same results, in order."""
    import multiprocessing

    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    items = list(range(MIN_ITEMS * 2))
    out = map_in_processes(_pid_and_square, items, workers=2)
    assert [sq for _, sq in out] == [x * x for x in items]
    assert os.getpid() not in {pid for pid, _ in out}
