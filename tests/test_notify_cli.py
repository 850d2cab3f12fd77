"""`perfgate notify` as a user (and the main workflow) runs it: a real subprocess against the
contract-checking GitHub fake and a local webhook receiver, killed mid-delivery and run again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from fake_github.fixtures import FAST_ENV, REPO, TOKEN, fake_github, make_alert, receiver, sha  # noqa: F401

from perfgate.store.sqlite import SqliteStore


def seed(store_path, *alerts):
    with SqliteStore(store_path) as store:
        return store.record_alerts(list(alerts))


def env_for(fake, token=TOKEN):
    return {**FAST_ENV, "GITHUB_TOKEN": token, "GITHUB_API_URL": fake.url}


def channels(receiver):
    return ["--channel", f"webhook:{receiver.url}", "--channel", f"github-issues:{REPO}",
            "--channel", f"github-status:{REPO}", "--repo-url", "https://github.com/acme/widget",
            "--pages-url", "https://acme.github.io/widget"]


def secrets_absent(text: str | bytes, receiver) -> bool:
    data = text.encode() if isinstance(text, str) else text
    return TOKEN.encode() not in data and receiver.path.encode() not in data


def test_usage_errors_exit_2_and_name_the_problem(cli, store_path, fake_github):
    proc = cli("notify")
    assert proc.returncode == 2 and "--channel" in proc.stderr
    proc = cli("notify", "--channel", "slack:https://hooks.example/services/SECRET")
    assert proc.returncode == 2 and "expected one of webhook:" in proc.stderr and "SECRET" not in proc.stderr
    proc = cli("notify", "--channel", "github-issues:not-a-repo", env=env_for(fake_github))
    assert proc.returncode == 2 and "expected OWNER/REPO" in proc.stderr
    proc = cli("notify", "--channel", f"github-issues:{REPO}", env={"GITHUB_TOKEN": ""})
    assert proc.returncode == 2 and "set GITHUB_TOKEN" in proc.stderr
    for budget in ("soon", "0"):
        proc = cli("notify", "--channel", f"github-issues:{REPO}", env={**env_for(fake_github), "PERFGATE_NOTIFY_BUDGET": budget})
        assert proc.returncode == 2 and f"PERFGATE_NOTIFY_BUDGET='{budget}'" in proc.stderr
    assert not fake_github.requests


def test_every_alert_reaches_every_channel_once(cli, store_path, fake_github, receiver):
    a, b, imp = seed(store_path, make_alert(10), make_alert(20, benchmark="parse"),
                     make_alert(30, benchmark="hash", direction="improvement", magnitude=-0.2))
    proc = cli("notify", *channels(receiver), "--json", env=env_for(fake_github))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["alerts"] == 3
    counts = {c["channel"].split(":")[0]: len(c["delivered"]) for c in doc["channels"]}
    assert counts == {"webhook": 3, "github-issues": 2, "github-status": 3}
    assert len(receiver.processed) == 3 and len(fake_github.issues) == 2
    assert {s: v[0]["state"] for s, v in fake_github.statuses.items()} == {
        sha(10): "failure", sha(20): "failure", sha(30): "success"}
    # Acknowledge one; the next run delivers only that.
    with SqliteStore(store_path) as store:
        store.acknowledge(a.id)
    proc = cli("notify", *channels(receiver), env=env_for(fake_github))
    assert proc.returncode == 0, proc.stderr
    assert "webhook:127.0.0.1" in proc.stdout and "1 message(s) sent, 3 event(s) told before" in proc.stdout
    assert fake_github.issues[1]["state"] == "closed" and fake_github.issues[2]["state"] == "open"
    assert len(receiver.processed) == 4 and len(fake_github.issues) == 2
    assert secrets_absent(proc.stdout + proc.stderr, receiver)
    assert secrets_absent((store_path.parent / "notify.db").read_bytes(), receiver)


def test_a_down_target_is_spooled_exit_0_and_caught_up_later(cli, store_path, fake_github, receiver):
    seed(store_path, make_alert(10), make_alert(20, benchmark="parse"))
    fake_github.inject("drop", times=1000)
    receiver.down = True
    proc = cli("notify", *channels(receiver), "--json", env={**env_for(fake_github), "GITHUB_ACTIONS": "true"})
    assert proc.returncode == 0, proc.stderr
    assert [len(c["spooled"]) for c in json.loads(proc.stdout)["channels"]] == [2, 2, 2]
    assert secrets_absent(proc.stdout + proc.stderr, receiver)
    # exit 0 (the next run sends them), but the run's summary says nobody has been told yet
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("::warning title=perfgate notify::")]
    assert len(warnings) == 3 and all("2 alert message(s)" in w and "spooled" in w for w in warnings)
    spool = b"".join(p.read_bytes() for p in store_path.parent.glob("notify.db*"))
    assert secrets_absent(spool, receiver) and b"sort 1e6" in spool  # the spool holds the events
    fake_github.faults.clear()
    receiver.down = False
    proc = cli("notify", *channels(receiver), "--json", env=env_for(fake_github))
    assert [len(c["delivered"]) for c in json.loads(proc.stdout)["channels"]] == [2, 2, 2]
    assert len(fake_github.issues) == 2 and len(receiver.processed) == 2


def test_a_refused_delivery_exits_2_without_the_token(cli, store_path, fake_github, receiver):
    seed(store_path, make_alert(10))
    wrong = "ghp_WRONGtokenWRONG11112222333344445555"
    proc = cli("notify", "--channel", f"github-issues:{REPO}", env=env_for(fake_github, wrong))
    assert proc.returncode == 2 and "HTTP 401" in proc.stderr and "Bad credentials" in proc.stderr
    assert wrong not in proc.stdout + proc.stderr


def _killed_mid_delivery(store_path, args, env, arm):
    """Start notify, let ``arm`` make the target kill it after doing the work, before the answer."""
    full = {**os.environ, "PERFGATE_STORE": f"sqlite:{store_path}", **env}
    proc = subprocess.Popen([sys.executable, "-m", "perfgate.cli", "notify", *args], env=full,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    arm(lambda: os.kill(proc.pid, signal.SIGKILL))
    proc.communicate(timeout=60)
    return proc.returncode


def test_killed_between_send_and_ledger_write_no_duplicate_webhook(store_path, fake_github, receiver, cli):
    alerts = seed(store_path, make_alert(10), make_alert(20, benchmark="parse"), make_alert(30, benchmark="hash"))
    args = ["--channel", f"webhook:{receiver.url}"]

    def arm(kill):  # the first event goes through; the second is processed, then the notifier dies
        receiver.inject("pass")
        receiver.inject("drop_after", hook=kill)

    assert _killed_mid_delivery(store_path, args, env_for(fake_github), arm) == -signal.SIGKILL
    assert len(receiver.processed) == 2
    proc = cli("notify", *args, "--json", env=env_for(fake_github))
    assert proc.returncode == 0, proc.stderr
    assert receiver.order == [f"{a.id}:raised" for a in alerts]   # each processed once, in order
    keys = [r["key"] for r in receiver.requests]
    assert len(keys) == 4 and keys[1] == keys[2]                 # the lost answer was resent with its key
    assert len(json.loads(proc.stdout)["channels"][0]["delivered"]) == 2


def test_killed_between_creating_the_issue_and_the_ledger_write_no_duplicate_issue(store_path, fake_github, cli):
    seed(store_path, make_alert(10), make_alert(20, benchmark="parse"))
    args = ["--channel", f"github-issues:{REPO}", "--channel", f"github-status:{REPO}"]
    code = _killed_mid_delivery(store_path, args, env_for(fake_github),
                                lambda kill: fake_github.inject("drop_after", method="POST", path="/issues",
                                                                hook=kill))
    assert code == -signal.SIGKILL and len(fake_github.issues) == 1   # created, never recorded
    proc = cli("notify", *args, "--json", env=env_for(fake_github))
    assert proc.returncode == 0, proc.stderr
    assert len(fake_github.issues) == 2 and sorted(fake_github.issues) == [1, 2]
    assert len([r for r in fake_github.requests if r["op"] == "issues/create"]) == 2
    assert all(len(v) == 1 for v in fake_github.statuses.values()) and len(fake_github.statuses) == 2
    proc = cli("notify", *args, "--json", env=env_for(fake_github))
    assert all(c["delivered"] == [] for c in json.loads(proc.stdout)["channels"])


def test_webhook_url_from_the_environment_and_skipped_when_unset(cli, store_path, fake_github, receiver):
    seed(store_path, make_alert(10))
    proc = cli("notify", "--channel", "webhook:env:HOOK_URL", "--json", env={**env_for(fake_github), "HOOK_URL": ""})
    assert proc.returncode == 0 and "skipped" in proc.stderr and json.loads(proc.stdout)["channels"] == []
    proc = cli("notify", "--channel", "webhook:env:HOOK_URL", env={**env_for(fake_github), "HOOK_URL": receiver.url})
    assert proc.returncode == 0, proc.stderr
    assert len(receiver.processed) == 1 and secrets_absent(proc.stdout + proc.stderr, receiver)


def test_detect_then_notify_end_to_end_the_fix_closes_the_issue(cli, store_path, fake_github, receiver):
    from test_alerts import record, series

    record(store_path, series(80, 1, step_at=50))
    assert cli("detect").returncode == 1
    args = ["--channel", f"webhook:{receiver.url}", "--channel", f"github-issues:{REPO}",
            "--repo-url", "https://github.com/acme/widget"]
    proc = cli("notify", *args, env=env_for(fake_github))
    assert proc.returncode == 0, proc.stderr
    (issue,) = fake_github.issues.values()
    assert issue["title"].startswith("Performance regression: sort [latency] +") and "at c0050 on main" in issue["title"]
    assert "https://github.com/acme/widget/commit/c0050" in issue["body"]
    # The fix lands: the level goes back; detect raises an improvement, notify closes the issue.
    record(store_path, series(30, 3), start=80)
    cli("detect")
    proc = cli("notify", *args, "--json", env=env_for(fake_github))
    assert proc.returncode == 0, proc.stderr
    assert issue["state"] == "closed" and "A later change undid it" in fake_github.comments[1][0]["body"]
    assert [b["event"] for b in receiver.processed.values()] == ["raised", "raised", "closed"]


def test_a_token_echoed_by_a_failing_server_stays_out_of_output_logs_and_spool(cli, store_path, fake_github, receiver):
    seed(store_path, make_alert(10))
    fake_github.inject("status", status=502, times=1000, echo=True)
    proc = cli("notify", "--channel", f"github-issues:{REPO}", "--json", env=env_for(fake_github))
    assert proc.returncode == 0 and len(json.loads(proc.stdout)["channels"][0]["spooled"]) == 1
    assert "retry 1/3" in proc.stderr and "Authorization: Bearer ***" in proc.stderr   # the echo arrived, redacted
    assert secrets_absent(proc.stdout + proc.stderr, receiver)
    ledger = b"".join(p.read_bytes() for p in store_path.parent.glob("notify.db*"))
    assert b"Authorization: Bearer ***" in ledger and secrets_absent(ledger, receiver)   # the spool's last error


def test_a_new_channel_can_start_from_the_regressions_still_open(cli, store_path, receiver, tmp_path):
    """A rotated webhook URL is a new channel: it got every event of the history again (11 on a
    small store, old regressions raised and closed at once). --skip-closed records the closed
    alerts' events without sending them; open regressions are still announced."""
    acked, fixed = make_alert(10), make_alert(20, benchmark="parse")
    fix = make_alert(30, benchmark="parse", direction="improvement", magnitude=-0.11)
    still = make_alert(40, benchmark="render")
    alerts = seed(store_path, acked, fixed, fix, still)
    with SqliteStore(store_path) as store:
        store.acknowledge(alerts[0].id)
    proc = cli("notify", "--channel", f"webhook:{receiver.url}", "--skip-closed", "--json",
               "--ledger", str(tmp_path / "new.db"))
    assert proc.returncode == 0, proc.stderr
    [report] = json.loads(proc.stdout)["channels"]
    sent = {r["alert"]["benchmark"] for r in receiver.processed.values()}
    assert sent == {"render", "parse"} and len(receiver.processed) == 2   # the open one, and the fix
    assert len(report["skipped"]) == 4                                     # raised+closed of acked and fixed
    assert report["skipped_alerts"] == sorted([alerts[0].id, alerts[1].id])
    text = cli("notify", "--channel", f"webhook:{receiver.url}", "--skip-closed", "--ledger", str(tmp_path / "n2.db"))
    assert "4 event(s) of 2 alert(s) closed before this channel heard of them" in text.stdout
    again = cli("notify", "--channel", f"webhook:{receiver.url}", "--json", "--ledger", str(tmp_path / "new.db"))
    assert json.loads(again.stdout)["channels"][0]["delivered"] == [] and len(receiver.processed) == 2


def test_skip_closed_still_tells_a_channel_how_an_alert_it_heard_of_ended(cli, store_path, receiver, tmp_path):
    # The flag left in a workflow once swallowed every "Acknowledged" of alerts the channel had
    # been told of: only alerts closed before it heard of them are skipped.
    [alert] = seed(store_path, make_alert(10))
    ledger = ["--ledger", str(tmp_path / "l.db")]
    assert cli("notify", "--channel", f"webhook:{receiver.url}", "--skip-closed", *ledger).returncode == 0
    with SqliteStore(store_path) as store:
        store.acknowledge(alert.id)
    proc = cli("notify", "--channel", f"webhook:{receiver.url}", "--skip-closed", "--json", *ledger)
    assert json.loads(proc.stdout)["channels"][0]["delivered"] == [f"{alert.id}:closed"]
    assert sorted(r["event"] for r in receiver.processed.values()) == ["closed", "raised"]


def test_the_message_says_what_the_culprit_commit_is(cli, store_path, receiver, tmp_path):
    # The demo's alert named 826b0d8af4 only; bisect knew it as "tree: audit every copied node".
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=Ada <b>L</b>", "-c", "user.email=a@example.org"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "tree: audit every copied node @here"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    alert = make_alert(10)
    alert.commit, alert.commit_range = head, (head,)
    seed(store_path, alert)
    proc = cli("notify", "--channel", f"webhook:{receiver.url}", "--ledger", str(tmp_path / "l.db"), cwd=repo)
    assert proc.returncode == 0, proc.stderr
    [body] = [r["text"] for r in receiver.processed.values()]
    assert "`tree: audit every copied node @here (Ada " in body       # inline code: no mention, no markup
    assert "<!here>" not in body and "<b>" not in body


@pytest.mark.parametrize("thresholds, level", [(None, "99%"), ("[measure.latency.change_point]\nconfidence = 0.95\n", "95%")])
def test_a_change_points_interval_is_named_at_the_confidence_it_was_found_at(cli, store_path, fake_github, receiver,
                                                                            tmp_path, thresholds, level):
    # A change point's interval is at its settings' confidence (0.99 by default), not a threshold
    # streak's 95%: every message called it "95% CI".
    from test_alerts import record, series

    record(store_path, series(80, 1, step_at=50))
    args = []
    if thresholds:
        (tmp_path / "t.toml").write_text(thresholds)
        args = ["--thresholds", str(tmp_path / "t.toml")]
    assert cli("detect", *args).returncode == 1
    [alert] = json.loads(cli("alerts", "--json", check=True).stdout)
    assert alert["kind"] == "change_point" and alert["details"]["ci_level"] == float(level[:-1]) / 100
    interval = f"{level} CI [{alert['ci_low'] * 100:+.2f}%, {alert['ci_high'] * 100:+.2f}%]"
    proc = cli("notify", "--channel", f"webhook:{receiver.url}", "--channel", f"github-issues:{REPO}",
               env=env_for(fake_github))
    assert proc.returncode == 0, proc.stderr
    [sent] = receiver.processed.values()
    (issue,) = fake_github.issues.values()
    assert f"({interval})" in sent["text"] and f"({interval})" in issue["body"]
    assert cli("detect", *args, env={"COLUMNS": "250"}).stdout.count(f"({interval})") == 1
    assert interval in cli("alerts", env={"COLUMNS": "250"}, check=True).stdout


def test_a_threshold_alerts_interval_reads_95_and_an_old_change_points_no_number(cli, store_path, fake_github,
                                                                                 receiver):
    from test_threshold_evidence import add, stepped

    add(store_path, stepped(1))
    assert cli("detect").returncode == 1
    [streak] = json.loads(cli("alerts", "--json", check=True).stdout)
    old = make_alert(10)
    del old.details["ci_level"]             # recorded before the level was kept with the alert
    seed(store_path, old)
    proc = cli("notify", "--channel", f"webhook:{receiver.url}", "--channel", f"github-issues:{REPO}",
               env=env_for(fake_github))
    assert proc.returncode == 0, proc.stderr
    texts = {b["alert"]["kind"]: b["text"] for b in receiver.processed.values()}
    bodies = {i["title"].split(": ")[1].split(" [")[0]: i["body"] for i in fake_github.issues.values()}
    assert set(bodies) == {streak["benchmark"], "sort 1e6"}
    assert streak["kind"] == "threshold"
    mean = f"streak mean {streak['details']['streak_change'] * 100:+.2f}%, "
    interval = f"95% CI [{streak['ci_low'] * 100:+.2f}%, {streak['ci_high'] * 100:+.2f}%]"
    assert f"({mean}{interval})" in texts["threshold"] and f"({mean}{interval})" in bodies[streak["benchmark"]]
    # its level was that day's thresholds', unrecorded: no number rather than a wrong one
    for text in (texts["change_point"], bodies["sort 1e6"]):
        assert "(CI [+9.60%, +14.40%])" in text and "% CI" not in text
    table = cli("alerts", env={"COLUMNS": "250"}, check=True).stdout
    assert interval in table and "CI [+9.60%, +14.40%]" in table and "% CI [+9.60%" not in table
