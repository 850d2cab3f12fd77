"""bench.toml validation: every mistake is reported with the file, the key and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT
from perfgate.containers.fingerprint import container_testbed
from perfgate.containers.images import Built, build_image, suite_dockerfile
from perfgate.containers.manifest import discover, load_suite
from perfgate.containers.runner import Limits, docker_run_args, probe_script
from perfgate.errors import InputError

GOOD = """\
name = "demo"
image = "base"
adapter = "hyperfine"
output = "results.json"

[profiles.quick]
command = "hyperfine --runs 3 --export-json $PERFGATE_OUT/results.json 'sleep 0.01'"

[[probe]]
benchmark = "sleep 0.01"
command = "sleep 0.01"

[variants.fast]
env = { SPEED = "fast" }
"""


def write(tmp_path: Path, text: str, folder: str = "demo") -> Path:
    suite = tmp_path / "benches" / folder
    suite.mkdir(parents=True, exist_ok=True)
    (suite / "bench.toml").write_text(text)
    return suite


def test_a_good_manifest_loads(tmp_path):
    suite = load_suite(write(tmp_path, GOOD))
    assert suite.name == "demo" and suite.image == "base" and suite.adapter == "hyperfine"
    assert suite.commands == {"quick": "hyperfine --runs 3 --export-json $PERFGATE_OUT/results.json 'sleep 0.01'"}
    assert suite.probes[0].argv == ("sleep", "0.01")
    assert suite.variant_names() == ["", "fast"]
    assert suite.variant_names(["fast"]) == ["fast"]


@pytest.mark.parametrize("edit, place, reason", [
    (lambda t: t.replace('name = "demo"', 'name = "other"'), "name", "folder is 'demo'"),
    (lambda t: t.replace('image = "base"\n', ""), "image", "missing required key"),
    (lambda t: t.replace('adapter = "hyperfine"', 'adapter = "nope"'), "adapter", "unknown adapter 'nope'"),
    (lambda t: t.replace('adapter = "hyperfine"', "adapter = 3"), "adapter", "expected a string, got int"),
    (lambda t: 'colour = "red"\n' + t, "colour", "unknown key"),
    (lambda t: t.replace("[profiles.quick]", "[profiles.slow]"), "profiles.slow", "unknown profile"),
    (lambda t: t.replace('command = "hyperfine', 'cmd = "hyperfine'), "profiles.quick.cmd", "unknown key"),
    (lambda t: t.replace('benchmark = "sleep 0.01"\n', ""), "probe[0].benchmark", "missing required key"),
    (lambda t: t.replace('command = "sleep 0.01"', 'command = "sleep \'0.01"'), "probe[0].command", "cannot split"),
    (lambda t: t.replace('SPEED = "fast"', "SPEED = 1"), "variants.fast.env.SPEED", "expected a string"),
    (lambda t: t.replace('SPEED = "fast"', '"BAD-NAME" = "x"'), "variants.fast.env.BAD-NAME", "not a valid environment"),
    (lambda t: t.replace('output = "results.json"', 'output = "../escape.json"'), "output", "plain file name"),
    (lambda t: t.replace('image = "base"', 'image = "Bad Image"'), "image", "not a valid image folder name"),
    (lambda t: 'memory = "lots"\n' + t, "memory", "not a Docker memory size"),
])
def test_mistakes_name_file_key_and_reason(tmp_path, edit, place, reason):
    folder = write(tmp_path, edit(GOOD))
    with pytest.raises(InputError) as caught:
        load_suite(folder)
    assert caught.value.source == str(folder / "bench.toml")
    assert caught.value.place == place
    assert reason in caught.value.reason


def test_invalid_toml_is_reported_with_its_position(tmp_path):
    folder = write(tmp_path, 'name = "demo"\nimage = \n')
    with pytest.raises(InputError, match=r"bench.toml: invalid TOML: .*line 2"):
        load_suite(folder)


def test_unknown_suite_and_variant(tmp_path):
    write(tmp_path, GOOD)
    with pytest.raises(InputError, match="no suite 'nope'; found: demo"):
        discover(tmp_path / "benches", ["nope"])
    with pytest.raises(InputError, match="no variant 'slow'"):
        discover(tmp_path / "benches")[0].variant_names(["slow"])


def test_perfgate_run_reports_a_bad_manifest_and_exits_2(tmp_path, cli):
    write(tmp_path, GOOD.replace('adapter = "hyperfine"', 'adapter = "nope"'))
    proc = cli("run", "--root", str(tmp_path), "--branch", "main", "--commit", "abc")
    assert proc.returncode == 2
    assert f"{tmp_path}/benches/demo/bench.toml:adapter: unknown adapter 'nope'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_docker_run_arguments_sandbox_the_benchmark(tmp_path):
    args = docker_run_args("img:1", ["sh", "-c", "true"], tmp_path, {"A": "1"}, Limits("1", "512m"), name="n")
    for flag in ("--network=none", "--cpuset-cpus=1", "--memory=512m", "--memory-swap=512m", "--read-only", "--rm"):
        assert flag in args
    assert args[args.index("--user") + 1] == "1000:1000"
    assert "seccomp=unconfined" not in args  # only probe containers may turn ASLR off


def test_probe_script_quotes_arguments():
    suite_probes = load_suite_probes()
    script = probe_script(suite_probes)
    assert "setarch -R valgrind --tool=cachegrind --cache-sim=no" in script
    assert "'a b; rm -rf /'" in script  # one quoted argument, never shell code


def test_a_peak_rss_only_probe_runs_no_valgrind_and_reads_no_count(tmp_path):
    from perfgate.containers.runner import parse_probes

    script = probe_script(load_suite_probes(), instructions=False)
    assert "valgrind" not in script and "/usr/bin/time -f %M" in script
    (tmp_path / ".probe-0.rss").write_text("2048\n")
    [rss] = parse_probes(load_suite_probes(), tmp_path, "bench.toml", instructions=False)
    assert (rss.measure, rss.value) == ("peak-rss", 2048 * 1024.0)


def load_suite_probes():
    from perfgate.containers.manifest import Probe

    return (Probe("x", ("echo", "a b; rm -rf /")),)


def test_suite_build_passes_the_ca_bundle_only_as_a_secret():
    with_ca = suite_dockerfile("perfgate/rust:abc", "cargo build --release", with_ca=True)
    assert "--mount=type=secret,id=ca,target=/run/secrets/ca" in with_ca
    assert "CARGO_HTTP_CAINFO=/run/secrets/ca" in with_ca
    assert "COPY" in with_ca and "ca-certificates" not in with_ca
    assert "secret" not in suite_dockerfile("perfgate/rust:abc", "cargo build --release", with_ca=False)


def test_different_images_never_share_a_testbed():
    one = Built("perfgate/cpp:aaa", "a" * 64, "sha256:1", False)
    two = Built("perfgate/cpp:bbb", "b" * 64, "sha256:2", False)
    harness = {"valgrind": "1:3.24.0-3"}
    first = container_testbed("cpp", one, "1", "4g", harness)
    assert first.name == container_testbed("cpp", one, "1", "4g", harness).name
    assert first.name != container_testbed("cpp", two, "1", "4g", harness).name
    assert first.name != container_testbed("cpp", one, "0", "4g", harness).name  # other cpuset
    assert first.fingerprint["image_digest"] == "sha256:" + "a" * 64
    for key in ("cpu_model", "kernel", "cpuset", "harness", "image_id"):
        assert key in first.fingerprint


def _repo_suite(tmp_path: Path, extra: str = "") -> Path:
    suite = write(tmp_path, 'context = "repo"\n' + extra + GOOD)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.c").write_text("int f(void) { return 1; }\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("guide\n")
    return suite


def _key_and_names(suite_folder: Path) -> tuple[str, set[str]]:
    import io
    import tarfile

    from perfgate.containers.images import suite_context

    key, context = suite_context(load_suite(suite_folder), "perfgate/base:trixie")
    with tarfile.open(fileobj=io.BytesIO(context)) as tar:
        return key, set(tar.getnames())


def test_a_repo_context_copies_the_project_and_its_key_follows_src(tmp_path):
    suite = _repo_suite(tmp_path)
    key, names = _key_and_names(suite)
    assert {"repo/src/lib.c", "repo/benches/demo/bench.toml", "repo/docs/guide.md"} <= names
    dockerfile = suite_dockerfile("perfgate/base:trixie", "make", False, "benches/demo")
    assert "COPY --chown=1000:1000 repo/ /repo/" in dockerfile and '"/repo/benches/demo", "/bench"' in dockerfile
    (tmp_path / "src" / "lib.c").write_text("int f(void) { return 2; }\n")   # a change outside the suite
    assert _key_and_names(suite)[0] != key


def test_a_suite_context_ignores_the_rest_of_the_repository(tmp_path):
    suite = write(tmp_path, GOOD)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.c").write_text("one\n")
    key, names = _key_and_names(suite)
    assert names == {"suite/bench.toml", "Dockerfile"}
    (tmp_path / "src" / "lib.c").write_text("two\n")
    assert _key_and_names(suite)[0] == key


def test_context_ignore_rules_leave_files_out_of_the_image_and_the_key(tmp_path):
    suite = _repo_suite(tmp_path, 'context_ignore = ["docs", "*.md"]\n')
    key, names = _key_and_names(suite)
    assert "repo/src/lib.c" in names and not any(n.startswith("repo/docs") for n in names)
    (tmp_path / "docs" / "guide.md").write_text("edited\n")
    (tmp_path / "NOTES.md").write_text("new\n")
    assert _key_and_names(suite)[0] == key


def test_perfgate_s_own_state_in_the_repository_is_never_in_the_context(tmp_path):
    # The default history (.perfgate/history.db) sits in the repository: each run changed it, so
    # each run built a new image with the history copied in.
    suite = _repo_suite(tmp_path, "")
    key, names = _key_and_names(suite)
    for state in (".perfgate/history.db", ".perfgate/spool/sent.jsonl", ".venv/bin/python"):
        (tmp_path / state).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / state).write_text("changes with every run\n")
    assert _key_and_names(suite) == (key, names)


@pytest.mark.parametrize("extra, place, reason", [
    ('context = "everything"\n', "context", "use 'suite'"),
    ('context_ignore = ["docs"]\n', "context_ignore", "only applies with context = 'repo'"),
    ('context = "repo"\ncontext_ignore = ["../secrets"]\n', "context_ignore[0]", "relative glob"),
])
def test_bad_context_settings_are_named(tmp_path, extra, place, reason):
    suite = write(tmp_path, extra + GOOD)
    with pytest.raises(InputError) as e:
        load_suite(suite)
    assert e.value.place == place and reason in e.value.reason


def test_a_repository_without_docker_builds_on_the_actions_definitions(tmp_path, monkeypatch):
    from perfgate.containers.images import image_definitions

    monkeypatch.delenv("PERFGATE_DOCKER_DIR", raising=False)
    # From a terminal, perfgate's own checkout's (the README's promise held only inside the action)
    assert image_definitions(tmp_path) == ROOT / "docker"
    monkeypatch.setattr("perfgate.containers.images.OWN_DEFINITIONS", tmp_path / "installed" / "docker")
    assert image_definitions(tmp_path) == tmp_path / "docker"        # none anywhere: the error names it
    monkeypatch.setenv("PERFGATE_DOCKER_DIR", str(tmp_path / "action" / "docker"))
    assert image_definitions(tmp_path) == tmp_path / "action" / "docker"
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "base.lock").write_text("# its own pins\n")
    assert image_definitions(tmp_path) == tmp_path / "docker"      # a repository's own definitions win


def test_the_base_bootstrap_uses_sudo_where_unprivileged_mmdebstrap_would_be_blocked(monkeypatch):
    import subprocess as sp

    from perfgate.containers import images

    monkeypatch.delenv("PERFGATE_BOOTSTRAP_SUDO", raising=False)
    monkeypatch.setattr(images.os, "geteuid", lambda: 0)
    assert images.bootstrap_prefix() == []                                   # root: mmdebstrap's root mode
    monkeypatch.setattr(images.os, "geteuid", lambda: 1001)                  # a runner user
    monkeypatch.setattr(images.shutil, "which", lambda name: "/usr/bin/sudo" if name == "sudo" else None)
    calls = []
    monkeypatch.setattr(images.subprocess, "run",
                        lambda argv, **kw: calls.append(argv) or sp.CompletedProcess(argv, 0, b"", b""))
    assert images.bootstrap_prefix() == ["sudo", "-n", "--preserve-env=PERFGATE_DEBIAN_MIRROR"]
    assert calls == [["sudo", "-n", "true"]]                                 # never prompts for a password
    monkeypatch.setattr(images.subprocess, "run", lambda argv, **kw: sp.CompletedProcess(argv, 1, b"", b""))
    assert images.bootstrap_prefix() == []                                   # no password-less sudo
    monkeypatch.setenv("PERFGATE_BOOTSTRAP_SUDO", "never")
    assert images.bootstrap_prefix() == []


def test_a_suite_whose_output_is_criterion_s_folder_is_read(tmp_path):
    # The criterion adapter reads target/criterion; `run` refused a folder as "wrote no 'criterion'".
    import shutil

    from perfgate.containers.manifest import Suite
    from perfgate.containers.runner import read_output

    suite = Suite("crit", tmp_path, "rust", "criterion", "criterion", {"quick": "cargo bench"})
    out = tmp_path / "out"
    shutil.copytree(ROOT / "tests/fixtures/criterion/target/criterion", out / "criterion")
    adapter, parsed = read_output(suite, out, "")
    assert adapter == "criterion" and "fib_recursive_15" in {m.benchmark for m in parsed.metrics}
    assert all(m.samples for m in parsed.metrics if m.measure == "latency")
    shutil.rmtree(out / "criterion")
    (out / "target").mkdir()
    with pytest.raises(InputError, match=r"wrote no 'criterion' in \$PERFGATE_OUT; it wrote target/"):
        read_output(suite, out, "")


def test_a_suite_output_that_cannot_be_read_is_named_by_its_suite_not_a_temporary_path(tmp_path):
    """A harness that reported no benchmark: the error named only /tmp/perfgate-out-…/results.json,
    a folder gone by the time it was read (and, in a check, no side or suite)."""
    from perfgate.containers.manifest import Suite
    from perfgate.containers.runner import read_output

    suite = Suite("spin", tmp_path, "base", "hyperfine", "results.json", {"quick": "hyperfine ..."})
    out = tmp_path / "perfgate-out-x"
    out.mkdir()
    (out / "results.json").write_text('{"results": []}')
    with pytest.raises(InputError) as caught:
        read_output(suite, out, "")
    assert str(caught.value) == (f"{suite.manifest}:output: $PERFGATE_OUT/results.json: no results found in this "
                                 "hyperfine output")
    stdout = Suite("spin", tmp_path, "base", "hyperfine", "-", {"quick": "hyperfine ..."})
    with pytest.raises(InputError) as caught:
        read_output(stdout, out, "")
    assert str(caught.value) == f"{suite.manifest}:output: its stdout: the file is empty: the harness wrote nothing " \
        "(did its command fail?)"


def test_an_image_with_no_definition_names_the_images_there():
    with pytest.raises(InputError, match=r"image 'c' \(a suite's bench.toml 'image'\) has no Dockerfile; "
                                         r"the images here: base, cpp, python, rust, swift"):
        build_image(ROOT / "docker", "c", None)


def test_a_failed_command_shows_both_streams_and_keeps_them_redacted_in_a_log(tmp_path, monkeypatch):
    # A consumer's benchmark raised: pytest reported it on stdout, and the error showed only the
    # harness's last stderr line, with no log kept anywhere.
    from perfgate import redact
    from perfgate.containers import runner

    token = "ghp_" + "x7Kq2mZ9" * 4
    monkeypatch.setattr(redact, "_KNOWN", set())
    redact.register(redact.Secret(token))
    stdout = "".join(f"collected line {i}\n" for i in range(100)) + \
        f"E   ValueError: bad input (token {token})\nFAILED bench_mylib.py::test_parse - ValueError\n"
    stderr = "Authorization: Bearer abcdef123456\nWrote benchmark data in: <_io.BufferedWriter>\n"
    monkeypatch.setattr(runner, "run_container", lambda *a, **k: runner.Finished(1, stdout, stderr, 0.5))
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "bench.toml").write_text(GOOD)
    suite = load_suite(tmp_path / "demo")
    logs = tmp_path / "repo" / ".perfgate" / "logs"
    with pytest.raises(InputError) as caught:
        runner.run_suite(suite, "perfgate/suite-demo:0123456789ab", variant="fast", profile="quick",
                         limits=Limits("0"), work_dir=tmp_path, logs_dir=logs)
    message = str(caught.value)
    assert message.startswith(f"{suite.manifest}:profiles.quick.command: exited 1 (variant fast) (full log: ")
    assert "FAILED bench_mylib.py::test_parse - ValueError" in message and "Wrote benchmark data in" in message
    assert "collected line 99" in message and "collected line 0\n" not in message   # the end of stdout only
    assert len(message) < 2 * runner.TAIL_CHARS + 500
    [log] = logs.iterdir()
    assert str(log) in message and log.name == "run-demo-0123456789ab-quick-fast.log"
    text = log.read_text()
    assert "collected line 0\n" in text and "FAILED bench_mylib.py" in text and "Wrote benchmark data" in text
    for shown in (message, text):
        assert token not in shown and token[4:20] not in shown and "abcdef123456" not in shown
        assert "(token ***)" in shown


def test_a_container_killed_by_its_timeout_says_what_it_printed(monkeypatch, tmp_path):
    """The message said only that it ran too long; where it hung was lost with its output."""
    import subprocess as sp

    from perfgate.containers import runner
    from perfgate.errors import PerfgateError

    def hang(cmd, **kw):
        raise sp.TimeoutExpired(cmd, kw.get("timeout"), output=b"step 1 done\nstep 2: waiting for lock\n",
                                stderr=b"")
    monkeypatch.setattr(runner.subprocess, "run", hang)
    monkeypatch.setattr(runner, "docker", lambda *a, **k: None)
    monkeypatch.setattr(runner, "docker_cli", lambda: "docker")
    with pytest.raises(PerfgateError) as e:
        runner.run_container("img:tag", ["sh", "-c", "x"], tmp_path, {}, runner.Limits(None, None, 5.0))
    assert "ran longer than 5 s and was killed" in str(e.value) and "step 2: waiting for lock" in str(e.value)
