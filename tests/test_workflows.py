"""The GitHub workflows and the root action: every perfgate command line parses with the real
CLI, and the security rules hold — third-party actions pinned to commit SHAs, least privilege
per job, no credentials left in checkouts, no expressions inside shell scripts, cancellation on
pull requests, a comment workflow that trusts nothing from the artifact for where to write."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml

from perfgate.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW_FILES = sorted([*(ROOT / ".github" / "workflows").glob("*.yml"),
                         *(ROOT / "examples").glob("*/.github/workflows/*.yml")])
ACTION_FILES = [ROOT / "action.yml"]
OWN = ROOT / ".github" / "workflows"
CONSUMER = ROOT / "examples" / "consumer" / ".github" / "workflows"
# How an adopter uses the action: perfgate has no release tags, so a full commit SHA of it, written
# as this placeholder in the copies to adopt (examples/consumer), the README and action.yml.
ADOPTER_USES = "OWNER/perfgate@<40-hex commit sha>"


def _load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as True
    return data


def _steps(data: dict):
    if "runs" in data:
        yield from data["runs"]["steps"]
    for job in data.get("jobs", {}).values():
        yield from job.get("steps", [])


def _command_lines() -> list[tuple[str, str]]:
    found = []
    for path in WORKFLOW_FILES:
        for step in _steps(_load(path)):
            command = (step.get("with") or {}).get("command")
            if command and step.get("uses", "").rstrip("/") in (".", "./", "./../..") or command and "perfgate" in step.get("uses", ""):
                found.append((f"{path.relative_to(ROOT)}: {step.get('name', command)}", command))
    return found


COMMANDS = _command_lines()


def test_the_workflows_call_perfgate():
    assert len(COMMANDS) >= 8


@pytest.mark.parametrize("where, command", COMMANDS, ids=[w for w, _ in COMMANDS])
def test_workflow_command_parses(where, command):
    # Expressions stand for one word each.
    argv = ["perfgate", *shlex.split(re.sub(r"\$\{\{[^}]*\}\}", "X", command))]
    build_parser(argv[0]).parse_args(argv[1:])  # SystemExit(2) on an unknown verb or option


@pytest.mark.parametrize("path", WORKFLOW_FILES + ACTION_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_pins_and_scripts(path):
    text = path.read_text()
    for step in _steps(_load(path)):
        uses = step.get("uses", "")
        if uses == ADOPTER_USES:     # perfgate itself, in the copies to adopt: a commit to fill in
            assert CONSUMER in path.parents, f"{path}: perfgate's own workflows use the action by path"
            assert all(line.endswith(f"uses: {uses}  # pin a commit") for line in text.splitlines() if uses in line)
        elif uses and not uses.startswith("."):
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), f"{uses}: pin third-party actions to a commit SHA"
            line = next(line for line in text.splitlines() if uses in line)
            assert re.search(r"# v\d", line), f"{uses}: say which version the SHA is"
        if "run" in step:
            assert "${{" not in step["run"], f"{step.get('name')}: pass expressions through env:, not into the script"
        if uses.startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_least_privilege_per_job(path):
    data = _load(path)
    assert data["permissions"] == {}, "grant nothing at the top; each job asks for what it needs"
    for name, job in data["jobs"].items():
        assert "permissions" in job, f"job {name} must declare its permissions"
        runs_benchmarks = any("run " in str((s.get("with") or {}).get("command", "")) or
                              str((s.get("with") or {}).get("command", "")).startswith("check ") for s in job["steps"])
        if runs_benchmarks:  # the job that executes benchmark (pull request) code may only read
            assert job["permissions"] == {"contents": "read"}, f"job {name} runs benchmark code"


def test_the_consumer_workflows_are_perfgates_own_apart_from_the_action_reference():
    """examples/consumer's workflows are the ones an adopter copies: the same files, jobs, steps and
    settings as perfgate's own, the only difference the action's reference (`uses: ./` there, the
    commit-pinned ADOPTER_USES here, as the consumer's README says).  They had drifted: no Pages
    deploy (the alerts linked a site never deployed), a hard-coded title, `uses:` by path."""
    own = sorted(p.name for p in OWN.glob("*.yml"))
    assert sorted(p.name for p in CONSUMER.glob("*.yml")) == own
    for name in own:
        mine, theirs = _load(OWN / name), _load(CONSUMER / name)
        refs = [s["uses"] for s in _steps(theirs) if "perfgate" in s.get("uses", "")]
        assert refs and set(refs) == {ADOPTER_USES}, name
        assert not any(s.get("uses", "").startswith(".") for s in _steps(theirs)), \
            f"{name}: an adopter's repository has no perfgate at ./"
        for step in _steps(theirs):
            if step.get("uses") == ADOPTER_USES:
                step["uses"] = "./"
        assert theirs == mine, f"{name}: the consumer's copy differs from perfgate's own beyond the action reference"
    consumer_readme = (ROOT / "examples/consumer/README.md").read_text()
    assert f"the same {len(own)} workflows" in consumer_readme or "the same four workflows" in consumer_readme
    assert f"`uses: {ADOPTER_USES}  # pin a commit`" in consumer_readme


def test_the_action_is_shown_pinned_to_a_commit_everywhere():
    """There is no `v1` tag (or any tag) of perfgate: every place that shows how to use the action
    names a commit, with the same placeholder."""
    for path in [ROOT / "README.md", ROOT / "action.yml", ROOT / "examples/consumer/README.md",
                 *OWN.glob("*.yml"), *CONSUMER.glob("*.yml")]:
        text = path.read_text()
        refs = set(re.findall(r"OWNER/perfgate@([^`\n#]*?)\s*(?:`|#|\n|$)", text))
        assert refs <= {"<40-hex commit sha>"}, (path, refs)
        assert "perfgate@v1" not in text and "sha-of-v1" not in text, path
    assert f"uses: {ADOPTER_USES}  # pin a commit" in (ROOT / "README.md").read_text()


def test_pull_requests_cancel_and_compare_against_the_merge_base():
    data = _load(ROOT / ".github/workflows/pr-check.yml")
    assert data["concurrency"]["cancel-in-progress"] is True
    steps = data["jobs"]["check"]["steps"]
    assert any("git merge-base" in s.get("run", "") for s in steps)
    [check] = [s for s in steps if (s.get("with") or {}).get("command", "").startswith("check ")]
    assert "--base ${{ steps.base.outputs.sha }}" in check["with"]["command"]
    # No pull request number travels in the artifact.
    assert "github.event.number" not in (ROOT / ".github/workflows/pr-check.yml").read_text()


@pytest.mark.parametrize("path", [ROOT / ".github/workflows/pr-comment.yml",
                                  ROOT / "examples/consumer/.github/workflows/pr-comment.yml"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_comment_workflow_routes_by_head_sha_and_bot_author(path):
    data = _load(path)
    assert list(data["on"]) == ["workflow_run"]
    job = data["jobs"]["comment"]
    assert job["permissions"] == {"actions": "read", "checks": "write", "contents": "read", "pull-requests": "write"}
    [checkout] = [s for s in job["steps"] if "actions/checkout" in s.get("uses", "")]
    assert "ref" not in checkout["with"] and "repository" not in checkout["with"]  # the default branch, never the PR
    [post] = [s for s in job["steps"] if (s.get("with") or {}).get("command", "").startswith("comment ")]
    command = post["with"]["command"]
    assert "--head-sha ${{ github.event.workflow_run.head_sha }}" in command
    assert "--head-repo ${{ github.event.workflow_run.head_repository.full_name }}" in command
    assert post["env"] == {"GITHUB_TOKEN": "${{ github.token }}"}
    assert "number" not in command  # nothing from the artifact says where to write (tests/test_comment.py)


def test_main_fails_on_errors_and_keeps_a_durable_history():
    text = (ROOT / ".github/workflows/main.yml").read_text()
    assert "continue-on-error" not in text
    data = _load(ROOT / ".github/workflows/main.yml")
    assert "acknowledge" in data["on"]["workflow_dispatch"]["inputs"]
    pushes = [s for j in data["jobs"].values() for s in j["steps"] if (s.get("with") or {}).get("push-data") == "true"]
    assert len(pushes) >= 3  # runs, alerts, acknowledgements all reach the data branch
    # The history never depends on the cache; only notify's mutable ledger and the Bencher spool
    # are.  The store is cached too, as a head start only: every job that restores it imports
    # the data branch after, and only a job that succeeded saves it (a job that failed on it
    # must not pass it on).
    cached = [s["with"]["path"] for j in data["jobs"].values() for s in j["steps"] if "actions/cache" in s.get("uses", "")]
    assert cached and set(cached) == {".perfgate/notify.db", ".perfgate/spool", ".perfgate/history.db"}
    for job in data["jobs"].values():
        steps = job["steps"]
        restored = [i for i, s in enumerate(steps) if "actions/cache/restore" in s.get("uses", "")
                    and s["with"]["path"] == ".perfgate/history.db"]
        imports = [i for i, s in enumerate(steps) if (s.get("with") or {}).get("data-branch")]
        assert not restored or (imports and restored[0] < imports[0]), job
        for s in steps:
            if "actions/cache/save" in s.get("uses", "") and s["with"]["path"] == ".perfgate/history.db":
                assert "if" not in s and s["with"]["key"] == "perfgate-history-${{ github.run_id }}-${{ github.run_attempt }}"


@pytest.mark.parametrize("path", [ROOT / ".github/workflows/main.yml", ROOT / ".github/workflows/backfill.yml"])
def test_the_bencher_spool_outlives_the_runner(path):
    # Runs spooled while Bencher was down went with the runner: each publish to Bencher now sits
    # between a restore and a save (even on failure) of the spool, under one key for both workflows.
    steps = [s for j in _load(path)["jobs"].values() for s in j["steps"]]
    [publish] = [i for i, s in enumerate(steps) if "publish --to bencher" in (s.get("with") or {}).get("command", "")]
    restores = [i for i, s in enumerate(steps) if "actions/cache/restore" in s.get("uses", "")
                and s["with"]["path"] == ".perfgate/spool"]
    saves = [i for i, s in enumerate(steps) if "actions/cache/save" in s.get("uses", "")
             and s["with"]["path"] == ".perfgate/spool"]
    assert len(restores) == len(saves) == 1 and restores[0] < publish < saves[0]
    assert steps[saves[0]]["if"].startswith("always()")
    assert steps[restores[0]]["with"]["restore-keys"] == "perfgate-spool-"


def test_dependabot_watches_the_action_pins():
    data = yaml.safe_load((ROOT / ".github/dependabot.yml").read_text())
    assert "github-actions" in {u["package-ecosystem"] for u in data["updates"]}


def test_the_action_installs_from_its_own_path_and_splits_safely():
    action = _load(ROOT / "action.yml")
    assert action["runs"]["using"] == "composite"
    install = action["runs"]["steps"][0]
    assert '"$ACTION_PATH/scripts/setup" --runtime' in install["run"]
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    run = next(s for s in action["runs"]["steps"] if s.get("id") == "run")
    assert run["env"]["PERFGATE_ARGS"] == "${{ inputs.command }}" and "shlex.split" in run["run"]
    assert set(action["outputs"]) == {"exit-code", "outcome"}


def _run_action_step(tmp_path, command: str, **env):
    """The action's `run` step script, executed as GitHub would: bash, env, GITHUB_OUTPUT file."""
    import os
    import subprocess
    import sys

    step = next(s for s in _load(ROOT / "action.yml")["runs"]["steps"] if s.get("id") == "run")
    outputs, summary = tmp_path / "outputs", tmp_path / "summary.md"
    full = {**os.environ, "PERFGATE_BIN": str(Path(sys.executable).parent / "perfgate"), "PERFGATE_ARGS": command,
            "PERFGATE_STORE": f"sqlite:{tmp_path / 'h.db'}", "SUMMARY_FILE": "", "FAIL_ON_REGRESSION": "true",
            "STDOUT_FILE": "", "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary), **env}
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=full, capture_output=True, text=True)
    values = dict(line.split("=", 1) for line in outputs.read_text().splitlines()) if outputs.exists() else {}
    return proc, values


def test_the_action_treats_its_input_as_data_not_code(tmp_path):
    from perfgate.store.sqlite import SqliteStore

    SqliteStore(tmp_path / "h.db").close()            # an empty history to export
    proc, out = _run_action_step(tmp_path, "sync --export 'dir $(touch pwned)' --json")
    assert proc.returncode == 0, proc.stderr
    assert out == {"exit-code": "0", "outcome": "ok"}
    assert (tmp_path / "dir $(touch pwned)").is_dir() and not (tmp_path / "pwned").exists()


def test_the_action_fails_distinctly_on_an_error(tmp_path):
    (tmp_path / "bad.csv").write_text("value\n1\nfast\n")
    proc, out = _run_action_step(tmp_path, "detect --series bad.csv")
    assert proc.returncode == 2 and out == {"exit-code": "2", "outcome": "error"}
    assert ("::error title=perfgate error::perfgate detect failed with exit 2: a usage or input error, "
            "see the log") in proc.stdout


def test_the_action_says_an_internal_error_is_a_bug_not_a_usage_error(tmp_path):
    # every exit but 0, 1 and 4 was annotated "(usage or input error, see the log)"; exit 3 is
    # perfgate's own failure (an uncaught exception: a bug), the user's input is not to blame
    import os
    import sys

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "perfgate").write_text("#!/bin/sh\necho 'perfgate: internal error: boom' >&2\nexit 3\n")
    (fake / "perfgate").chmod(0o755)
    os.symlink(sys.executable, fake / "python")
    proc, out = _run_action_step(tmp_path, "detect", PERFGATE_BIN=str(fake / "perfgate"))
    assert proc.returncode == 3 and out == {"exit-code": "3", "outcome": "error"}, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == ("::error title=perfgate error::perfgate detect failed with exit 3: "
                                            "an internal error (a perfgate bug), see the log")
    assert "usage or input" not in proc.stdout and "perfgate: internal error: boom" in proc.stderr


def test_the_action_reports_a_regression_and_fails_only_when_asked(tmp_path):
    values = "\n".join(["value"] + ["100"] * 40 + ["130"] * 40)
    (tmp_path / "step.csv").write_text(values + "\n")
    (tmp_path / "note.md").write_text("verdict table\n")
    proc, out = _run_action_step(tmp_path, "detect --series step.csv", SUMMARY_FILE="note.md")
    assert proc.returncode == 1 and out["outcome"] == "regression", proc.stdout + proc.stderr
    assert (tmp_path / "summary.md").read_text() == "verdict table\n"
    proc, out = _run_action_step(tmp_path, "detect --series step.csv", FAIL_ON_REGRESSION="false")
    assert proc.returncode == 0 and out == {"exit-code": "1", "outcome": "regression"}


def _runs_of_one_value(tmp_path, head_branch="pr", head_name="sort"):
    """A history whose main and ``head_branch`` runs cannot be judged: one value a benchmark
    (``head_name`` another name than main's: no benchmark in common)."""
    from perfgate.model import Metric, Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    with SqliteStore(tmp_path / "h.db") as store:
        store.add_runs([Run("default", "main", "a1", Testbed("tb"), [Metric("sort", "latency", 100.0)], start_time=1.0),
                        Run("default", head_branch, "b1", Testbed("tb"), [Metric(head_name, "latency", 130.0)],
                            start_time=2.0)])


def test_the_action_says_no_verdict_apart_from_an_error_and_why(tmp_path):
    """A compare (or check) that judged nothing exited 2, and the action said "perfgate error …
    usage or input error": it is outcome no-verdict (exit 4), a warning quoting perfgate's reason,
    the reason in the job summary too; the step fails only when asked (fail-on-no-verdict, by
    default as fail-on-regression)."""
    _runs_of_one_value(tmp_path)
    command = "compare --base-branch main --head-branch pr"
    why = ("nothing judged: none of the 1 comparison(s) had enough samples (see the table's notes); this is no pass. "
           "Compare runs that hold raw samples (a harness's repetitions), or let 'perfgate check' measure base and "
           "head in interleaved rounds")
    proc, out = _run_action_step(tmp_path, command, FAIL_ON_REGRESSION="false")
    assert proc.returncode == 0 and out == {"exit-code": "4", "outcome": "no-verdict"}, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == ("::warning title=perfgate no verdict::perfgate compare judged nothing, "
                                            f"neither a pass nor a regression: {why}")
    assert "perfgate error" not in proc.stdout and "::error" not in proc.stdout
    assert proc.stderr.splitlines()[-1] == f"perfgate compare: no verdict: {why}"   # still in the log
    # no summary file: the job summary gets the headline, with the reason
    assert (tmp_path / "summary.md").read_text().startswith("### perfgate: ⚪ **No verdict: nothing judged: none of "
                                                            "the 1 comparison\\(s\\) had enough samples")
    # a gate (fail-on-regression, the default) fails on it too, unless told otherwise; and the other way round
    for env, code in (({}, 4), ({"FAIL_ON_NO_VERDICT": "false"}, 0),
                      ({"FAIL_ON_REGRESSION": "false", "FAIL_ON_NO_VERDICT": "true"}, 4)):
        proc, out = _run_action_step(tmp_path, command, **env)
        assert proc.returncode == code and out == {"exit-code": "4", "outcome": "no-verdict"}, (env, proc.stderr)
        level = "error" if code else "warning"
        assert proc.stdout.splitlines()[-1].startswith(f"::{level} title=perfgate no verdict::perfgate compare judged "
                                                       "nothing, neither a pass nor a regression: nothing judged: ")
        assert "perfgate error" not in proc.stdout
    # with the comment as the summary file: its own headline, once; --json's report in the stdout file
    (tmp_path / "summary.md").unlink()
    proc, out = _run_action_step(tmp_path, f"{command} --markdown pr.md --json", SUMMARY_FILE="pr.md",
                                 STDOUT_FILE="report.json", FAIL_ON_NO_VERDICT="false")
    assert proc.returncode == 0 and out == {"exit-code": "4", "outcome": "no-verdict"}, proc.stderr
    summary = (tmp_path / "summary.md").read_text()
    assert summary == (tmp_path / "pr.md").read_text() and summary.count("No verdict") == 1
    assert json.loads((tmp_path / "report.json").read_text())["exit_code"] == 4
    assert proc.stdout.splitlines()[-1].endswith(f"neither a pass nor a regression: {why}")


def test_a_no_verdicts_reason_cannot_forge_a_workflow_command(tmp_path):
    """The reason names the runs' branches, which a pull request chooses: a % in it is escaped as
    a workflow command's data must be (%25), so "%0A::error::" stays text."""
    _runs_of_one_value(tmp_path, head_branch="pr-%0A::error::forged", head_name="renamed")
    proc, out = _run_action_step(tmp_path, "compare --base-branch main --head-branch pr-%0A::error::forged",
                                 FAIL_ON_NO_VERDICT="false")
    assert proc.returncode == 0 and out == {"exit-code": "4", "outcome": "no-verdict"}, proc.stderr
    [annotation] = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert annotation.startswith("::warning title=perfgate no verdict::perfgate compare judged nothing, neither a "
                                 "pass nor a regression: nothing to compare: base main@a1 (testbed tb) and head "
                                 "pr-%250A::error::forged@b1 (testbed tb)")


def test_a_command_input_that_cannot_be_split_is_an_error_not_a_bare_run(tmp_path):
    # it was a Python traceback, then perfgate run with no arguments (its help, "perfgate  failed")
    proc, out = _run_action_step(tmp_path, "alerts --ack 'abc")
    assert proc.returncode == 2 and out == {"exit-code": "2", "outcome": "error"}
    assert "the command input cannot be split like a shell line: No closing quotation" in proc.stderr
    assert "Traceback" not in proc.stderr and "usage:" not in proc.stdout + proc.stderr


def test_a_stdout_file_that_cannot_be_written_is_an_error_not_a_regression(tmp_path):
    # bash's failed redirect exits 1, which the step took for "regression" without running perfgate
    proc, out = _run_action_step(tmp_path, "alerts --json", STDOUT_FILE="no-such-folder/alerts.json")
    assert proc.returncode == 2 and out == {"exit-code": "2", "outcome": "error"}
    assert "stdout-file no-such-folder/alerts.json cannot be written" in proc.stderr


def test_the_alerts_from_ci_link_their_trend_pages():
    # the workflows built and deployed the pages but called notify without their address, so the
    # issues they opened had no trend link
    for path in (ROOT / ".github/workflows/main.yml", ROOT / "examples/consumer/.github/workflows/main.yml"):
        steps = [s for j in _load(path)["jobs"].values() for s in j["steps"]]
        notify = next(s for s in steps if "notify" in str((s.get("with") or {}).get("command", "")))
        assert "github.io" in notify["env"]["PERFGATE_PAGES_URL"], path
        # ... and the pages they link are deployed there (the consumer's copy only uploaded them)
        assert any(s.get("uses", "").startswith("actions/deploy-pages@") for s in steps), path
    from perfgate.cli import build_parser
    import os
    os.environ["PERFGATE_PAGES_URL"] = "https://me.github.io/proj"
    try:
        args = build_parser("notify").parse_args(["notify", "--channel", "webhook:env:X"])
    finally:
        del os.environ["PERFGATE_PAGES_URL"]
    assert args.pages_url == "https://me.github.io/proj"
