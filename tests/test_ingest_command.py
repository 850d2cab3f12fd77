"""`perfgate ingest FILE -- COMMAND` runs the harness itself: the run records the machine's load
while it ran (``host_load``, which detect's hold reads), its start and end and its command line,
and a command that fails, is interrupted or leaves a FILE unwritten records nothing."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from perfgate import cli as perfgate_cli
from perfgate import host_load

# A small real harness: sleeps ($HARNESS_SLEEP, default 0.3 s), then writes a BMF file of one
# latency (argv: OUT VALUE [EXIT]).
HARNESS = textwrap.dedent("""
    import json, os, sys, time
    print("harness progress", flush=True)
    time.sleep(float(os.environ.get("HARNESS_SLEEP", "0.3")))
    out, value = sys.argv[1], float(sys.argv[2])
    with open(out, "w") as f:
        json.dump({"bench": {"latency": {"value": value}}}, f)
    sys.exit(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
""")


@pytest.fixture
def harness(tmp_path: Path) -> list[str]:
    path = tmp_path / "harness.py"
    path.write_text(HARNESS)
    return [sys.executable, str(path)]


def _runs(cli) -> list[dict]:
    proc = cli("export", "--format", "json")
    if proc.returncode == 2 and "no history" in proc.stderr.lower():
        return []
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _nothing_recorded(cli, store_path: Path) -> bool:
    return not store_path.exists() or _runs(cli) == []


def test_the_run_records_the_command_s_load_times_and_command_line(cli, harness, tmp_path):
    out = tmp_path / "out.json"
    before = time.time()
    proc = cli("ingest", str(out), "--branch", "main", "--commit", "a" * 40, "--testbed", "tb",
               "--", *harness, str(out), "1000")
    after = time.time()
    assert proc.returncode == 0, proc.stderr
    [run] = _runs(cli)
    load = run["context"][host_load.KEY]
    assert 0 <= load[host_load.OTHERS] <= 1 and load["cpus"] == os.cpu_count() and load["seconds"] >= 0.3
    assert load[host_load.CONTENDED] == host_load.contended(load[host_load.OTHERS], os.cpu_count())
    assert "other processes took" in proc.stderr
    assert run["context"]["command"] == f"{harness[0]} {harness[1]} {out} 1000"
    # the command's own start and end, not the moment ingest recorded the run
    assert before <= run["start_time"] and run["start_time"] + 0.3 <= run["end_time"] <= after


def test_with_json_the_command_s_stdout_goes_to_stderr_and_stdout_is_the_json(cli, harness, tmp_path):
    out = tmp_path / "out.json"
    proc = cli("ingest", str(out), "--json", "--branch", "main", "--testbed", "tb", "--", *harness, str(out), "7")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "recorded" and "harness progress" in proc.stderr
    # without --json the harness's stdout is perfgate's
    proc = cli("ingest", str(out), "--branch", "main", "--testbed", "tb", "--", *harness, str(out), "8")
    assert proc.returncode == 0 and "harness progress" in proc.stdout, proc.stderr


@pytest.mark.skipif(shutil.which("hyperfine") is None, reason="hyperfine is not installed")
def test_a_hyperfine_run_through_ingest(cli, tmp_path):
    (tmp_path / "big.txt").write_text("\n".join(map(str, range(5000, 0, -1))))
    proc = cli("ingest", "out.json", "--branch", "main", "--commit", "a" * 40, "--testbed", "tb",
               "--", "hyperfine", "--runs", "3", "--export-json", "out.json", "sort -n big.txt", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [run] = _runs(cli)
    assert run["adapter"] == "hyperfine" and [m["benchmark"] for m in run["metrics"]] == ["sort -n big.txt"]
    assert host_load.OTHERS in run["context"][host_load.KEY]
    assert run["context"]["command"] == "hyperfine --runs 3 --export-json out.json 'sort -n big.txt'"


@pytest.mark.parametrize("code", [1, 3])
def test_a_failing_command_records_nothing_even_when_it_wrote_its_file(cli, store_path, harness, tmp_path, code):
    out = tmp_path / "out.json"
    proc = cli("ingest", str(out), "--branch", "main", "--testbed", "tb", "--", *harness, str(out), "1000", str(code))
    assert proc.returncode == 2, proc.stderr
    assert f"the command `{harness[0]} {harness[1]} {out} 1000 {code}` exited {code}: nothing was recorded" \
        in proc.stderr
    assert out.exists() and _nothing_recorded(cli, store_path)


def test_a_command_that_cannot_start_records_nothing(cli, store_path, tmp_path):
    proc = cli("ingest", str(tmp_path / "out.json"), "--branch", "main", "--", str(tmp_path / "no-such-harness"))
    assert proc.returncode == 2
    assert "no-such-harness` could not be started: No such file or directory" in proc.stderr
    assert _nothing_recorded(cli, store_path)


def test_a_file_the_command_did_not_write_is_refused(cli, store_path, harness, tmp_path):
    stale, written = tmp_path / "stale.json", tmp_path / "out.json"
    stale.write_text(json.dumps({"bench": {"latency": {"value": 5.0}}}))   # an earlier run's output
    # the harness writes out.json; stale.json would be recorded as this run's, with its load
    proc = cli("ingest", str(written), str(stale), "--branch", "main", "--testbed", "tb",
               "--", *harness, str(written), "1000")
    assert proc.returncode == 2
    assert f"{stale}: the command `" in proc.stderr and "did not write or update it" in proc.stderr
    assert _nothing_recorded(cli, store_path)
    # a FILE the command did not write at all
    proc = cli("ingest", str(tmp_path / "elsewhere.json"), "--branch", "main", "--testbed", "tb",
               "--", *harness, str(written), "1000")
    assert proc.returncode == 2 and "did not write it (it is not there)" in proc.stderr
    assert _nothing_recorded(cli, store_path)
    # the same file, rewritten by the command, is taken
    proc = cli("ingest", str(stale), "--branch", "main", "--testbed", "tb", "--", *harness, str(stale), "1000")
    assert proc.returncode == 0, proc.stderr
    assert [m["value"] for r in _runs(cli) for m in r["metrics"]] == [1000.0]


def test_stdin_and_an_empty_command_are_refused_before_anything_runs(cli, store_path, harness, tmp_path):
    out = tmp_path / "out.json"
    proc = cli("ingest", "-", "--branch", "main", "--", *harness, str(out), "1000")
    assert proc.returncode == 2 and "<stdin>: is not the command's output" in proc.stderr
    assert not out.exists()
    proc = cli("ingest", str(out), "--branch", "main", "--")
    assert proc.returncode == 2 and "--: names no command" in proc.stderr
    assert _nothing_recorded(cli, store_path)


def test_secrets_in_the_command_line_and_the_environment_are_never_recorded(cli, harness, tmp_path):
    out = tmp_path / "out.json"
    token = "ghp_" + "x1y2z3" * 6
    proc = cli("ingest", str(out), "--branch", "main", "--testbed", "tb",
               "--", *harness, str(out), "1000", "0", "--token", "tok-abcdef123456", "--password=hunter2-abc",
               "https://bob:pw-9876543@example.com/x", "Authorization: token abc-def-ghi-jkl", token,
               env={"MY_API_TOKEN": token, "PERFGATE_UNRELATED": "plain-value-from-env"})
    assert proc.returncode == 0, proc.stderr
    [run] = _runs(cli)
    recorded = json.dumps(run) + proc.stdout + proc.stderr
    for secret in ("tok-abcdef123456", "hunter2-abc", "pw-9876543", "abc-def-ghi-jkl", token[4:],
                   "plain-value-from-env"):
        assert secret not in recorded
    assert run["context"]["command"].endswith(
        "--token *** '--password=***' 'https://***@example.com/x' 'Authorization: ***' ***")


def test_secrets_inside_a_shell_script_and_a_urls_query_are_never_recorded(cli, harness, tmp_path):
    # The README's `-- sh -c '...'` recorded every secret of its script in clear: the words were
    # masked one by one, and a script is one word; a URL's ?access_token= was kept in either form.
    out = tmp_path / "out.json"
    script = (f"{shlex.join([*harness, str(out), '1000', '0'])} --password=PASSWD1234567 API_KEY=APIKEY98765 "
              "--token BENCHTOK0000 -H 'X-Api-Key: XAPIKEY31337' --secret=SECRETVAL2222 "
              "'https://h/x?access_token=ACCTOKEN4444&page=2'")
    proc = cli("ingest", str(out), "--branch", "main", "--testbed", "tb", "--", "sh", "-c", script,
               "https://h/y?a=1&private_key=PRIVKEY55555")
    assert proc.returncode == 0, proc.stderr
    [run] = _runs(cli)
    recorded = json.dumps(run) + proc.stdout + proc.stderr
    for secret in ("PASSWD1234567", "APIKEY98765", "BENCHTOK0000", "XAPIKEY31337", "SECRETVAL2222", "ACCTOKEN4444",
                   "PRIVKEY55555"):
        assert secret not in recorded, secret
    assert "page=2" in run["context"]["command"] and "a=1" in run["context"]["command"]


def test_a_whole_history_written_by_a_command_is_refused(cli, store_path, tmp_path):
    fixture = Path(__file__).parent / "fixtures" / "github-action-benchmark" / "history" / "data.js"
    out = tmp_path / "data.js"
    proc = cli("ingest", str(out), "--", sys.executable, "-c", f"import shutil; shutil.copy({str(fixture)!r}, "
               f"{str(out)!r})")
    assert proc.returncode == 2 and "-- COMMAND: " in proc.stderr and "holds a whole history" in proc.stderr
    assert _nothing_recorded(cli, store_path)


def _interrupted(store_path: Path, harness_text: str, tmp_path: Path, sig: int) -> tuple[int, str, int]:
    """Start an ingest whose harness writes its pid and waits; send perfgate ``sig`` once the
    harness runs.  Returns perfgate's exit code, its stderr and the harness's pid."""
    script, marker = tmp_path / "slow.py", tmp_path / "pid"
    script.write_text(harness_text)
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{store_path}"}
    # perfgate as a terminal starts it, Ctrl-C not ignored: a test run started in the background
    # of a script (`cmd &`) ignores SIGINT, and every process it starts inherits that
    proc = subprocess.Popen([sys.executable, "-m", "perfgate.cli", "ingest", str(tmp_path / "out.json"),
                             "--branch", "main", "--", sys.executable, str(script), str(marker)],
                            env=env, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 30
    while not (marker.exists() and marker.read_text().strip()):
        assert time.monotonic() < deadline and proc.poll() is None, "the harness never started"
        time.sleep(0.05)
    proc.send_signal(sig)          # to perfgate only, as CI's cancel does: it passes it on
    _, stderr = proc.communicate(timeout=30)
    return proc.returncode, stderr, int(marker.read_text())


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")     # ended; a zombie waits for its reaper, which is not perfgate


SLOW = """
import json, sys, time
open(sys.argv[1] + ".tmp", "w").write(str(__import__("os").getpid()))
__import__("os").replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)
json.dump({"bench": {"latency": {"value": 1.0}}}, open(sys.argv[1].replace("pid", "out.json"), "w"))
"""


def test_ctrl_c_stops_the_command_and_records_nothing(cli, store_path, tmp_path):
    code, stderr, pid = _interrupted(store_path, SLOW, tmp_path, signal.SIGINT)
    assert code == 130 and "interrupted; what was finished before is kept" in stderr, stderr
    assert _gone(pid)
    assert _nothing_recorded(cli, store_path)


def test_ctrl_c_while_the_command_starts_stops_it_too(tmp_path, monkeypatch):
    """Ctrl-C that came while the harness was starting (inside ``Popen`` after the fork, or before
    perfgate held the process) left it running, orphaned, with perfgate's stderr open: a caller
    reading that stderr to its end waited the harness out."""
    from perfgate.commands import _ingest_command

    started, real = [], subprocess.Popen

    def popen(*args, **kwargs):
        proc = real(*args, **kwargs)
        started.append(proc)
        os.kill(os.getpid(), signal.SIGINT)       # the moment it came
        return proc

    monkeypatch.setattr(_ingest_command.subprocess, "Popen", popen)
    script = tmp_path / "slow.py"
    script.write_text(SLOW)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)   # as a terminal starts it (_interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            _ingest_command.run([sys.executable, str(script), str(tmp_path / "pid")])
        assert len(started) == 1 and started[0].poll() is not None, "the command was left running"
    finally:
        signal.signal(signal.SIGINT, before)
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_a_command_deaf_to_sigterm_is_killed_after_the_grace_and_nothing_recorded(cli, store_path, tmp_path):
    deaf = "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + SLOW
    started = time.monotonic()
    code, stderr, pid = _interrupted(store_path, deaf, tmp_path, signal.SIGTERM)
    assert code == 143 and "terminated" in stderr, stderr
    assert _gone(pid) and time.monotonic() - started < 30
    assert _nothing_recorded(cli, store_path)


QUIET, LOADED = 0.0, 0.6     # 0.6: 2.5x slower, as the values are


def test_detect_holds_a_streak_of_ingested_runs_measured_under_load(cli, store_path, harness, tmp_path, monkeypatch):
    """The ingest path end to end, but for the load it reads: a busy loop beside a test is slow and
    flaky, so each run's reading is given, and detect must find it in what ingest recorded."""
    loads = [QUIET] * 30 + [LOADED] * 2
    values = 1e8 * np.r_[np.ones(30), 2.5 * np.ones(2)] * (1 + 0.02 * np.random.default_rng(3).standard_normal(32))
    out = tmp_path / "out.json"
    monkeypatch.setenv("HARNESS_SLEEP", "0")
    for i, (load, value) in enumerate(zip(loads, values)):
        monkeypatch.setattr(host_load, "during", lambda start, cpuset=None, _l=load: {
            host_load.KEY: {host_load.CONTENDED: _l, "cpus": 2}})
        code = perfgate_cli.main(["ingest", str(out), "--store", f"sqlite:{store_path}", "--branch", "main",
                                  "--commit", f"{i:040x}", "--testbed", "tb", "--", *harness, str(out), repr(float(value))])
        assert code == 0
    assert [r["context"][host_load.KEY][host_load.CONTENDED] for r in _runs(cli)][-3:] == [QUIET, LOADED, LOADED]
    proc = cli("detect", "--json")
    report = json.loads(proc.stdout)
    [series] = report["series"]
    assert series["threshold"]["held"]["load"] == LOADED, series
    assert report["new_alerts"] == [] and proc.returncode == 0, proc.stderr
