"""Build the pinned images, cached by content hash, and look up their digests.

Three layers, each tagged with a hash of everything that defines it, so an unchanged layer is
never rebuilt:

* ``perfgate/base:<key>`` — Debian trixie from ``docker/base.lock`` (mmdebstrap + docker import);
* ``perfgate/<image>:<key>`` — ``docker/images/<image>/Dockerfile`` built FROM the base
  (``image = "base"`` in a manifest uses the base itself);
* ``perfgate/suite-<name>:<key>`` — the suite folder copied to ``/bench`` and its ``build``
  command run there as the non-root user.

Builds reach the network (``--network=host``) and get the machine's CA bundle as a BuildKit
secret, mounted only during a RUN step, so it never lands in an image layer.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from perfgate.containers.engine import EngineError, docker, docker_cli
from perfgate.containers.manifest import Suite
from perfgate.errors import InputError

BASE_REPO = "perfgate/base"   # tagged by key: checkouts with different locks never fight over a tag
KEY_LABEL = "org.perfgate.key"
# The digest of the base's installed package set: equal to the lock's unless versions drifted
# (docker/base/drift), and the key every toolchain image, and so every testbed, is derived from.
INSTALLED_LABEL = "org.perfgate.installed"
BENCH_UID = 1000
# Build outputs and caches that must not leak from a developer's folder into the image.
# Never part of a build context: build outputs, and perfgate's own state (.perfgate: the default
# history, spool and tools; a context holding it changed with every run, so every run rebuilt).
SKIP_NAMES = {".git", "target", "__pycache__", ".pytest_cache", ".benchmarks", "build", "node_modules",
              ".perfgate", ".venv"}
HARNESS_PACKAGES = ("valgrind", "hyperfine", "time", "libbenchmark-dev", "g++", "rustc", "cargo",
                    "python3", "python3-pytest-benchmark")


def ca_bundle() -> Path | None:
    """The machine's CA bundle, passed to builds that fetch over HTTPS (crates.io, PyPI)."""
    path = Path(os.environ.get("PERFGATE_BUILD_CA", "/etc/ssl/certs/ca-certificates.crt"))
    return path if path.is_file() else None


@dataclass(frozen=True)
class Built:
    tag: str
    key: str        # content hash of the definition (stable across machines)
    image_id: str   # docker's image id (differs per build)
    cached: bool


def _hash_files(h: "hashlib._Hash", folder: Path) -> None:
    for path in _files(folder):
        h.update(str(path.relative_to(folder)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())


def _files(folder: Path, ignore: tuple[str, ...] = ()) -> list[Path]:
    """Every file under ``folder`` except build outputs and what ``ignore`` globs match (a pattern
    matches a relative path or any of its leading folders, e.g. ``docs`` or ``*.md``)."""
    def ignored(rel: str) -> bool:
        return any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(rel, p.rstrip("/")) for p in ignore)

    found = []
    for root, dirs, files in os.walk(folder):
        here = Path(root).relative_to(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_NAMES and not ignored((here / d).as_posix()))
        found.extend(Path(root) / f for f in sorted(files) if f not in SKIP_NAMES and not ignored((here / f).as_posix()))
    return found


def image_id(tag: str) -> str | None:
    proc = docker("image", "inspect", "--format", "{{.Id}}", tag, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def _label(tag: str, label: str = KEY_LABEL) -> str | None:
    proc = docker("image", "inspect", "--format", f'{{{{index .Config.Labels "{label}"}}}}', tag, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def base_key(docker_dir: Path) -> str:
    h = hashlib.sha256(b"perfgate-base-v1\0")
    for name in ("base.lock", "base/bootstrap", "base/pin-apt", "base/drift"):
        path = docker_dir / name
        if not path.is_file():
            raise InputError(str(path), "", "missing; the pinned base image is defined by it (a repository "
                             "without docker/ uses perfgate's: set PERFGATE_DOCKER_DIR to the docker/ folder of "
                             "a perfgate checkout, as its GitHub action does)")
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def bootstrap_prefix() -> list[str]:
    """How to run the mmdebstrap bootstrap: directly as root, else through password-less sudo.

    Unprivileged mmdebstrap needs user namespaces, which Ubuntu 24.04 (GitHub's runners) blocks
    with AppArmor; its root mode works everywhere sudo does.  ``PERFGATE_BOOTSTRAP_SUDO=never``
    keeps the unprivileged mode (a Debian host with user namespaces and no sudo)."""
    if os.geteuid() == 0 or os.environ.get("PERFGATE_BOOTSTRAP_SUDO") == "never":
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n", "--preserve-env=PERFGATE_DEBIAN_MIRROR"]
    return []


def build_base(docker_dir: Path, log=print) -> Built:
    """``perfgate/base:<key>`` from the lock, unless an image with the same key exists.

    The returned key is the digest of the packages actually installed, so a base built after
    Debian replaced locked versions (reported as drift) gives new toolchain keys and testbeds."""
    key = base_key(docker_dir)
    tag = f"{BASE_REPO}:{key[:12]}"
    if _label(tag) == key:
        installed = _label(tag, INSTALLED_LABEL) or key
        return Built(tag, installed, image_id(tag) or "", True)
    log(f"building {tag} from {docker_dir / 'base.lock'} (mmdebstrap; a few minutes)")
    with tempfile.TemporaryDirectory(prefix="perfgate-base-") as tmp:
        tar = Path(tmp) / "rootfs.tar"
        proc = subprocess.run([*bootstrap_prefix(), str(docker_dir / "base" / "bootstrap"), str(tar),
                               str(docker_dir / "base.lock")], capture_output=True, text=True)
        if proc.returncode != 0:
            raise EngineError(f"bootstrapping the base image failed: {proc.stderr.strip()[-2000:]}")
        drift = [line for line in proc.stderr.splitlines() if line.startswith("drift: ")]
        for line in drift:
            log(f"  {line}")
        if drift:
            log(f"  {len(drift)} locked versions left the Debian mirror; refresh with scripts/lock-images")
        installed = hashlib.sha256(b"perfgate-installed-v1\0" + Path(f"{tar}.installed").read_bytes()).hexdigest()
        docker("import", "--change", "ENV LANG=C.UTF-8",
               "--change", "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               "--change", f"LABEL {KEY_LABEL}={key}", "--change", f"LABEL {INSTALLED_LABEL}={installed}",
               str(tar), tag)
    return Built(tag, installed, image_id(tag) or "", False)


def _build(tag: str, key: str, context: bytes | Path, log_path: Path | None, base: str = "") -> None:
    """``docker build`` with BuildKit from a folder or an in-memory tar context."""
    args = [docker_cli(), "build", "--network=host", "--label", f"{KEY_LABEL}={key}", "-t", tag,
            "--progress=plain"]
    if base:   # toolchain Dockerfiles start with `ARG BASE` / `FROM ${BASE}`
        args += ["--build-arg", f"BASE={base}"]
    ca = ca_bundle()
    if ca:
        args += ["--secret", f"id=ca,src={ca}"]
    args.append(str(context) if isinstance(context, Path) else "-")
    proc = subprocess.run(args, input=None if isinstance(context, Path) else context, capture_output=True,
                          env={**os.environ, "DOCKER_BUILDKIT": "1"})
    output = (proc.stdout + proc.stderr).decode(errors="replace")
    if log_path:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text(output)
    if proc.returncode != 0:
        where = f" (full log: {log_path})" if log_path else ""
        raise EngineError(f"building {tag} failed{where}:\n{output.strip()[-3000:]}")


def build_image(docker_dir: Path, image: str, base: Built, log=print) -> Built:
    """The toolchain image ``perfgate/<image>`` from ``docker/images/<image>/``."""
    if image == "base":
        return base
    folder = docker_dir / "images" / image
    if not (folder / "Dockerfile").is_file():
        known = sorted(p.parent.name for p in (docker_dir / "images").glob("*/Dockerfile"))
        raise InputError(str(folder / "Dockerfile"), "", f"missing: image {image!r} (a suite's bench.toml "
                         f"'image') has no Dockerfile; the images here: {', '.join(['base', *known])}")
    h = hashlib.sha256(b"perfgate-image-v1\0" + base.key.encode())
    _hash_files(h, folder)
    key = h.hexdigest()
    tag = f"perfgate/{image}:{key[:12]}"
    found = image_id(tag)
    if found:
        return Built(tag, key, found, True)
    log(f"building {tag} from {folder}/Dockerfile")
    _build(tag, key, folder, docker_dir.parent / ".perfgate" / "logs" / f"image-{image}.log", base=base.tag)
    return Built(tag, key, image_id(tag) or "", False)


def suite_dockerfile(from_tag: str, build: str, with_ca: bool, suite_in_repo: str = "") -> str:
    """With ``suite_in_repo`` (the suite's path inside the repository) the whole repository is
    copied to /repo and /bench points at the suite in it, so the runner sees the same layout."""
    if suite_in_repo:
        copy = [f"COPY --chown={BENCH_UID}:{BENCH_UID} repo/ /repo/",
                f"RUN {json.dumps(['ln', '-s', f'/repo/{suite_in_repo}', '/bench'])}"]
    else:
        copy = [f"COPY --chown={BENCH_UID}:{BENCH_UID} suite/ /bench/"]
    lines = [f"FROM {from_tag}",
             *copy,
             "WORKDIR /bench",
             f"USER {BENCH_UID}:{BENCH_UID}",
             "ENV HOME=/home/bench PYTHONHASHSEED=0"]
    if build.strip():
        env = ["env"]
        mount = ""
        if with_ca:
            # Only this step sees the bundle; cargo, pip, curl and git each read their own variable.
            env += [f"{v}=/run/secrets/ca" for v in ("SSL_CERT_FILE", "CARGO_HTTP_CAINFO", "PIP_CERT",
                                                      "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO", "CURL_CA_BUNDLE")]
            mount = f"--mount=type=secret,id=ca,target=/run/secrets/ca,uid={BENCH_UID},mode=0444 "
        lines.append(f"RUN {mount}{json.dumps([*env, 'sh', '-c', build])}")
    return "\n".join(lines) + "\n"


def suite_context(suite: Suite, from_tag: str) -> tuple[str, bytes]:
    """(content key, tar context) for a suite: its files under ``suite/`` plus a Dockerfile."""
    root = suite.context_root
    in_repo = suite.folder.relative_to(root).as_posix() if suite.context == "repo" else ""
    dockerfile = suite_dockerfile(from_tag, suite.build, ca_bundle() is not None, in_repo)
    # The key covers every file of the context: a change anywhere the build can see rebuilds it.
    h = hashlib.sha256(b"perfgate-suite-v1\0" + from_tag.encode() + b"\0" + dockerfile.encode())
    files = _files(root, suite.context_ignore)
    for path in files:
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    prefix = "repo" if in_repo else "suite"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path in files:
            info = tar.gettarinfo(str(path), arcname=f"{prefix}/{path.relative_to(root)}")
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            with open(path, "rb") as f:
                tar.addfile(info, f)
        data = dockerfile.encode()
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return h.hexdigest(), buf.getvalue()


def build_suite(suite: Suite, toolchain: Built, log=print, logs_dir: Path | None = None) -> Built:
    """The suite image: the suite folder in /bench, built by its ``build`` command."""
    key, context = suite_context(suite, toolchain.tag)
    tag = f"perfgate/suite-{suite.name}:{key[:12]}"
    found = image_id(tag)
    if found:
        return Built(tag, key, found, True)
    log(f"building {tag} ({suite.folder})")
    _build(tag, key, context, (logs_dir / f"suite-{suite.name}-{key[:12]}.log") if logs_dir else None)
    return Built(tag, key, image_id(tag) or "", False)


_VERSIONS: dict[str, dict[str, str]] = {}


def harness_versions(tag: str) -> dict[str, str]:
    """Debian versions of the harness packages inside an image (absent ones left out)."""
    if tag not in _VERSIONS:
        proc = docker("run", "--rm", "--network=none", tag, "dpkg-query", "-W", "-f", "${Package}=${Version}\\n",
                      *HARNESS_PACKAGES, check=False)
        _VERSIONS[tag] = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    return _VERSIONS[tag]


# perfgate's own pinned definitions, when it runs from its checkout (./scripts/setup's venv)
OWN_DEFINITIONS = Path(__file__).resolve().parents[3] / "docker"


def image_definitions(root: Path) -> Path:
    """The image definitions: the repository's own ``docker/`` when it has one, else
    ``$PERFGATE_DOCKER_DIR`` (the action points it at perfgate's), else perfgate's own checkout's
    ``docker/``: a consumer repository that only has ``benches/`` builds on perfgate's pinned
    images, in CI and from a terminal alike."""
    own = root / "docker"
    if (own / "base.lock").is_file():
        return own
    if os.environ.get("PERFGATE_DOCKER_DIR"):
        return Path(os.environ["PERFGATE_DOCKER_DIR"])
    if (OWN_DEFINITIONS / "base.lock").is_file():
        return OWN_DEFINITIONS
    return own


def build_all(root: Path, suites: list[Suite], log=print) -> dict[str, tuple[Built, Built]]:
    """Build base, toolchain and suite images; returns suite name -> (toolchain, suite image)."""
    defs = image_definitions(root)
    base = build_base(defs, log=log)
    toolchains: dict[str, Built] = {}
    built = {}
    for suite in suites:
        if suite.image not in toolchains:
            toolchains[suite.image] = build_image(defs, suite.image, base, log=log)
        tool = toolchains[suite.image]
        built[suite.name] = (tool, build_suite(suite, tool, log=log, logs_dir=root / ".perfgate" / "logs"))
    return built


def main() -> None:
    """``python -m perfgate.containers.images [ROOT]``: build every image and suite (cached)."""
    import sys
    import time

    from perfgate.containers.engine import ensure_engine
    from perfgate.containers.manifest import discover

    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    ensure_engine()
    started = time.monotonic()
    suites = discover(root / "benches")
    built = build_all(root, suites)
    for folder in sorted((root / "docker" / "images").glob("*/Dockerfile")):  # images no suite uses yet
        if folder.parent.name not in {s.image for s in suites}:
            build_image(root / "docker", folder.parent.name, build_base(root / "docker"))
    for name, (tool, suite_image) in built.items():
        print(f"{name}: {suite_image.tag} on {tool.tag}{' (cached)' if suite_image.cached else ''}")
    print(f"images ready in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
