"""Run a suite in its container and turn what it printed into metrics.

Every container runs with ``--network=none``, as the non-root user ``bench`` (uid 1000), pinned
to a cpuset, under a memory limit (swap off), on a read-only root with ``$PERFGATE_OUT`` (a bind
mount) and ``/tmp`` as the only writable places.

Probes give the deterministic measures:

* ``instructions`` — total instructions executed (valgrind's *I refs*) under
  ``valgrind --tool=cachegrind --cache-sim=no`` with ASLR off (``setarch -R``) and
  ``PYTHONHASHSEED=0``, so the count repeats exactly run to run.  Turning ASLR off needs the
  ``personality`` syscall, which Docker's default seccomp profile refuses, so probe containers
  (only those) run with ``seccomp=unconfined``; they keep every other restriction.
* ``peak-rss`` — the maximum resident set size from GNU ``/usr/bin/time -f %M`` (KiB, stored in
  bytes), measured in a run without valgrind.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfgate import host_load
from perfgate.adapters import parse_file
from perfgate.containers import cpu_time
from perfgate.containers.engine import EngineError, docker, docker_cli
from perfgate.containers.manifest import Probe, Suite
from perfgate.errors import InputError
from perfgate.model import Metric
from perfgate.redact import redact

OUT = "/out"
_IREFS = re.compile(r"I\s+refs:\s+([0-9,]+)")
# A failed command's message shows the end of each stream; its log keeps all of both.
TAIL_LINES = 20
TAIL_CHARS = 2000   # a progress bar redrawn with \r is one line of megabytes
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True)
class Limits:
    cpuset: str
    memory: str = "4g"
    timeout: float = 1800.0


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    container: str = ""  # set when the container was kept for inspection
    cpu_seconds: float | None = None    # the container's CPU time, when watched and readable


def docker_run_args(tag: str, command: list[str], out_dir: Path, env: dict[str, str], limits: Limits, *,
                    name: str, keep: bool = False, unconfined: bool = False,
                    cidfile: Path | None = None) -> list[str]:
    """The ``docker run`` argument list (without the CLI itself) for one benchmark container."""
    args = ["run", "--name", name, *([f"--cidfile={cidfile}"] if cidfile else []),
            "--network=none", "--user", "1000:1000",
            f"--cpuset-cpus={limits.cpuset}", f"--memory={limits.memory}", f"--memory-swap={limits.memory}",
            "--read-only", "--tmpfs", "/tmp:rw,exec,size=1g", "-v", f"{out_dir}:{OUT}:rw", "-w", "/bench",
            "-e", f"PERFGATE_OUT={OUT}", "-e", "PYTHONHASHSEED=0", "-e", "HOME=/tmp"]
    if not keep:
        args.append("--rm")
    if unconfined:
        args += ["--security-opt", "seccomp=unconfined"]
    for key, value in env.items():
        args += ["-e", f"{key}={value}"]
    return [*args, tag, *command]


def run_container(tag: str, command: list[str], out_dir: Path, env: dict[str, str], limits: Limits, *,
                  keep: bool = False, unconfined: bool = False, watch: bool = False) -> Finished:
    """Run one container to completion (killed after ``limits.timeout`` seconds); ``watch``: read
    its CPU time as it runs (``Finished.cpu_seconds``)."""
    name = f"perfgate-{uuid.uuid4().hex[:12]}"
    # not in out_dir, which the container sees and whose files an error lists
    cid_dir = Path(tempfile.mkdtemp(prefix="perfgate-cid-")) if watch else None
    cidfile = cid_dir / "cid" if cid_dir else None
    args = docker_run_args(tag, command, out_dir, env, limits, name=name, keep=keep, unconfined=unconfined,
                           cidfile=cidfile)
    watcher = cpu_time.Watch(cidfile) if cidfile else None
    started = time.monotonic()
    try:
        proc = subprocess.run([docker_cli(), *args], capture_output=True, text=True, timeout=limits.timeout)
    except subprocess.TimeoutExpired as e:
        docker("rm", "-f", name, check=False)
        # what it printed before it was killed says where it hung (the message said only that it did)
        said = "\n".join(f"--- {what}, last lines ---\n{tail(redact(_text(out)))}"
                         for what, out in (("stdout", e.stdout), ("stderr", e.stderr)) if out)
        raise EngineError(f"container {name} ({tag}) ran longer than {limits.timeout:.0f} s and was killed"
                          + (f"\n{said}" if said else "")) from None
    except BaseException:
        # Ctrl-C or SIGTERM: killing the docker CLI does not stop its container, which would run
        # on and skew whatever is measured next.
        docker("rm", "-f", name, check=False)
        raise
    finally:
        cpu_seconds = watcher.stop() if watcher else None
        if cid_dir:
            shutil.rmtree(cid_dir, ignore_errors=True)
    seconds = time.monotonic() - started
    if proc.returncode == 125:  # docker itself failed (bad flag, missing image...)
        raise EngineError(f"docker run failed: {proc.stderr.strip()[-2000:]}")
    return Finished(proc.returncode, proc.stdout, proc.stderr, seconds, name if keep else "", cpu_seconds)


def writable_dir(parent: Path | None = None) -> Path:
    """A fresh host directory the container's uid 1000 may write to."""
    path = Path(tempfile.mkdtemp(prefix="perfgate-out-", dir=parent))
    path.chmod(0o777)
    return path


def probe_script(probes: tuple[Probe, ...], instructions: bool = True) -> str:
    """Shell script running each probe under valgrind (unless not ``instructions``), then under
    GNU time, into $PERFGATE_OUT."""
    lines = ["set -u"]
    for i, probe in enumerate(probes):
        argv = " ".join(shlex.quote(a) for a in probe.argv)
        if instructions:
            lines.append(f"setarch -R valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "
                         f"--log-file={OUT}/.probe-{i}.vg {argv} >/dev/null 2>{OUT}/.probe-{i}.err "
                         f"|| echo $? > {OUT}/.probe-{i}.failed")
        # Not again once it failed under valgrind: its error was said twice, in a message cut to 1,500 characters.
        lines.append(f"[ -e {OUT}/.probe-{i}.failed ] || "
                     f"/usr/bin/time -f %M -o {OUT}/.probe-{i}.rss {argv} >/dev/null 2>>{OUT}/.probe-{i}.err "
                     f"|| echo $? >> {OUT}/.probe-{i}.failed")
    return "\n".join(lines) + "\n"


def parse_probes(probes: tuple[Probe, ...], out_dir: Path, source: str, instructions: bool = True) -> list[Metric]:
    metrics = []
    for i, probe in enumerate(probes):
        failed = out_dir / f".probe-{i}.failed"
        if failed.exists():
            detail = (out_dir / f".probe-{i}.err").read_text(errors="replace").strip()[-1500:]
            raise InputError(source, f"probe {probe.benchmark!r}",
                             f"command {shlex.join(probe.argv)!r} failed (exit {failed.read_text().split()[0]}): {detail}")
        if instructions:
            found = _IREFS.findall((out_dir / f".probe-{i}.vg").read_text(errors="replace"))
            if not found:
                raise InputError(source, f"probe {probe.benchmark!r}", "valgrind reported no instruction count")
            metrics.append(Metric(probe.benchmark, "instructions", float(int(found[-1].replace(",", "")))))
        rss_text = (out_dir / f".probe-{i}.rss").read_text().strip().splitlines()
        try:
            rss_kib = int(rss_text[-1])
        except (IndexError, ValueError):
            raise InputError(source, f"probe {probe.benchmark!r}", f"GNU time wrote no peak RSS: {rss_text!r}") from None
        metrics.append(Metric(probe.benchmark, "peak-rss", float(rss_kib * 1024)))
    return metrics


@dataclass
class SuiteResult:
    metrics: list[Metric]
    context: dict[str, Any] = field(default_factory=dict)
    start_time: float = 0.0
    end_time: float = 0.0


def _text(out: str | bytes) -> str:
    return out.decode(errors="replace") if isinstance(out, bytes) else out


def tail(text: str) -> str:
    """The last lines of a stream, bounded for an error message."""
    return "\n".join(text.rstrip().splitlines()[-TAIL_LINES:])[-TAIL_CHARS:] or "(empty)"


def failure_log_path(logs_dir: Path, suite: Suite, tag: str, profile: str, variant: str) -> Path:
    """Where a failed run's output is kept: named like the suite image's build log (by the image's
    key, so a check's base and head keep one each), one file per profile and variant."""
    name = "-".join(["run", suite.name, tag.rpartition(":")[2], profile, *([variant] if variant else [])])
    return logs_dir / f"{_UNSAFE_NAME.sub('-', name)}.log"


def command_failed(suite: Suite, tag: str, profile: str, variant: str, done: Finished,
                   logs_dir: Path | None) -> InputError:
    """The error of a harness command that exited non-zero, with the end of both of its streams:
    a test runner reports its failure on stdout (pytest's traceback), a harness often only a
    last line on stderr.  The whole of both is written to a log under ``logs_dir``, named in the
    message.  Both are redacted: a harness may print a token it was given."""
    stdout, stderr = redact(done.stdout), redact(done.stderr)
    where = ""
    if logs_dir:
        path = failure_log_path(logs_dir, suite, tag, profile, variant)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(redact(f"command: {suite.commands[profile]}\nimage: {tag}\nprofile: {profile}\n"
                                   f"variant: {variant or '-'}\nexit: {done.returncode} after {done.seconds:.1f} s\n")
                            + f"--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}\n")
            where = f" (full log: {path})"
        except OSError as e:   # the command's failure is the news, not the log's
            where = f" (its log could not be written to {path}: {e.strerror or e})"
    return InputError(str(suite.manifest), f"profiles.{profile}.command",
                      f"exited {done.returncode}{' (variant ' + variant + ')' if variant else ''}{where}\n"
                      f"--- stdout, last lines ---\n{tail(stdout)}\n--- stderr, last lines ---\n{tail(stderr)}")


def run_suite(suite: Suite, tag: str, *, variant: str, profile: str, limits: Limits,
              work_dir: Path | None = None, probes: bool = True, instructions: bool = True,
              logs_dir: Path | None = None) -> SuiteResult:
    """Run one suite (one variant, one profile) in image ``tag``: the harness command, then the
    probes (their peak RSS only, not ``instructions``: valgrind's count repeats exactly, and a
    check spends its later rounds without it).  Benchmark names get the ``<variant>/`` prefix.
    Raises on any failure, so a broken run is never recorded half; a failed command's output is
    kept in a log under ``logs_dir``."""
    if profile not in suite.commands:
        raise InputError(str(suite.manifest), f"profiles.{profile}", "this suite has no such profile")
    env = {"PERFGATE_PROFILE": profile, "PERFGATE_VARIANT": variant, **suite.variants.get(variant, {})}
    out_dir = writable_dir(work_dir)
    try:
        start = time.time()
        before = host_load.reading()
        done = run_container(tag, ["sh", "-c", host_load.SNAPSHOTS, "sh", suite.commands[profile]], out_dir, env,
                             limits, watch=True)
        # the harness's measuring, not the probes', nor the container's start and stop
        load = _load(out_dir, before, limits.cpuset, done.cpu_seconds)
        where = f"{suite.manifest} [{profile}{'/' + variant if variant else ''}]"
        if done.returncode != 0:
            raise command_failed(suite, tag, profile, variant, done, logs_dir)
        adapter, parsed = read_output(suite, out_dir, done.stdout)
        metrics = parsed.metrics
        probe_seconds = 0.0
        if probes and suite.probes:
            finished = run_container(tag, ["sh", "-c", probe_script(suite.probes, instructions)], out_dir, env, limits,
                                     unconfined=instructions)
            probe_seconds = finished.seconds
            have = {(m.benchmark, m.measure) for m in metrics}
            # The harness's own figure wins when it already reports a measure for that benchmark.
            metrics += [m for m in parse_probes(suite.probes, out_dir, where, instructions)
                        if (m.benchmark, m.measure) not in have]
        if variant:
            for m in metrics:
                m.benchmark = f"{variant}/{m.benchmark}"
        context = {"suite": suite.name, "variant": variant, "profile": profile, "adapter": adapter,
                   "image": tag, "command": suite.commands[profile], "harness_seconds": round(done.seconds, 3),
                   "probe_seconds": round(probe_seconds, 3), "cpuset": limits.cpuset, "memory": limits.memory, **load,
                   **{f"harness.{k}": v for k, v in parsed.context.items() if isinstance(v, (str, int, float))}}
        return SuiteResult(metrics, context, start, time.time())
    finally:
        _cleanup(out_dir)


def _load(out_dir: Path, before: host_load.Reading | None, cpuset: str | None,
          own: float | None) -> dict[str, Any]:
    """The load the harness ran under (:func:`perfgate.host_load.during`), over the window its
    container's snapshots bound (:data:`perfgate.host_load.SNAPSHOTS`), read and removed before
    the harness's output is: else from ``before`` to now, the container's start and stop in it."""
    window = []
    for name in host_load.SNAPSHOT_FILES:
        path = out_dir / name
        try:
            window.append(host_load.snapshot(path.read_text(errors="replace")))
            path.unlink()
        except OSError:
            window.append(None)
    if window[0] and window[1]:
        return host_load.during(window[0], cpuset, own=own, end=window[1])
    return host_load.during(before, cpuset, own=own)


def _cleanup(out_dir: Path) -> None:
    shutil.rmtree(out_dir, ignore_errors=True)


def read_output(suite: Suite, out_dir: Path, stdout: str) -> tuple[str, Any]:
    """The adapter's name and the parsed results of a suite's run: its output file in
    $PERFGATE_OUT, or what it printed when the manifest says ``output = "-"``."""
    output = out_dir / (suite.output if suite.output != "-" else "stdout.txt")
    if suite.output == "-":
        output.write_text(stdout)
    elif not output.exists():   # a file, or a folder for the adapters that read one (criterion's)
        wrote = sorted(str(p.relative_to(out_dir)) + ("/" if p.is_dir() else "") for p in out_dir.iterdir())
        seen = f"; it wrote {', '.join(wrote[:10])}{' …' if len(wrote) > 10 else ''}" if wrote else "; it wrote nothing there"
        raise InputError(str(suite.manifest), "output", f"the command wrote no {suite.output!r} in $PERFGATE_OUT{seen}")
    try:
        return parse_file(str(output), suite.adapter)
    except InputError as e:
        if not e.source.startswith(str(out_dir)):
            raise
        # The file was in a temporary folder, gone by the time the error is read ("/tmp/perfgate-
        # out-…/results.json: no results found", naming no suite): the suite's manifest instead.
        inner = e.source[len(str(out_dir)):].lstrip("/")
        what = "its stdout" if suite.output == "-" else f"$PERFGATE_OUT/{inner}"
        raise InputError(str(suite.manifest), "output",
                         f"{what}{' at ' + e.place if e.place else ''}: {e.reason}") from None
