"""`perfgate ingest --fail-on-alert` gates on the alerts a Bencher store raises as it records the
run; into a store that raises none (SQLite) it is refused, naming `perfgate detect`, instead of
passing every run: a gate copied from github-action-benchmark's fail-on-alert that never failed."""

from __future__ import annotations

from pathlib import Path

from perfgate.store.sqlite import SqliteStore

HYPERFINE = Path(__file__).parent / "fixtures" / "hyperfine" / "two-commands.json"


def test_fail_on_alert_into_sqlite_is_refused_and_nothing_is_recorded(cli, store_path):
    proc = cli("ingest", str(HYPERFINE), "--branch", "main", "--commit", "abc1234", "--testbed", "tb",
               "--fail-on-alert")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "perfgate detect" in proc.stderr and "nothing was recorded" in proc.stderr
    if store_path.exists():
        with SqliteStore(store_path) as s:
            assert s.runs() == []


def test_without_the_flag_the_same_ingest_records_the_run(cli, store_path):
    proc = cli("ingest", str(HYPERFINE), "--branch", "main", "--commit", "abc1234", "--testbed", "tb")
    assert proc.returncode == 0, proc.stderr
    with SqliteStore(store_path) as s:
        assert len(s.runs()) == 1
