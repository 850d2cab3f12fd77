"""``perfgate publish`` end to end: the real CLI (in-process, since starting the CLI costs seconds
here; one test runs it as a subprocess), a local SQLite history, and the fake Bencher server."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from fake_bencher.fixtures import TOKEN, commit, fake  # noqa: F401 - fixture
from fake_bencher.openapi import BMF_SCHEMA

from conftest import ROOT
from perfgate.cli import main




@pytest.fixture
def cli(store_path, monkeypatch, capsys):
    """``perfgate ARGS`` in this process; returns an object like CompletedProcess."""

    class Done:
        def __init__(self, returncode: int, stdout: str, stderr: str):
            self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def run(*args: str, check: bool = False, env: dict | None = None) -> Done:
        with monkeypatch.context() as m:
            m.setenv("PERFGATE_STORE", f"sqlite:{store_path}")
            for k, v in (env or {}).items():
                m.setenv(k, v)
            capsys.readouterr()
            code = main(list(args))
            captured = capsys.readouterr()
        if check and code != 0:
            raise AssertionError(f"perfgate {' '.join(args)} exited {code}:\n{captured.err}")
        return Done(code, captured.out, captured.err)

    return run


def env(tmp_path: Path, token: str = TOKEN) -> dict[str, str]:
    return {"BENCHER_API_TOKEN": token, "PERFGATE_SPOOL": str(tmp_path / "spool"),
            "PERFGATE_BENCHER_ATTEMPTS": "3", "PERFGATE_BENCHER_BACKOFF": "0.01",
            "PERFGATE_BENCHER_MAX_BACKOFF": "0.02", "PERFGATE_BENCHER_TIMEOUT": "2"}


def ingest_bmf(cli, tmp_path: Path, i: int, latency: float, branch: str = "main") -> None:
    f = tmp_path / f"bmf-{branch.replace('/', '_')}-{i}.json"
    f.write_text(json.dumps({"parse 1k": {"latency": {"value": latency}, "instructions": {"value": 2e6}}}))
    cli("ingest", str(f), "--adapter", "bmf", "--branch", branch, "--commit", commit(i, branch),
        "--testbed", "ci-x86", "--start-time", str(1_750_000_000 + 60 * i), check=True)


def posts(fake) -> list[dict]:
    return [r["body"] for r in fake.requests if r["op"] == "run_post"]


def test_publish_all_then_nothing_new(cli, fake, tmp_path):
    for i in range(3):
        ingest_bmf(cli, tmp_path, i, 100.0 + i)
    to = f"bencher+{fake.url}/demo"
    proc = cli("publish", "--to", to, "--all", "--json", "--no-thresholds", env=env(tmp_path), check=True)
    doc = json.loads(proc.stdout)
    assert [r["status"] for r in doc["runs"]] == ["published"] * 3
    assert [r["hash"] for r in doc["runs"]] == [commit(i, "main") for i in range(3)]  # oldest first
    assert {"project demo", "testbed ci-x86", "measure instructions"} <= set(doc["created"])
    assert len(fake.reports_of("demo")) == 3
    cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path), check=True)
    assert len(posts(fake)) == 3  # the ledger knew they were sent
    default = str(ROOT / "thresholds" / "default.toml")
    cli("publish", "--to", to, "--thresholds", default, env=env(tmp_path), check=True)  # newest again: idempotent
    assert len(posts(fake)) == 4 and len(fake.reports_of("demo")) == 3
    history = cli("history", "--store", to, "--json", env=env(tmp_path), check=True)
    assert "parse 1k" in history.stdout


def test_export_bmf_is_valid_bmf_and_accepted_by_the_server(cli, fake, tmp_path, fixtures):
    """The bencher CLI is not installable here (not on crates.io); the export is checked against
    Bencher's BMF schema and sent as the ``results`` of a real ``POST /v0/run`` instead."""
    cli("ingest", str(fixtures / "hyperfine" / "parameter-scan.json"), "--branch", "main",
        "--commit", commit(1), "--testbed", "ci-x86", check=True)
    text = cli("export", "--format", "bmf", check=True).stdout
    jsonschema.validate(json.loads(text), BMF_SCHEMA)
    from perfgate.bencher.client import BencherClient

    client = BencherClient(fake.url, TOKEN)
    client.request("POST", "/v0/organizations/perfgate-org/projects", json={"name": "demo", "slug": "demo"})
    report = client.request("POST", "/v0/run", json={
        "project": "demo", "branch": "main", "hash": commit(1), "testbed": "ci-x86",
        "start_time": "2025-01-01T00:00:00Z", "end_time": "2025-01-01T00:01:00Z",
        "settings": {"adapter": "json"}, "results": [text]})
    # BMF measure keys are slugs: `latency` is filed under Bencher's built-in `Latency`.
    sent = {(r["benchmark"]["name"], m["measure"]["slug"]) for r in report["results"][0] for m in r["measures"]}
    assert sent == {(b, m) for b, ms in json.loads(text).items() for m in ms}


def test_outage_spools_then_flush_sends_exactly_once(cli, fake, tmp_path):
    to = f"bencher+{fake.url}/demo"
    ingest_bmf(cli, tmp_path, 0, 100.0)
    cli("publish", "--to", to, "--no-thresholds", env=env(tmp_path), check=True)
    fake.down = True
    for i in (1, 2):
        ingest_bmf(cli, tmp_path, i, 100.0 + i)
        proc = cli("publish", "--to", to, "--no-thresholds", env=env(tmp_path))
        assert proc.returncode == 0, proc.stderr
        assert "spooled" in proc.stderr and "perfgate publish --flush" in proc.stderr
    spool_files = list((tmp_path / "spool").rglob("*"))
    fake.down = False
    flushed = cli("publish", "--to", to, "--flush", "--json", env=env(tmp_path), check=True)
    sent = json.loads(flushed.stdout)["flushed"]["sent"]
    assert [s["hash"] for s in sent] == [commit(1, "main"), commit(2, "main")]
    assert [r["version"]["hash"] for r in fake.reports_of("demo")] == [commit(i, "main") for i in range(3)]
    again = cli("publish", "--store", to, "--flush", env=env(tmp_path), check=True)  # PERFGATE_STORE style
    assert "nothing to publish" in again.stderr and len(fake.reports_of("demo")) == 3
    # The token is nowhere: not in any output, nor in any spool file.
    for text in (flushed.stdout, flushed.stderr, again.stderr, proc.stdout, proc.stderr):
        assert TOKEN not in text
    assert spool_files and all(TOKEN not in p.read_text() for p in spool_files if p.is_file())


def test_wrong_token_and_refused_run_exit_2_with_the_server_message(cli, fake, tmp_path):
    to = f"bencher+{fake.url}/demo"
    ingest_bmf(cli, tmp_path, 0, 100.0)
    wrong = "bencher-wrong-token-feedfacecafe"
    proc = cli("publish", "--to", to, "--no-thresholds", env=env(tmp_path, wrong))
    assert proc.returncode == 2
    assert "HTTP 401" in proc.stderr and "Invalid token" in proc.stderr and "***" in proc.stderr
    assert wrong not in proc.stderr + proc.stdout
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"x": {"latency": {"value": 1.0}}}))
    cli("ingest", str(bad), "--adapter", "bmf", "--branch", "main", "--commit", "deadbeef-not-full",
        "--testbed", "ci-x86", check=True)
    before = len(posts(fake))
    proc = cli("publish", "--to", to, "--no-thresholds", env=env(tmp_path))
    assert proc.returncode == 2 and "Failed to parse git hash" in proc.stderr
    assert len(posts(fake)) == before + 1  # not retried
    assert not list((tmp_path / "spool").glob("*.json"))


def test_pull_request_start_point_flags(cli, fake, tmp_path):
    to = f"bencher+{fake.url}/demo"
    for i in range(3):
        ingest_bmf(cli, tmp_path, i, 100.0)
    cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path), check=True)
    ingest_bmf(cli, tmp_path, 9, 100.0, branch="pr-12")
    cli("publish", "--to", to, "--branch", "pr-12", "--start-point-branch", "main",
        "--start-point-hash", commit(1, "main"), "--start-point-clone-thresholds", "--start-point-max-versions", "10",
        "--no-thresholds", env=env(tmp_path), check=True)
    assert posts(fake)[-1]["start_point"] == {"branch": "main", "hash": commit(1, "main"),
                                              "clone_thresholds": True, "max_versions": 10}
    history = json.loads(cli("history", "--store", to, "--branch", "pr-12", "--json", env=env(tmp_path)).stdout)
    assert len(history[0]["points"]) == 3               # main's first two versions lent, then its own
    ingest_bmf(cli, tmp_path, 10, 100.0, branch="pr-13")
    cli("publish", "--to", to, "--branch", "pr-13", "--start-point-branch", "main", "--start-point-hash",
        commit(2, "main"), "--start-point-max-versions", "1", "--no-thresholds", env=env(tmp_path), check=True)
    history = json.loads(cli("history", "--store", to, "--branch", "pr-13", "--json", env=env(tmp_path)).stdout)
    assert [p["commit"] for p in history[0]["points"]] == [commit(2, "main"), commit(10, "pr-13")]
    usage = cli("publish", "--to", to, "--start-point-hash", "abc", env=env(tmp_path))
    assert usage.returncode == 2 and "need --start-point-branch" in usage.stderr


def test_alerts_are_printed_and_can_fail_the_step(cli, fake, tmp_path):
    rules = tmp_path / "thresholds.toml"
    rules.write_text('[measure.latency]\ntest = "percentage"\nupper_boundary = 0.05\n')
    to = f"bencher+{fake.url}/demo"
    for i in range(4):
        ingest_bmf(cli, tmp_path, i, 100.0)
    cli("publish", "--to", to, "--all", "--thresholds", str(rules), env=env(tmp_path), check=True)
    ingest_bmf(cli, tmp_path, 4, 120.0)
    proc = cli("publish", "--to", to, "--thresholds", str(rules), "--fail-on-alert", env=env(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert "Bencher alert: parse 1k [latency] on main@ci-x86: 120 ns crossed the upper limit 105 ns" in proc.stdout
    assert "+20.0%" in proc.stdout


@pytest.mark.slow  # two CLI start-ups: several seconds each on this machine
def test_token_absent_from_a_real_process(cli, fake, tmp_path, store_path):
    """The installed CLI as a subprocess (its own logging, its own error path): the token is in
    none of stdout, stderr or the spool, whether the server is away or refuses the token."""
    import os
    import subprocess
    import sys

    ingest_bmf(cli, tmp_path, 0, 100.0)
    to = f"bencher+{fake.url}/demo"
    wrong = "bencher-wrong-token-0ddba11"
    base = {**os.environ, "PERFGATE_STORE": f"sqlite:{store_path}"}
    fake.down = True
    down = subprocess.run([sys.executable, "-m", "perfgate.cli", "publish", "--to", to, "--no-thresholds"],
                          capture_output=True, text=True, env={**base, **env(tmp_path)})
    assert down.returncode == 0 and "retry" in down.stderr and "spool" in down.stderr
    fake.down = False
    refused = subprocess.run([sys.executable, "-m", "perfgate.cli", "history", "--store", to],
                             capture_output=True, text=True, env={**base, **env(tmp_path, wrong)})
    assert refused.returncode == 2 and "Invalid token" in refused.stderr
    spooled = [p.read_text() for p in (tmp_path / "spool").rglob("*") if p.is_file()]
    assert spooled
    for text in (down.stdout, down.stderr, refused.stdout, refused.stderr, *spooled):
        assert TOKEN not in text and wrong not in text


def test_detect_and_alerts_verbs_on_a_bencher_store(cli, fake, tmp_path):
    """``perfgate detect`` reads a Bencher project's history, raises its change point once, and
    ``perfgate alerts`` lists it once, with the alerts Bencher's own thresholds raised on the
    same step merged into it."""
    import random

    from fake_bencher.fixtures import make_run, make_store

    rng = random.Random(5)
    values = [100.0 * (1.15 if i >= 30 else 1.0) * rng.lognormvariate(0, 0.02) for i in range(45)]
    rules = tmp_path / "thresholds.toml"
    rules.write_text('[measure.latency]\ntest = "percentage"\nupper_boundary = 0.08\nmax_sample_size = 8\n')
    from perfgate.thresholds import load_thresholds

    store = make_store(fake, tmp_path, thresholds=load_thresholds(rules))
    store.add_runs([make_run(i, v) for i, v in enumerate(values)])
    to = f"bencher+{fake.url}/demo"
    first = cli("detect", "--store", to, "--thresholds", str(rules), "--json", env=env(tmp_path))
    assert first.returncode == 1, first.stderr
    doc = json.loads(first.stdout)
    (series,) = doc["series"]
    cps = [e for e in series["change_points"] if e["kind"] == "change_point"]
    assert len(cps) == 1 and abs(cps[0]["index"] - 30) <= 1 and cps[0]["first_commit"] in cps[0]["commit_range"]
    again = cli("detect", "--store", to, "--thresholds", str(rules), env=env(tmp_path))
    assert again.returncode == 0, again.stderr  # the change alerts once
    listed = json.loads(cli("alerts", "--store", to, "--status", "all", "--json", env=env(tmp_path), check=True).stdout)
    (step,) = [a for a in listed if a["kind"] == "change_point"]
    assert step["details"]["bencher_alerts"]                      # Bencher alerted on the step too
    merged = set(step["details"]["bencher_alerts"])
    for a in listed:                                                # ... and is not listed again
        assert a is step or (a["id"] not in merged and a["commit"] not in step["commit_range"])


def test_ingest_and_history_straight_into_a_bencher_store(cli, fake, tmp_path, fixtures):
    to = f"bencher+{fake.url}/demo"
    for _ in range(2):  # the second ingest of the same output is a no-op on the server too
        cli("ingest", str(fixtures / "hyperfine" / "two-commands.json"), "--store", to, "--branch", "main",
            "--commit", commit(1), "--testbed", "ci-x86", env=env(tmp_path), check=True)
    (report,) = fake.reports_of("demo")
    assert report["version"]["hash"] == commit(1) and len(report["results"]) >= 2
    history = json.loads(cli("history", "--store", to, "--json", env=env(tmp_path), check=True).stdout)
    assert {s["benchmark"] for s in history} == {fake.dims["benchmarks"][r["benchmark"]]["name"] for r in report["results"]}


def test_in_github_actions_a_spooled_run_leaves_a_warning_on_the_run(cli, fake, tmp_path):
    # The job stays green (the next publish sends the run), but in CI the spool goes with the
    # runner unless the workflow keeps it: the run's summary says that runs wait.
    ingest_bmf(cli, tmp_path, 0, 100.0)
    fake.down = True
    proc = cli("publish", "--to", f"bencher+{fake.url}/demo", "--no-thresholds",
               env={**env(tmp_path), "GITHUB_ACTIONS": "true"})
    assert proc.returncode == 0
    [warning] = [line for line in proc.stdout.splitlines() if line.startswith("::warning title=perfgate publish::")]
    assert "1 run(s) wait in the spool" in warning and str(tmp_path / "spool") in warning
    quiet = cli("publish", "--to", f"bencher+{fake.url}/demo", "--no-thresholds", env=env(tmp_path))
    assert "::warning" not in quiet.stdout + quiet.stderr


def _stepped_history_on_bencher(fake, tmp_path, rules_text):
    import random

    from fake_bencher.fixtures import make_run, make_store

    from perfgate.thresholds import load_thresholds

    rng = random.Random(5)
    values = [100.0 * (1.15 if i >= 30 else 1.0) * rng.lognormvariate(0, 0.02) for i in range(42)]
    rules = tmp_path / "thresholds.toml"
    rules.write_text(rules_text)
    make_store(fake, tmp_path, thresholds=load_thresholds(rules)).add_runs([make_run(i, v) for i, v in enumerate(values)])
    return rules


def test_bencher_alerting_on_every_value_after_a_step_is_the_step_counted_once(cli, fake, tmp_path):
    # Bencher's limit does not restart at a change point: with a long baseline it alerts on every
    # value from the step on, and detect listed a "threshold" entry beside the change point.
    rules = _stepped_history_on_bencher(
        fake, tmp_path, '[measure.latency]\ntest = "percentage"\nupper_boundary = 0.08\nmax_sample_size = 64\n')
    to = f"bencher+{fake.url}/demo"
    doc = json.loads(cli("detect", "--store", to, "--thresholds", str(rules), "--json", env=env(tmp_path)).stdout)
    (series,) = doc["series"]
    assert [e["kind"] for e in series["change_points"]] == ["change_point"], series["change_points"]
    assert [a["kind"] for a in doc["new_alerts"]] == ["change_point"]


def test_a_pull_request_branch_does_not_raise_main_s_change_again(cli, fake, tmp_path):
    # Bencher lends a branch started from main main's history up to its start point: detect found
    # main's step in it and raised it a second time, on the pull request's branch.
    rules = _stepped_history_on_bencher(fake, tmp_path, '[measure.latency]\ntest = "percentage"\n'
                                        'upper_boundary = 0.08\nmax_sample_size = 8\n')
    ingest_bmf(cli, tmp_path, 50, 115.0, branch="pr-1")
    from fake_bencher.fixtures import commit as bencher_commit
    cli("publish", "--to", f"bencher+{fake.url}/demo", "--branch", "pr-1", "--start-point-branch", "main",
        "--start-point-hash", bencher_commit(41), "--no-thresholds", env=env(tmp_path), check=True)
    to = f"bencher+{fake.url}/demo"
    doc = json.loads(cli("detect", "--store", to, "--thresholds", str(rules), "--json", env=env(tmp_path)).stdout)
    by_branch = {s["branch"]: s for s in doc["series"] if s["measure"] == "latency"}
    assert by_branch["pr-1"]["points"] > 1                     # main's history is there, as the baseline
    assert [e.get("inherited") for e in by_branch["pr-1"]["change_points"] if e["kind"] == "change_point"] == [True]
    assert "alert" not in by_branch["pr-1"]["change_points"][0]
    assert [(a["branch"], a["kind"]) for a in doc["new_alerts"]] == [("main", "change_point")]
    listed = json.loads(cli("alerts", "--store", to, "--json", env=env(tmp_path), check=True).stdout)
    assert {a["branch"] for a in listed} == {"main"}


def test_the_fake_bencher_serves_from_a_shell_for_trying_by_hand(cli, tmp_path):
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(ROOT / "tests/fake_bencher/serve.py"), str(port)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert "fake Bencher at" in server.stdout.readline()
        ingest_bmf(cli, tmp_path, 0, 100.0)
        proc = cli("publish", "--to", f"bencher+http://127.0.0.1:{port}/tried", env=env(tmp_path))
        assert proc.returncode == 0 and "published run" in proc.stderr, proc.stderr
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=30)
    assert "0 contract problem(s)" in out


def test_publish_leaves_a_check_s_runs_out_unless_its_branch_is_named(cli, fake, tmp_path):
    # `check` records its sides in the same history (check/REF); `publish --all` sent them to Bencher.
    to = f"bencher+{fake.url}/demo"
    ingest_bmf(cli, tmp_path, 0, 100.0)
    ingest_bmf(cli, tmp_path, 1, 100.0, branch="check/main")
    cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path), check=True)
    assert [b["branch"] for b in posts(fake)] == ["main"]
    cli("publish", "--to", to, "--no-thresholds", env=env(tmp_path), check=True)        # the newest: main's
    assert [b["branch"] for b in posts(fake)] == ["main", "main"]
    cli("publish", "--to", to, "--all", "--branch", "check/main", "--no-thresholds", env=env(tmp_path), check=True)
    assert [b["branch"] for b in posts(fake)][-1] == "check/main"


def test_runs_spooled_for_a_mistyped_target_are_named_by_later_publishes(cli, fake, tmp_path):
    # An audit: --to with a port nobody listens on read as an outage and spooled the run; later
    # publishes to the right URL said "nothing to publish" and never named it again.
    ingest_bmf(cli, tmp_path, 0, 100.0)
    wrong = cli("publish", "--to", "bencher+http://127.0.0.1:9/demo", "--no-thresholds", env=env(tmp_path))
    assert wrong.returncode == 0 and "spooled" in wrong.stderr, wrong.stderr
    right = cli("publish", "--to", f"bencher+{fake.url}/demo", "--flush", env=env(tmp_path), check=True)
    said = " ".join(right.stderr.split())
    assert "1 run(s) wait in the spool for another target (http://127.0.0.1:9/demo), perhaps a mistyped --to" in said
    assert TOKEN not in right.stderr


def test_publish_run_takes_a_unique_prefix(cli, fake, tmp_path):
    """The README's recovery step is `publish --run ID`; ids are shown shortened, and a prefix was
    "no run" (compare and alerts take prefixes)."""
    ingest_bmf(cli, tmp_path, 1, 100.0)
    ingest_bmf(cli, tmp_path, 2, 101.0)
    listed = cli("export", "--format", "csv", check=True).stdout
    run_id = next(line.split(",")[0] for line in listed.splitlines()[1:] if commit(1, "main") in line)
    to = ["--to", f"bencher+{fake.url}/demo"]
    proc = cli("publish", *to, "--run", "zzzz", env=env(tmp_path))
    assert proc.returncode == 2 and "zzzz" in proc.stderr
    proc = cli("publish", *to, "--run", run_id[:8], env=env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert f"published run {run_id}" in proc.stderr and len(posts(fake)) == 1


def test_forget_deletes_a_report_on_bencher_one_run_a_call(cli, fake, tmp_path):
    """``perfgate forget --run`` on a Bencher store sends Bencher's DELETE of that report (held to
    contracts/bencher by the fake); several runs at once, or retiring some of a benchmark's series
    (Bencher archives a benchmark everywhere), are refused before anything is sent."""
    to = f"bencher+{fake.url}/demo"
    for i in range(3):
        ingest_bmf(cli, tmp_path, i, 100.0 + i)
    cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path), check=True)
    reports = [r["uuid"] for r in fake.reports_of("demo")]
    assert len(reports) == 3
    bad = next(r for r in fake.reports_of("demo") if r["uuid"] == reports[1])["uuid"]

    dry = cli("forget", "--store", to, "--run", bad, env=env(tmp_path), check=True)
    assert "would delete run" in dry.stdout and len(fake.reports_of("demo")) == 3
    two = cli("forget", "--store", to, "--run", reports[0], "--run", bad, "--yes", env=env(tmp_path))
    assert two.returncode != 0 and "give one --run a call" in two.stderr and "nothing was deleted" in two.stderr
    retire = cli("forget", "--store", to, "--benchmark", "parse 1k", "--measure", "latency", "--yes", env=env(tmp_path))
    assert retire.returncode != 0 and "archives a benchmark whole" in " ".join(retire.stderr.split())
    assert len(fake.reports_of("demo")) == 3 and not _changes(fake)

    cli("forget", "--store", to, "--run", bad[:8], "--yes", env=env(tmp_path), check=True)
    assert sorted(r["uuid"] for r in fake.reports_of("demo")) == sorted(set(reports) - {bad})
    assert [r["op"] for r in fake.requests if r["method"] == "DELETE"] == ["proj_report_delete"]
    history = json.loads(cli("history", "--store", to, "--json", env=env(tmp_path), check=True).stdout)
    assert all(len(s["points"]) == 2 for s in history)


def _two_benchmarks_on_two_branches(cli, fake, tmp_path) -> str:
    """'parse 1k' and 'sort 1k' (latency and instructions each) on main and dev, published."""
    for i in range(3):
        for branch in ("main", "dev"):
            f = tmp_path / f"two-{branch}-{i}.json"
            f.write_text(json.dumps({name: {"latency": {"value": 100.0 + i}, "instructions": {"value": 2e6}}
                                     for name in ("parse 1k", "sort 1k")}))
            cli("ingest", str(f), "--adapter", "bmf", "--branch", branch, "--commit", commit(i, branch),
                "--testbed", "ci-x86", "--start-time", str(1_750_000_000 + 60 * i), check=True)
    to = f"bencher+{fake.url}/demo"
    cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path), check=True)
    return to


def _changes(fake) -> list[dict]:
    """Every request that may change the server but a run's POST."""
    return [r for r in fake.requests if r["method"] in ("PATCH", "DELETE", "PUT")]


def _bench(fake, name: str) -> dict:
    return next(b for b in fake.dims["benchmarks"].values() if b["name"] == name)


def _history(cli, to, tmp_path) -> list[dict]:
    return json.loads(cli("history", "--store", to, "--json", env=env(tmp_path), check=True).stdout)


def _pages(cli, to, site: Path) -> str:
    """The text of the site ``pages`` makes (its vendored scripts aside)."""
    cli("pages", "--store", to, "--out", str(site), env=env(site.parent), check=True)
    return "".join(p.read_text(errors="replace") for p in site.rglob("*") if p.is_file() and p.suffix != ".js")


def test_forget_archives_a_benchmark_on_bencher_with_one_patch(cli, fake, tmp_path):
    """Users moving to Bencher retire a renamed benchmark: the dry run lists its series as on
    SQLite, worded for archiving; --yes sends one PATCH archiving the benchmark by its UUID,
    and history and detect no longer see it while its results stay on the server."""
    to = _two_benchmarks_on_two_branches(cli, fake, tmp_path)
    dry = cli("forget", "--store", to, "--benchmark", "parse 1k", env=env(tmp_path), check=True)
    listed = [line for line in dry.stdout.splitlines() if line.startswith("would archive series")]
    assert len(listed) == 4 and all("parse 1k" in line and "all 3 point(s)" in line for line in listed), dry.stdout
    assert "12 metric(s) in 4 series" in dry.stdout and "nothing was archived" in dry.stdout
    assert not _changes(fake)
    plan = json.loads(cli("forget", "--store", to, "--benchmark", "parse 1k", "--json", env=env(tmp_path),
                          check=True).stdout)
    assert plan["archived"] is False and plan["deleted"] is False
    assert {(s["branch"], s["measure"]) for s in plan["series"]} == \
        {(b, m) for b in ("main", "dev") for m in ("latency", "instructions")}

    assert "parse 1k" in _pages(cli, to, tmp_path / "before")

    uuid = _bench(fake, "parse 1k")["uuid"]
    done = cli("forget", "--store", to, "--benchmark", "parse 1k", "--yes", env=env(tmp_path), check=True)
    said = " ".join(done.stdout.split())
    assert "archived series" in said and "stays on the Bencher server" in said and "Bencher's console" in said
    assert [(r["op"], r["path"], r["body"]) for r in _changes(fake)] == [
        ("proj_benchmark_patch", f"/v0/projects/demo/benchmarks/{uuid}", {"archived": True})]
    assert _bench(fake, "parse 1k").get("archived") and _bench(fake, "sort 1k").get("archived") is None
    assert len(fake.reports_of("demo")) == 6 and all(len(r["results"]) == 4 for r in fake.reports_of("demo"))
    history = _history(cli, to, tmp_path)
    assert {s["benchmark"] for s in history} == {"sort 1k"} and len(history) == 4
    detect = cli("detect", "--store", to, "--json", env=env(tmp_path))
    assert detect.returncode == 0, detect.stderr
    assert {s["benchmark"] for s in json.loads(detect.stdout)["series"]} == {"sort 1k"}
    shown = _pages(cli, to, tmp_path / "after")
    assert "sort 1k" in shown and "parse 1k" not in shown
    for text in (dry.stdout, dry.stderr, done.stdout, done.stderr, detect.stderr):
        assert TOKEN not in text


def test_forget_on_bencher_refuses_a_narrowed_retire_before_anything_is_sent(cli, fake, tmp_path):
    to = _two_benchmarks_on_two_branches(cli, fake, tmp_path)
    for narrow in (["--measure", "latency"], ["--branch", "dev"], ["--testbed", "ci-x86", "--branch", "main"]):
        for yes in ([], ["--yes"]):
            proc = cli("forget", "--store", to, "--benchmark", "parse 1k", *narrow, *yes, env=env(tmp_path))
            said = " ".join(proc.stderr.split())
            assert proc.returncode != 0 and "archives a benchmark whole" in said, said
            assert narrow[0] in said and "'perfgate forget --benchmark NAME' alone archives all of it" in said
            assert "nothing was changed" in said and TOKEN not in proc.stdout + proc.stderr
    assert not _changes(fake) and len(_history(cli, to, tmp_path)) == 8


def test_a_benchmark_archived_already_is_retired(cli, fake, tmp_path):
    # The PATCH is carried out but its answer is lost: the client's resend finds it archived and
    # answers it so; a rerun of the command finds nothing left to archive and says so.
    to = _two_benchmarks_on_two_branches(cli, fake, tmp_path)
    fake.inject("drop_after", method="PATCH", path="/v0/projects/demo/benchmarks/")
    done = cli("forget", "--store", to, "--benchmark", "parse 1k", "--yes", env=env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [r["op"] for r in _changes(fake)] == ["proj_benchmark_patch"] * 2
    again = cli("forget", "--store", to, "--benchmark", "parse 1k", "--yes", env=env(tmp_path))
    assert again.returncode == 0 and "already archived" in again.stdout, again.stderr
    doc = json.loads(cli("forget", "--store", to, "--benchmark", "parse 1k", "--yes", "--json",
                         env=env(tmp_path), check=True).stdout)
    assert doc["already_archived"] is True and doc["series"] == []
    assert len(_changes(fake)) == 2 and {s["benchmark"] for s in _history(cli, to, tmp_path)} == {"sort 1k"}
    # A name Bencher never had is still an error, archived or not.
    typo = cli("forget", "--store", to, "--benchmark", "parse 1K", "--yes", env=env(tmp_path))
    assert typo.returncode != 0 and "no series matches --benchmark 'parse 1K'" in typo.stderr


def test_archiving_refused_by_bencher_is_named_and_nothing_changes(cli, fake, tmp_path):
    from fake_bencher.fixtures import VIEWER_TOKEN

    to = _two_benchmarks_on_two_branches(cli, fake, tmp_path)
    proc = cli("forget", "--store", to, "--benchmark", "parse 1k", "--yes", env=env(tmp_path, VIEWER_TOKEN))
    said = " ".join(proc.stderr.split())
    assert proc.returncode != 0 and "HTTP 403" in said and "PATCH /v0/projects/demo/benchmarks/" in said
    assert "may not edit benchmarks" in said and "nothing was changed" in said
    assert VIEWER_TOKEN not in proc.stdout + proc.stderr
    fake.inject("status", method="PATCH", path="/v0/projects/demo/benchmarks/", status=404)
    proc = cli("forget", "--store", to, "--benchmark", "parse 1k", "--yes", env=env(tmp_path))
    said = " ".join(proc.stderr.split())
    assert proc.returncode != 0 and "HTTP 404" in said and "nothing was changed" in said, said
    assert TOKEN not in proc.stdout + proc.stderr
    # A server that ignores the field answers 200 without archiving: not taken for done.
    fake.inject("reply", method="PATCH", path="/v0/projects/demo/benchmarks/", status=200,
                body={k: v for k, v in _bench(fake, "parse 1k").items() if k != "head"})
    proc = cli("forget", "--store", to, "--benchmark", "parse 1k", "--yes", env=env(tmp_path))
    assert proc.returncode != 0 and "without an archived date" in " ".join(proc.stderr.split())
    wrong = "bencher-wrong-token-0123456789"     # the server echoes a wrong token in its 401
    proc = cli("forget", "--store", to, "--benchmark", "parse 1k", "--yes", env=env(tmp_path, wrong))
    assert proc.returncode != 0 and wrong not in proc.stdout + proc.stderr
    assert _bench(fake, "parse 1k").get("archived") is None and len(_history(cli, to, tmp_path)) == 8


def test_archiving_on_bencher_keeps_perfgate_s_alerts_as_sqlite_does(cli, fake, tmp_path):
    # As on SQLite (and as forget --run on Bencher): the dry run names the series' active
    # alerts; perfgate's own alert of a retired series stays, remembered here, until acknowledged.
    rules = _stepped_history_on_bencher(
        fake, tmp_path, '[measure.latency]\ntest = "percentage"\nupper_boundary = 0.08\nmax_sample_size = 8\n')
    to = f"bencher+{fake.url}/demo"
    cli("detect", "--store", to, "--thresholds", str(rules), env=env(tmp_path))
    (alert,) = [a for a in json.loads(cli("alerts", "--store", to, "--json", env=env(tmp_path), check=True).stdout)
                if a["kind"] == "change_point"]
    dry = cli("forget", "--store", to, "--benchmark", "sort 1e6", env=env(tmp_path), check=True)
    assert f"active alert {alert['id'][:8]} (change_point" in dry.stdout
    cli("forget", "--store", to, "--benchmark", "sort 1e6", "--yes", env=env(tmp_path), check=True)
    assert _history(cli, to, tmp_path) == []
    left = json.loads(cli("alerts", "--store", to, "--json", env=env(tmp_path), check=True).stdout)
    assert alert["id"] in [a["id"] for a in left]
    cli("alerts", "--store", to, "--ack", alert["id"], env=env(tmp_path), check=True)
    left = json.loads(cli("alerts", "--store", to, "--json", env=env(tmp_path), check=True).stdout)
    assert alert["id"] not in [a["id"] for a in left]


def test_an_archived_benchmark_leaves_the_runs_perfgate_reads_and_exports(cli, fake, tmp_path):
    """What perfgate reads from the reports leaves the archived benchmark out, as its series are:
    export, and sync --export, which writes no second file for a run it wrote before the archive
    but records the archived metrics under forgotten/, so a store rebuilt from the folder leaves
    them out too (as a retire on SQLite does)."""
    to = _two_benchmarks_on_two_branches(cli, fake, tmp_path)
    folder = tmp_path / "data"
    first = json.loads(cli("sync", "--export", str(folder), "--store", to, "--json", env=env(tmp_path),
                           check=True).stdout)
    assert first["runs_written"] == 6 and first["forgotten_written"] == 0
    cli("forget", "--store", to, "--benchmark", "parse 1k", "--yes", env=env(tmp_path), check=True)

    csv = cli("export", "--store", to, "--format", "csv", env=env(tmp_path), check=True).stdout
    assert "sort 1k" in csv and "parse 1k" not in csv
    again = json.loads(cli("sync", "--export", str(folder), "--store", to, "--json", env=env(tmp_path),
                           check=True).stdout)
    assert again["runs_written"] == 0 and again["forgotten_written"] == 12, again
    rebuilt = f"sqlite:{tmp_path / 'rebuilt.db'}"
    cli("sync", "--import", str(folder), "--store", rebuilt, check=True)
    history = json.loads(cli("history", "--store", rebuilt, "--json", check=True).stdout)
    assert {s["benchmark"] for s in history} == {"sort 1k"} and len(history) == 4
    fresh = tmp_path / "fresh"        # a folder begun after the archive holds no trace of it
    cli("sync", "--export", str(fresh), "--store", to, env=env(tmp_path), check=True)
    assert "parse 1k" not in "".join(p.read_text() for p in fresh.rglob("*.json") if "forgotten" not in p.parts)
