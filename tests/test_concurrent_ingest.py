"""Several CI processes ingesting into one SQLite history at once lose nothing and duplicate nothing."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3

WRITERS = 8
RUNS_EACH = 15


def _writer(store: str, jobs: list[tuple[str, str]], barrier) -> None:
    from perfgate.cli import main

    barrier.wait()  # start together, so the writers really contend
    for path, commit in jobs:
        code = main(["ingest", "--store", store, "--adapter", "bmf", path,
                     "--branch", "main", "--commit", commit, "--testbed", "tb"])
        if code != 0:
            raise SystemExit(code)


def test_eight_concurrent_ingesters_record_every_run_exactly_once(tmp_path, store_path):
    runs = {}
    for w in range(WRITERS):
        for r in range(RUNS_EACH):
            f = tmp_path / f"w{w}-r{r}.json"
            f.write_text(json.dumps({f"bench-{b}": {"latency": {"value": 1000.0 + w * 100 + r + b}}
                                     for b in range(5)}))
            runs.setdefault(w, []).append((str(f), f"w{w}r{r}"))
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(WRITERS)
    # Each writer ingests its own runs, then re-ingests its neighbour's (a retried CI job): the
    # duplicates must be recognised even while they race with the originals.
    procs = [ctx.Process(target=_writer, args=(f"sqlite:{store_path}", runs[w] + runs[(w + 1) % WRITERS], barrier))
             for w in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0

    db = sqlite3.connect(store_path)
    commits = sorted(row[0] for row in db.execute("SELECT commit_hash FROM run"))
    assert commits == sorted(commit for jobs in runs.values() for _, commit in jobs)
    assert db.execute("SELECT COUNT(*) FROM metric").fetchone()[0] == WRITERS * RUNS_EACH * 5
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
