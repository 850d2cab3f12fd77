"""Find the Docker engine, or start ``dockerd`` when none is running (and stop only that one).

The docker CLI is chosen so that BuildKit works: the build passes the machine's CA bundle as a
BuildKit secret (never baked into an image).  A CLI newer than 23 needs the buildx plugin for
BuildKit; Debian's ``docker.io`` CLI (20.10) has BuildKit built in.  ``PERFGATE_DOCKER`` overrides.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from perfgate.errors import PerfgateError

STATE_DIR = Path(os.environ.get("PERFGATE_STATE_DIR", Path.home() / ".cache" / "perfgate"))
PIDFILE = STATE_DIR / "dockerd.pid"  # present only while an engine *we* started is running


class EngineError(PerfgateError):
    """The Docker engine is missing or would not start."""


def _all_on_path(name: str) -> list[str]:
    found = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(folder) / name
        if os.access(candidate, os.X_OK) and str(candidate) not in found:
            found.append(str(candidate))
    return found


def _has_buildkit(cli: str) -> bool:
    """True when ``cli`` can build with BuildKit: it has buildx, or it is older than 23."""
    if subprocess.run([cli, "buildx", "version"], capture_output=True).returncode == 0:
        return True
    out = subprocess.run([cli, "version", "--format", "{{.Client.Version}}"], capture_output=True, text=True)
    try:
        return int(out.stdout.strip().split(".")[0]) < 23
    except ValueError:
        return False


_CLI: str | None = None


def docker_cli() -> str:
    """Path of the docker client to use (cached)."""
    global _CLI
    if _CLI is None:
        override = os.environ.get("PERFGATE_DOCKER")
        candidates = [override] if override else _all_on_path("docker")
        if not candidates:
            raise EngineError("no 'docker' client found; run scripts/setup (it installs Debian's docker.io)")
        _CLI = next((c for c in candidates if _has_buildkit(c)), candidates[0])
    return _CLI


def docker(*args: str, check: bool = True, capture: bool = True, **kw) -> subprocess.CompletedProcess:
    """Run the docker CLI; on failure raise EngineError with its stderr."""
    env = {**os.environ, "DOCKER_BUILDKIT": "1"}
    proc = subprocess.run([docker_cli(), *args], capture_output=capture, text=True, env=env, **kw)
    if check and proc.returncode != 0:
        detail = (proc.stderr or "").strip()[-2000:] if capture else ""
        raise EngineError(f"docker {args[0]} failed (exit {proc.returncode}): {detail}")
    return proc


def is_running() -> bool:
    try:
        return docker("info", "--format", "{{.ServerVersion}}", check=False, timeout=20).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def dockerd_path() -> str | None:
    """The engine's binary, also where a non-root PATH lacks the sbin folders; None when absent."""
    return shutil.which("dockerd") or next((p for p in ("/usr/sbin/dockerd", "/usr/bin/dockerd")
                                            if os.access(p, os.X_OK)), None)


def ensure_engine(timeout: float = 60) -> bool:
    """Make sure an engine answers.  Returns True when this call started it.

    ``--iptables=false --bridge=none``: benchmarks run with ``--network=none`` and builds use
    ``--network=host``, so the engine needs no NAT rules (which some hosts forbid)."""
    if is_running():
        return False
    dockerd = dockerd_path()
    if not dockerd:
        raise EngineError("no Docker engine is running and 'dockerd' is not installed; run scripts/setup")
    if os.geteuid() != 0:
        raise EngineError("no Docker engine is running and starting dockerd needs root")
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    log = open(STATE_DIR / "dockerd.log", "ab")
    proc = subprocess.Popen([dockerd, "--iptables=false", "--bridge=none"], stdout=log, stderr=log,
                            start_new_session=True)
    PIDFILE.write_text(str(proc.pid))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            PIDFILE.unlink(missing_ok=True)
            raise EngineError(f"dockerd exited with {proc.returncode}; see {STATE_DIR / 'dockerd.log'}")
        if is_running():
            # Said, not done in silence: a root daemon now runs on this host, after perfgate exits.
            sys.stderr.write(f"perfgate: no Docker engine was running; started dockerd (pid {proc.pid}, "
                             f"--iptables=false --bridge=none, log {STATE_DIR / 'dockerd.log'}); it keeps "
                             "running for the next run: 'python -m perfgate.containers.engine stop' stops it\n")
            return True
        time.sleep(0.5)
    raise EngineError(f"dockerd did not answer within {timeout:.0f} s; see {STATE_DIR / 'dockerd.log'}")


def stop_engine_we_started() -> bool:
    """Stop the dockerd recorded in our pid file, and nothing else.  True when one was stopped."""
    try:
        pid = int(PIDFILE.read_text())
    except (OSError, ValueError):
        return False
    try:
        os.kill(pid, signal.SIGTERM)
        for _ in range(60):
            os.kill(pid, 0)
            time.sleep(0.5)
    except ProcessLookupError:
        pass
    PIDFILE.unlink(missing_ok=True)
    return True


def main() -> None:  # python -m perfgate.containers.engine start|stop
    action = sys.argv[1] if len(sys.argv) > 1 else "start"
    if action == "start":
        started = ensure_engine()
        print("engine: started dockerd" if started else "engine: already running")
    elif action == "stop":
        print("engine: stopped the dockerd we started" if stop_engine_we_started() else "engine: nothing to stop")
    else:
        raise SystemExit("usage: python -m perfgate.containers.engine start|stop")


if __name__ == "__main__":
    main()
