"""A misbehaving or hostile Bencher server, and the Bencher cases of issue 15's campaign: each
test failed on the code before the fix.  The fake validates every ordinary request and response
against ``contracts/bencher/openapi.json``; ``reply`` faults send unchecked JSON on purpose."""

from __future__ import annotations

import base64
import copy
import csv
import io
import json
import re
import subprocess
from urllib.parse import quote

import pytest
from fake_bencher.fixtures import TOKEN, commit, fake  # noqa: F401 - fixture
from test_publish_cli import cli, env, ingest_bmf, posts  # noqa: F401 - fixture

from conftest import ROOT
from perfgate.bencher.redact import Secret, redact, register
from perfgate.bencher.spool import Spool
from perfgate.model import Alert
from perfgate.store.sqlite import SqliteStore

OTHER = "bencher-other-secret-Zq81Lm0Xw5"


def published(cli, fake, tmp_path, n=4, values=None):
    for i, v in enumerate(values or [100.0] * n):
        ingest_bmf(cli, tmp_path, i, v)
    cli("publish", "--to", f"bencher+{fake.url}/demo", "--all", "--no-thresholds", env=env(tmp_path), check=True)


# --- 1. a 2xx answer of the wrong shape ----------------------------------------------------------

@pytest.mark.parametrize("verb, method, path", [
    ("history", "GET", "/v0/projects/demo/perf"),
    ("detect", "GET", "/v0/projects/demo/perf"),
    ("alerts", "GET", "/v0/projects/demo/alerts"),
    ("export", "GET", "/v0/projects/demo/reports"),
])
@pytest.mark.parametrize("body", [["a", "list"], {"results": "not a list"}])
def test_wrong_shape_is_a_clear_error_when_reading(cli, fake, tmp_path, verb, method, path, body):
    published(cli, fake, tmp_path, n=2)
    fake.inject("reply", method=method, path=path, status=200, body=body)
    args = [verb, "--store", f"bencher+{fake.url}/demo"] + (["--format", "csv"] if verb == "export" else [])
    proc = cli(*args, env=env(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "answered HTTP 2xx with a JSON" in proc.stderr or "not shaped as its API says" in proc.stderr


@pytest.mark.parametrize("verb", ["detect", "history"])
@pytest.mark.parametrize("value, said", [
    (float("nan"), "not finite (NaN)"),               # Python's json reads NaN: detect ended in exit 3
    (float("inf"), "not finite (Infinity)"),
    (-1e308, "latency the value -1e+308"),            # 17 alerts of -999999% once
])
def test_a_non_finite_or_negative_cost_in_an_answer_is_refused_naming_the_request(cli, fake, tmp_path, verb,
                                                                                 value, said):
    published(cli, fake, tmp_path, n=4)
    honest = fake.handle

    def tampered(method, path, *rest):      # the answer checked against the API, then changed
        status, out, headers = honest(method, path, *rest)
        if path.endswith("/perf"):
            out = copy.deepcopy(out)
            for result in out["results"]:
                result["metrics"][len(result["metrics"]) // 2]["metric"]["value"] = value
        return status, out, headers

    fake.handle = tampered
    proc = cli(verb, "--store", f"bencher+{fake.url}/demo", env=env(tmp_path))
    text = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "GET /v0/projects/demo/perf" in text and said in text, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


def test_wrong_shape_is_a_clear_error_when_publishing(cli, fake, tmp_path):
    ingest_bmf(cli, tmp_path, 0, 100.0)
    fake.inject("reply", method="POST", path="/v0/run", status=201, body=[{"uuid": "x"}])
    proc = cli("publish", "--to", f"bencher+{fake.url}/demo", "--no-thresholds", env=env(tmp_path))
    assert proc.returncode == 2 and "JSON list" in proc.stderr and "Traceback" not in proc.stderr


# --- 2. redaction ------------------------------------------------------------------------------------

# A token with characters that percent-encoding changes (as standard base64 tokens have).
ENCODABLE = "pg+Tk9/Qa81Lm=0Xw5rZ"


def _b64_core(text: str, urlsafe: bool = False) -> str:
    """The base64 characters that encode only the token (not the bytes before it)."""
    enc = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(text.encode()).decode()
    start = (len(text) - len(ENCODABLE)) * 4 // 3 + 4
    return enc[start:start + 12]


@pytest.mark.parametrize("shown, trace", [
    (OTHER.lower(), OTHER.lower()),                                          # case changes
    (OTHER.upper(), OTHER.upper()),
    ("Authorization: Bearer " + OTHER[:13], OTHER[:13]),                     # cut in the middle
    (OTHER[5:], OTHER[5:]),                                                  # cut at the front
    (quote("t=" + ENCODABLE + "/", safe=""), quote(ENCODABLE, safe="")),     # percent-encoded
    (quote(ENCODABLE, safe="").lower(), quote(ENCODABLE, safe="").lower()),
    (base64.b64encode(("Bearer " + ENCODABLE).encode()).decode(), _b64_core("Bearer " + ENCODABLE)),
    (base64.urlsafe_b64encode(("x" + ENCODABLE).encode()).decode(), _b64_core("x" + ENCODABLE, urlsafe=True)),
    (base64.b64encode(ENCODABLE.encode()).decode(), base64.b64encode(ENCODABLE.encode()).decode()[:16]),
    ("h=" + OTHER.encode().hex(), OTHER.encode().hex()),                     # hex (an audit's echo)
    ("H=" + OTHER.encode().hex().upper(), OTHER.encode().hex().upper()),
])
def test_redaction_catches_transformed_tokens(shown, trace):
    register(Secret(OTHER))
    register(Secret(ENCODABLE))
    assert trace in shown
    cleaned = redact(f"server said: {shown} (end)")
    assert trace.lower() not in cleaned.lower(), cleaned
    for secret in (OTHER, ENCODABLE):
        for piece in (secret, secret[:10], secret[-10:]):
            assert piece.lower() not in cleaned.lower()
    assert "server said:" in cleaned and "(end)" in cleaned


def test_echoed_credentials_are_never_shown():
    assert redact("401: Authorization: Bearer abc.def.ghi rejected") == "401: Authorization: Bearer *** rejected"


def test_reply_whose_uuid_echoes_the_header_is_not_printed(cli, fake, tmp_path):
    ingest_bmf(cli, tmp_path, 0, 100.0)
    fake.inject("reply", method="POST", path="/v0/run", status=201,
                body={"uuid": f"Bearer {TOKEN.lower()}", "alerts": [], "created": "2025-01-01T00:00:00Z"})
    proc = cli("publish", "--to", f"bencher+{fake.url}/demo", "--no-thresholds", "--json", env=env(tmp_path))
    shown = (proc.stdout + proc.stderr).lower()
    assert proc.returncode == 2 and "not a uuid" in shown
    assert TOKEN.lower() not in shown and TOKEN[:12].lower() not in shown


# --- 3. measures by slug -------------------------------------------------------------------------

def test_builtin_measures_matched_by_slug_and_regression_found(cli, fake, tmp_path):
    values = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 185.0]
    for i, v in enumerate(values):
        ingest_bmf(cli, tmp_path, i, v)
    thresholds = tmp_path / "t.toml"
    thresholds.write_text('[measure.latency]\ntest = "percentage"\nupper_boundary = 0.2\n')
    to = f"bencher+{fake.url}/demo"
    proc = cli("publish", "--to", to, "--all", "--thresholds", str(thresholds), env=env(tmp_path))
    assert "crossed the upper limit" in proc.stdout                 # Bencher alerted on the +85% run
    project = fake.project("demo")["uuid"]
    names = sorted(m["name"] for m in fake.dims["measures"].values() if m["project"] == project)
    assert names == ["Latency", "Throughput", "instructions"]        # no duplicate, empty `latency`
    proc = cli("detect", "--store", to, "--thresholds", str(thresholds), "--json", env=env(tmp_path))
    assert proc.returncode == 1, proc.stdout + proc.stderr          # as the same runs in SQLite
    report = json.loads(proc.stdout)
    assert {s["measure"] for s in report["series"]} == {"latency", "instructions"}
    (lat,) = [s for s in report["series"] if s["measure"] == "latency"]
    assert lat["threshold"]["alert"] == "upper"


# --- 5. one regression, one alert ------------------------------------------------------------------

def _step_with_detect_after_every_run(cli, tmp_path, store_args):
    thresholds = tmp_path / "t.toml"
    thresholds.write_text('[measure.latency]\ntest = "percentage"\nupper_boundary = 0.1\n')
    codes = []
    values = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8] + [130.0, 131.0, 129.0, 130.5, 129.5, 130.2]
    for i, v in enumerate(values):
        ingest_bmf(cli, tmp_path, i, v)
        codes.append(cli("detect", *store_args, "--thresholds", str(thresholds), "--measure", "latency",
                         env=env(tmp_path)).returncode)
    return codes


def test_one_alert_per_regression_sqlite(cli, tmp_path, store_path):
    codes = _step_with_detect_after_every_run(cli, tmp_path, [])
    assert codes[:8] == [0] * 8 and codes[8] == 1 and codes[9:] == [0] * 5   # raised once
    alerts = json.loads(cli("alerts", "--status", "all", "--json").stdout)
    assert len(alerts) == 1, alerts
    (alert,) = alerts
    assert alert["commit"] == commit(8, "main") and alert["direction"] == "regression"
    assert alert["kind"] == "change_point"           # the change point took the threshold alert over
    assert alert["details"].get("superseded") == "threshold"


def test_a_single_later_detect_names_the_first_slow_commit(cli, tmp_path):
    thresholds = tmp_path / "t.toml"
    thresholds.write_text('[measure.latency]\ntest = "percentage"\nupper_boundary = 0.1\n')
    for i, v in enumerate([100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8, 130.0, 131.0, 129.0]):
        ingest_bmf(cli, tmp_path, i, v)
    proc = cli("detect", "--thresholds", str(thresholds), "--measure", "latency", "--json")
    assert proc.returncode == 1
    (alert,) = json.loads(proc.stdout)["new_alerts"]
    assert alert["commit"] == commit(8, "main")       # not the newest of the three slow runs
    assert alert["commit_range"] == [commit(i, "main") for i in (8, 9, 10)]


def test_one_alert_per_regression_bencher(cli, fake, tmp_path):
    thresholds = tmp_path / "t.toml"
    thresholds.write_text('[measure.latency]\ntest = "percentage"\nupper_boundary = 0.1\n')
    values = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8, 130.0, 131.0, 129.0, 130.5, 129.5, 130.2]
    for i, v in enumerate(values):
        ingest_bmf(cli, tmp_path, i, v)
    to = f"bencher+{fake.url}/demo"
    cli("publish", "--to", to, "--all", "--thresholds", str(thresholds), env=env(tmp_path))
    assert len(fake.alerts) >= 2                       # Bencher alerts on more than one slow run
    proc = cli("detect", "--store", to, "--thresholds", str(thresholds), "--measure", "latency", env=env(tmp_path))
    assert proc.returncode == 1
    alerts = json.loads(cli("alerts", "--store", to, "--json", env=env(tmp_path)).stdout)
    assert len(alerts) == 1, alerts                    # perfgate's and Bencher's, merged
    assert alerts[0]["commit"] == commit(8, "main") and alerts[0]["details"]["bencher_alerts"]
    # Bencher's alert on the newest value is the change's: said so, not "it alerts once 1 in a row are"
    said = " ".join(cli("detect", "--store", to, "--thresholds", str(thresholds), "--measure", "latency",
                        env=env(tmp_path)).stdout.split())
    assert f"past its bencher limit; part of the change found at {commit(8, 'main')[:12]}, alerted as that change" in said


def test_one_alert_per_regression_bencher_detect_after_every_run(cli, fake, tmp_path, monkeypatch):
    (tmp_path / "thresholds").mkdir()
    (tmp_path / "thresholds" / "default.toml").write_text(
        '[measure.latency]\ntest = "percentage"\nupper_boundary = 0.1\n')
    monkeypatch.chdir(tmp_path)                      # the thresholds both perfgate and Bencher use
    to = f"bencher+{fake.url}/demo"
    values = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8, 130.0, 131.0, 129.0, 130.5, 129.5, 130.2]
    codes = []
    for i, v in enumerate(values):
        f = tmp_path / f"r{i}.json"
        f.write_text(json.dumps({"parse 1k": {"latency": {"value": v}}}))
        cli("ingest", str(f), "--adapter", "bmf", "--store", to, "--branch", "main", "--commit", commit(i, "main"),
            "--testbed", "ci-x86", "--start-time", str(1_750_000_000 + 60 * i), env=env(tmp_path), check=True)
        codes.append(cli("detect", "--store", to, env=env(tmp_path)).returncode)
    assert codes[:8] == [0] * 8 and codes[8] == 1 and codes[9:] == [0] * 5
    alerts = json.loads(cli("alerts", "--store", to, "--status", "all", "--json", env=env(tmp_path)).stdout)
    assert len(alerts) == 1, alerts
    assert alerts[0]["commit"] == commit(8, "main") and alerts[0]["kind"] == "change_point"
    assert len(alerts[0]["details"]["bencher_alerts"]) >= 1


def test_threshold_alert_names_first_slow_commit_and_is_taken_over(tmp_path):
    store = SqliteStore(tmp_path / "h.db", "demo")
    first = Alert("main", "t", "b", "latency", "c8", "regression", 0.3, kind="threshold", commit_range=("c8",))
    later = Alert("main", "t", "b", "latency", "c8", "regression", 0.3, kind="threshold",
                  commit_range=("c8", "c9", "c10"))
    cp = Alert("main", "t", "b", "latency", "c8", "regression", 0.3, 0.25, 0.35, 1e-6, commit_range=("c7", "c8"))
    assert len(store.record_alerts([first])) == 1
    assert store.record_alerts([later]) == [] and store.record_alerts([cp]) == []
    (only,) = store.alerts()
    assert only.id == first.id and only.kind == "change_point" and only.ci_low == 0.25


# --- 6. a refused run does not block the rest --------------------------------------------------------

def test_publish_all_sets_a_refused_run_aside(cli, fake, tmp_path):
    to = f"bencher+{fake.url}/demo"
    ingest_bmf(cli, tmp_path, 0, 100.0)
    bad = tmp_path / "short.json"
    bad.write_text(json.dumps({"parse 1k": {"latency": {"value": 101.0}}}))
    cli("ingest", str(bad), "--adapter", "bmf", "--branch", "main", "--commit", "abc1234", "--testbed", "ci-x86",
        "--start-time", str(1_750_000_030), check=True)
    for i in (2, 3):
        ingest_bmf(cli, tmp_path, i, 100.0)
    proc = cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path))
    assert proc.returncode == 2 and "rejected" in proc.stderr and "git hash" in proc.stderr
    assert [b["hash"] for b in posts(fake)][-2:] == [commit(2, "main"), commit(3, "main")]
    assert len(fake.reports_of("demo")) == 3
    reasons = list((tmp_path / "spool" / "rejected").glob("*.reason.txt"))
    assert len(reasons) == 1 and "git hash" in reasons[0].read_text()
    again = cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path))
    assert again.returncode == 0 and "nothing to publish" in again.stderr
    assert "1 run(s) refused earlier are not sent again" in " ".join(again.stderr.split())


def test_a_refused_branch_sets_only_its_run_aside(cli, fake, tmp_path):
    ingest_bmf(cli, tmp_path, 0, 100.0, branch="feature-x")
    ingest_bmf(cli, tmp_path, 1, 100.0)
    fake.inject("status", method="POST", path="/v0/projects/demo/branches", status=400)
    proc = cli("publish", "--to", f"bencher+{fake.url}/demo", "--all", "--no-thresholds", env=env(tmp_path))
    assert proc.returncode == 2 and "rejected" in proc.stderr and "HTTP 400" in proc.stderr
    assert [b["branch"] for b in posts(fake)] == ["main"]


def test_ingest_into_bencher_refuses_or_expands_short_hashes(cli, fake, tmp_path, monkeypatch):
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"parse 1k": {"latency": {"value": 100.0}}}))
    to = f"bencher+{fake.url}/demo"
    monkeypatch.chdir(tmp_path)                      # not a checkout: nothing to expand from
    proc = cli("ingest", str(f), "--adapter", "bmf", "--store", to, "--branch", "main", "--commit", "abc1234",
               "--testbed", "ci-x86", env=env(tmp_path))
    assert proc.returncode == 2 and "full commit hash" in proc.stderr and not posts(fake)
    monkeypatch.chdir(ROOT)
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    cli("ingest", str(f), "--adapter", "bmf", "--store", to, "--branch", "main", "--commit", head[:9],
        "--testbed", "ci-x86", env=env(tmp_path), check=True)
    assert [b["hash"] for b in posts(fake)] == [head]


# --- 7. ingest, export, setup errors and the spool ---------------------------------------------------

def test_ingest_while_down_says_spooled(cli, fake, tmp_path):
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"parse 1k": {"latency": {"value": 100.0}}}))
    fake.down = True
    proc = cli("ingest", str(f), "--adapter", "bmf", "--store", f"bencher+{fake.url}/demo", "--branch", "main",
               "--commit", commit(1), "--testbed", "ci-x86", env=env(tmp_path))
    assert proc.returncode == 0
    assert "spooled" in proc.stderr and "perfgate publish --flush" in proc.stderr and "recorded" not in proc.stderr


def test_ingest_reports_bencher_alerts_and_fails_on_them(cli, fake, tmp_path, monkeypatch):
    thresholds = tmp_path / "thresholds"
    thresholds.mkdir()
    (thresholds / "default.toml").write_text('[measure.latency]\ntest = "percentage"\nupper_boundary = 0.1\n')
    monkeypatch.chdir(tmp_path)                      # ./thresholds is what a Bencher store sends
    to = f"bencher+{fake.url}/demo"
    codes, texts = [], []
    for i, v in enumerate([100.0, 100.0, 100.0, 150.0]):
        f = tmp_path / f"r{i}.json"
        f.write_text(json.dumps({"parse 1k": {"latency": {"value": v}}}))
        proc = cli("ingest", str(f), "--adapter", "bmf", "--store", to, "--branch", "main", "--commit", commit(i),
                   "--testbed", "ci-x86", "--fail-on-alert", env=env(tmp_path))
        codes.append(proc.returncode)
        texts.append(proc.stdout)
    assert codes == [0, 0, 0, 1]
    assert "crossed the upper limit" in texts[3] and "+50.0%" in texts[3]


def test_ingest_gives_a_pull_requests_branch_its_start_point(cli, fake, tmp_path, monkeypatch):
    """A pull request's run ingested straight into Bencher started its branch from nothing (no
    start-point options, as publish has): no base history, no cloned thresholds, no alert."""
    thresholds = tmp_path / "thresholds"
    thresholds.mkdir()
    (thresholds / "default.toml").write_text('[measure.latency]\ntest = "percentage"\nupper_boundary = 0.1\n')
    monkeypatch.chdir(tmp_path)
    to = f"bencher+{fake.url}/demo"
    f = tmp_path / "r.json"
    for i in range(3):
        f.write_text(json.dumps({"parse 1k": {"latency": {"value": 100.0}}}))
        cli("ingest", str(f), "--adapter", "bmf", "--store", to, "--branch", "main", "--commit", commit(i),
            "--testbed", "ci-x86", env=env(tmp_path), check=True)
    f.write_text(json.dumps({"parse 1k": {"latency": {"value": 150.0}}}))
    pr = cli("ingest", str(f), "--adapter", "bmf", "--store", to, "--branch", "pr-8", "--commit", commit(9, "pr"),
             "--testbed", "ci-x86", "--start-point-branch", "main", "--start-point-hash", commit(2),
             "--start-point-clone-thresholds", "--fail-on-alert", env=env(tmp_path))
    body = [r["body"] for r in fake.requests if r["op"] == "run_post"][-1]
    assert body["start_point"] == {"branch": "main", "hash": commit(2), "clone_thresholds": True}
    assert pr.returncode == 1 and "crossed the upper limit" in pr.stdout, pr.stderr
    local = cli("ingest", str(f), "--adapter", "bmf", "--branch", "pr-8", "--commit", commit(9, "pr"),
                "--testbed", "ci-x86", "--start-point-branch", "main", env=env(tmp_path))
    assert local.returncode == 2 and "a start point is a Bencher server's" in local.stderr


def test_ingest_json_duplicate_and_start_time_make_one_report(cli, fake, tmp_path):
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"parse 1k": {"latency": {"value": 100.0}}}))
    to = f"bencher+{fake.url}/demo"
    base = ["ingest", str(f), "--adapter", "bmf", "--store", to, "--branch", "main", "--commit", commit(1),
            "--testbed", "ci-x86", "--json"]
    first = json.loads(cli(*base, env=env(tmp_path), check=True).stdout)
    second = json.loads(cli(*base, "--start-time", "1750000000", env=env(tmp_path), check=True).stdout)
    third = json.loads(cli(*base, env=env(tmp_path), check=True).stdout)
    assert first["added"] is True and second["added"] is False and third["added"] is False
    assert len(fake.reports_of("demo")) == 1


def test_export_csv_fills_run_on_bencher(cli, fake, tmp_path):
    published(cli, fake, tmp_path, n=2)
    text = cli("export", "--format", "csv", "--store", f"bencher+{fake.url}/demo", env=env(tmp_path),
               check=True).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows and {r["run"] for r in rows} == {r["uuid"] for r in fake.reports_of("demo")}


def test_failing_setup_get_is_reported_not_a_post(cli, fake, tmp_path):
    ingest_bmf(cli, tmp_path, 0, 100.0)
    fake.inject("status", method="GET", path="/v0/projects/bad-slug", status=400, times=10)
    proc = cli("publish", "--to", f"bencher+{fake.url}/bad-slug", "--no-thresholds", env=env(tmp_path))
    assert proc.returncode == 2
    assert "GET /v0/projects/bad-slug" in proc.stderr and "project slug" in proc.stderr
    assert "POST /v0/run" not in proc.stderr and not posts(fake)


def test_flush_through_another_name_of_the_server(cli, fake, tmp_path):
    ingest_bmf(cli, tmp_path, 0, 100.0)
    port = fake.url.rsplit(":", 1)[1]
    fake.down = True
    cli("publish", "--to", f"bencher+http://localhost:{port}/demo", "--no-thresholds", env=env(tmp_path), check=True)
    assert len(Spool(tmp_path / "spool").pending()) == 1
    fake.down = False
    proc = cli("publish", "--to", f"bencher+http://127.0.0.1:{port}/demo", "--flush", env=env(tmp_path))
    assert proc.returncode == 0 and "flushed" in proc.stderr, proc.stderr
    assert len(fake.reports_of("demo")) == 1 and not Spool(tmp_path / "spool").pending()


def test_two_secrets_sharing_a_piece_hide_one_value_as_one_mask():
    # Another token registered earlier shares this one's suffix: each is hidden, and the value is
    # one mask, not a mask per run (what made the message depend on which tokens came before).
    register(Secret("ghp_otherTOKENsharing0123456789abcdefXYZ"))
    token = "bencher-one-token-0123456789abcdef"
    register(Secret(token))
    assert redact(f"x {token} y") == "x *** y"
    assert redact("sent ghp_otherTOKENsharing0123456789abcdefXYZ") == "sent ***"


# --- the audit of stop 43: refused, torn and concurrent --------------------------------------------

def test_a_refused_run_is_named_by_each_later_publish_all_and_sent_by_run_id(cli, fake, tmp_path):
    # `publish --all` said only "nothing to publish" after a refusal, so a fixable one (a start
    # point not there yet) was dropped in silence; and each refusal left one more copy aside.
    to = f"bencher+{fake.url}/demo"
    ingest_bmf(cli, tmp_path, 0, 100.0)
    cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path), check=True)
    ingest_bmf(cli, tmp_path, 5, 100.0, branch="pr-1")
    pr = ["--branch", "pr-1", "--no-thresholds"]
    refused = cli("publish", "--to", to, "--all", *pr, "--start-point-branch", "nosuch", env=env(tmp_path))
    assert refused.returncode == 2 and "Start point branch not found: nosuch" in refused.stderr
    assert [r["version"]["hash"] for r in fake.reports_of("demo")] == [commit(0, "main")]
    later = cli("publish", "--to", to, "--all", *pr, env=env(tmp_path))
    said = " ".join(later.stderr.split())
    assert later.returncode == 0 and "1 run(s) refused earlier are not sent again" in said, later.stderr
    run_id = re.search(r"perfgate publish --run (\S+)", said).group(1)
    for _ in range(2):   # refused again: still one copy aside, not two
        again = cli("publish", "--to", to, "--run", run_id, *pr, "--start-point-branch", "nosuch", env=env(tmp_path))
        assert again.returncode == 2
    aside = tmp_path / "spool" / "rejected"
    assert len(list(aside.glob("*.json"))) == 1 and len(list(aside.glob("*.reason.txt"))) == 1
    sent = cli("publish", "--to", to, "--run", run_id, *pr, "--start-point-branch", "main", env=env(tmp_path))
    assert sent.returncode == 0, sent.stderr
    assert [r["version"]["hash"] for r in fake.reports_of("demo")] == [commit(0, "main"), commit(5, "pr-1")]
    assert list(aside.iterdir()) == []                     # accepted now: the set-aside copy is gone
    quiet = cli("publish", "--to", to, "--all", *pr, env=env(tmp_path))
    assert "refused earlier" not in quiet.stderr and "nothing to publish" in quiet.stderr


def test_a_torn_line_in_the_spool_records_neither_blocks_nor_swallows_the_next(cli, fake, tmp_path):
    to = f"bencher+{fake.url}/demo"
    ingest_bmf(cli, tmp_path, 0, 100.0)
    cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path), check=True)
    spool = tmp_path / "spool"
    for name in ("published.jsonl", "sent.jsonl"):
        with open(spool / name, "a") as f:
            f.write('{"target": "http://torn')            # a crash in the middle of a line
    ingest_bmf(cli, tmp_path, 1, 100.0)
    proc = cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path))
    assert proc.returncode == 0 and "published.jsonl:2: not JSON, skipped" in proc.stderr, proc.stderr
    for name in ("published.jsonl", "sent.jsonl"):
        lines = (spool / name).read_text().splitlines()
        assert json.loads(lines[-1])["target"].endswith("/demo"), lines  # the new record is whole
    assert Spool(spool).was_sent(f"{fake.url}/demo", json.loads((spool / "sent.jsonl").read_text()
                                                               .splitlines()[-1])["key"])
    again = cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path))
    assert again.returncode == 0 and "nothing to publish" in again.stderr
    assert len(fake.reports_of("demo")) == 2


def test_an_unreadable_spool_entry_is_set_aside_and_the_runs_behind_it_are_sent(cli, fake, tmp_path):
    to = f"bencher+{fake.url}/demo"
    fake.down = True
    for i in (0, 1):
        ingest_bmf(cli, tmp_path, i, 100.0)
        cli("publish", "--to", to, "--no-thresholds", env=env(tmp_path), check=True)
    first, second = Spool(tmp_path / "spool").pending()
    first.path.write_text(first.path.read_text()[:40])     # torn
    fake.down = False
    proc = cli("publish", "--to", to, "--flush", env=env(tmp_path))
    said = "".join(proc.stderr.split())     # the console wraps long paths
    assert proc.returncode == 2 and "unreadablespoolentry" in said and first.path.name in said
    assert [r["version"]["hash"] for r in fake.reports_of("demo")] == [commit(1, "main")]
    kept = tmp_path / "spool" / "rejected" / first.path.name
    assert kept.exists() and "unreadable" in kept.with_suffix(".reason.txt").read_text()


def test_a_run_whose_spool_entry_was_unreadable_is_named_by_each_publish_all_and_sent_by_run_id(cli, fake, tmp_path):
    # Set aside as unreadable by --flush, the run was then "nothing to publish" for --all (the
    # ledger said handed over) and never reached Bencher, without a word.
    to = f"bencher+{fake.url}/demo"
    fake.down = True
    for i in (0, 1):
        ingest_bmf(cli, tmp_path, i, 100.0)
    cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path), check=True)
    first, _ = Spool(tmp_path / "spool").pending()
    first.path.write_bytes(first.path.read_bytes()[:200])     # torn
    fake.down = False
    flush = cli("publish", "--to", to, "--flush", env=env(tmp_path))
    said = " ".join(flush.stderr.split())
    assert flush.returncode == 2 and "unreadable spool entry" in said, flush.stderr
    run_id = re.search(r"it is local run (\S+): 'perfgate publish --run \1' sends it again", said).group(1)
    for _ in range(2):   # named each time, not dropped
        later = cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path))
        said = " ".join(later.stderr.split())
        assert later.returncode == 0 and "1 spooled run(s) set aside earlier" in said, later.stderr
        assert f"perfgate publish --run {run_id}" in said
    ledger = tmp_path / "spool" / "published.jsonl"   # written before keys were recorded: found by the store
    ledger.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "key"}) + "\n"
                              for line in ledger.read_text().splitlines()))
    legacy = cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path))
    assert f"perfgate publish --run {run_id}" in " ".join(legacy.stderr.split()), legacy.stderr
    sent = cli("publish", "--to", to, "--run", run_id, "--no-thresholds", env=env(tmp_path))
    assert sent.returncode == 0, sent.stderr
    assert sorted(r["version"]["hash"] for r in fake.reports_of("demo")) == sorted([commit(0, "main"),
                                                                                    commit(1, "main")])
    assert not list((tmp_path / "spool" / "rejected").glob("*.json"))    # accepted: the copy is gone
    quiet = cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path))
    assert "set aside earlier" not in quiet.stderr and "nothing to publish" in quiet.stderr


def test_two_flushes_at_once_send_each_spooled_run_once(cli, fake, tmp_path):
    to = f"bencher+{fake.url}/demo"
    fake.down = True
    for i in range(4):
        ingest_bmf(cli, tmp_path, i, 100.0)
        cli("publish", "--to", to, "--no-thresholds", env=env(tmp_path), check=True)
    fake.down = False
    flush = [str(ROOT / ".venv/bin/perfgate"), "publish", "--to", to, "--flush", "--json"]
    procs = [subprocess.Popen(flush, env={**__import__("os").environ, **env(tmp_path)}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    sent = []
    for p in procs:
        out, errs = p.communicate(timeout=120)
        assert p.returncode == 0, errs
        sent += [s["hash"] for s in json.loads(out)["flushed"]["sent"]]
    assert sorted(sent) == sorted(commit(i, "main") for i in range(4))   # each once, by one of them
    assert len([r for r in fake.requests if r["op"] == "run_post"]) == 4


def test_two_publish_all_at_once_send_each_run_once(cli, fake, tmp_path, store_path):
    for i in range(6):
        ingest_bmf(cli, tmp_path, i, 100.0)
    publish = [str(ROOT / ".venv/bin/perfgate"), "publish", "--to", f"bencher+{fake.url}/demo", "--all",
               "--no-thresholds", "--store", f"sqlite:{store_path}"]
    procs = [subprocess.Popen(publish, env={**__import__("os").environ, **env(tmp_path)}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        _, errs = p.communicate(timeout=120)
        assert p.returncode == 0, errs
    assert len([r for r in fake.requests if r["op"] == "run_post"]) == 6      # each once, by one of them
    lines = (tmp_path / "spool" / "published.jsonl").read_text().splitlines()
    assert len(lines) == 6


def test_foreign_lines_and_files_in_the_spool_give_an_error_or_a_warning_never_a_traceback(cli, fake, tmp_path):
    to = f"bencher+{fake.url}/demo"
    ingest_bmf(cli, tmp_path, 0, 100.0)
    cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path), check=True)
    spool = tmp_path / "spool"
    with open(spool / "published.jsonl", "ab") as f:
        f.write(json.dumps({"target": f"{fake.url}/demo", "run": [1]}).encode() + b"\n\xff\xfe bytes\n")
    with open(spool / "sent.jsonl", "ab") as f:
        f.write(b"\xff\xfe\n")
    ingest_bmf(cli, tmp_path, 1, 100.0)
    proc = cli("publish", "--to", to, "--all", "--no-thresholds", env=env(tmp_path))
    assert proc.returncode == 0 and "published run" in proc.stderr and "not JSON, skipped" in proc.stderr, proc.stderr
    assert len(fake.reports_of("demo")) == 2
    blocked = {**env(tmp_path), "PERFGATE_SPOOL": str(tmp_path / "a-file")}
    (tmp_path / "a-file").write_text("not a folder")
    proc = cli("publish", "--to", to, "--all", "--no-thresholds", env=blocked)
    assert proc.returncode == 2 and "the spool must be a writable folder" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_measures_bencher_takes_for_one_are_refused_before_anything_is_sent(cli, fake, tmp_path):
    # An audit: "latency" and "Latency" of one benchmark became two points of one Bencher series
    # from one run, and detect read them as alternating values.
    run = tmp_path / "case.json"
    run.write_text('{"b1": {"latency": {"value": 10}, "Latency": {"value": 11}}}')
    proc = cli("ingest", str(run), "--adapter", "bmf", "--store", f"bencher+{fake.url}/demo", "--branch", "main",
               "--commit", commit(0, "main"), "--testbed", "tb1", env=env(tmp_path))
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "benchmark 'b1': measures 'latency' and 'Latency' are one measure to Bencher" in said
    assert "nothing was published" in said and not posts(fake)


def test_a_wrong_bencher_organization_is_named_not_the_project_slug(cli, fake, tmp_path):
    # "Organization not found: nope-org; check the project slug 'newproj'" sent the user to the wrong setting.
    ingest_bmf(cli, tmp_path, 0, 100.0)
    proc = cli("publish", "--to", f"bencher+{fake.url}/newproj", "--no-thresholds",
               env={**env(tmp_path), "BENCHER_ORGANIZATION": "nope-org"})
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 2 and "check BENCHER_ORGANIZATION" in said and "'nope-org'" in said, proc.stderr
    assert "check the project slug" not in said
    assert fake.project("newproj") is None and not posts(fake)


def test_a_grown_streak_renews_its_alerts_evidence_in_the_alert_memory(cli, fake, tmp_path, monkeypatch):
    # perfgate's threshold alerts on a Bencher store live in this machine's alert memory: a streak
    # that grows after its alert gets the longer streak's interval there too, without a second alert.
    (tmp_path / "thresholds").mkdir()
    (tmp_path / "thresholds" / "default.toml").write_text(
        '[measure.latency]\ntest = "percentage"\nupper_boundary = 0.1\nconsecutive = 2\n'
        '[measure.latency.change_point]\nmin_segment = 10\n')     # the streak stays a threshold alert
    monkeypatch.chdir(tmp_path)
    to = f"bencher+{fake.url}/demo"
    values = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8, 130.0, 131.0, 129.0, 130.5, 129.5, 130.2]
    codes, listed = [], []
    for i, v in enumerate(values):
        f = tmp_path / f"r{i}.json"
        f.write_text(json.dumps({"parse 1k": {"latency": {"value": v}}}))
        cli("ingest", str(f), "--adapter", "bmf", "--store", to, "--branch", "main", "--commit", commit(i, "main"),
            "--testbed", "ci-x86", "--start-time", str(1_750_000_000 + 60 * i), env=env(tmp_path), check=True)
        if i >= 8:
            codes.append(cli("detect", "--store", to, env=env(tmp_path)).returncode)
            listed.append(json.loads(cli("alerts", "--store", to, "--json", env=env(tmp_path)).stdout))
    assert codes == [0, 1, 0, 0, 0, 0]                  # raised once, at the second slow run
    [raised], [now] = listed[1], listed[-1]
    assert now["id"] == raised["id"] and now["kind"] == "threshold"
    assert (raised["details"]["streak_size"], now["details"]["streak_size"]) == (2, 6)
    assert now["commit_range"] == [commit(i, "main") for i in range(8, 14)]
    assert now["ci_high"] - now["ci_low"] < raised["ci_high"] - raised["ci_low"]
    assert now["ci_low"] < 0.30 < now["ci_high"]
