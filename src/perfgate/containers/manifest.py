"""Load and validate ``benches/<suite>/bench.toml`` (format: benches/README.md).

Every problem is an :class:`InputError` naming the file, the key and the reason, so a typo in a
manifest never turns into a confusing Docker failure later.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfgate import inputs
from perfgate.adapters import adapter_names
from perfgate.errors import InputError
from perfgate.model import name_problem

PROFILES = ("quick", "full")
_TOP_KEYS = {"name", "description", "image", "adapter", "output", "build", "profiles", "probe", "variants",
             "memory", "timeout", "context", "context_ignore"}
CONTEXTS = ("suite", "repo")
_IMAGE = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MEMORY = re.compile(r"^[0-9]+[bkmg]?$", re.IGNORECASE)


@dataclass(frozen=True)
class Probe:
    """A deterministic single-shot workload: ``argv`` runs once under valgrind (instructions) and
    once under GNU time (peak RSS).  No shell: the command is split like a shell would split it."""

    benchmark: str
    argv: tuple[str, ...]


@dataclass(frozen=True)
class Suite:
    name: str
    folder: Path
    image: str
    adapter: str
    output: str                      # file name in $PERFGATE_OUT, or "-" for stdout
    commands: dict[str, str]         # profile -> shell command
    build: str = ""
    description: str = ""
    probes: tuple[Probe, ...] = ()
    variants: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> env
    memory: str = "4g"
    timeout: float = 1800.0          # seconds per container run
    # What the image is built from: the suite folder alone, or the whole repository at that commit
    # (for benchmarks that build the project itself), minus ``context_ignore`` glob patterns.
    context: str = "suite"
    context_ignore: tuple[str, ...] = ()

    @property
    def context_root(self) -> Path:
        """The folder copied into the image: the suite, or the repository holding ``benches/``."""
        return self.folder.parent.parent if self.context == "repo" else self.folder

    @property
    def manifest(self) -> Path:
        return self.folder / "bench.toml"

    def variant_names(self, wanted: list[str] | None = None) -> list[str]:
        """The variants to run: ``""`` is the plain suite, which always runs; each variant runs
        the same commands again with its environment."""
        names = ["", *self.variants]
        if wanted:
            unknown = [w for w in wanted if w not in names]
            if unknown:
                raise InputError(str(self.manifest), "variants",
                                 f"no variant {unknown[0]!r}; this suite has: {', '.join(n for n in names if n) or 'none'}"
                                 " (name the plain suite with '')")
            names = [n for n in names if n in wanted]
        return names


def _expect(value: Any, kind: type, source: str, key: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError(source, key, f"expected {'a string' if kind is str else kind.__name__}, "
                                      f"got {type(value).__name__}")
    return value


def _nonempty(value: Any, source: str, key: str) -> str:
    if not _expect(value, str, source, key).strip():
        raise InputError(source, key, "must not be empty")
    return value


MAX_MANIFEST_BYTES = 1024 * 1024  # a bench.toml is a few kB


def load_suite(folder: Path) -> Suite:
    """Read and validate one suite folder's ``bench.toml``."""
    source = str(folder / "bench.toml")
    try:
        data = inputs.parse_toml(inputs.read_text(folder / "bench.toml", MAX_MANIFEST_BYTES))
    except tomllib.TOMLDecodeError as e:
        raise InputError(source, "", f"invalid TOML: {e}") from None

    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise InputError(source, unknown[0], f"unknown key; known keys: {', '.join(sorted(_TOP_KEYS))}")
    for key in ("name", "image", "adapter", "profiles"):
        if key not in data:
            raise InputError(source, key, "missing required key")
    name = _nonempty(data["name"], source, "name")
    if name != folder.name:
        raise InputError(source, "name", f"is {name!r} but the folder is {folder.name!r}; they must match")
    image = _nonempty(data["image"], source, "image")
    if not _IMAGE.match(image):
        raise InputError(source, "image", f"{image!r} is not a valid image folder name (a-z, 0-9, '.', '_', '-')")
    adapter = _nonempty(data["adapter"], source, "adapter")
    if adapter not in adapter_names():
        raise InputError(source, "adapter", f"unknown adapter {adapter!r}; known: {', '.join(adapter_names())}")
    output = _nonempty(data.get("output", "-"), source, "output")
    if output != "-" and ("/" in output or output.startswith(".")):
        raise InputError(source, "output", f"{output!r} must be a plain file name inside $PERFGATE_OUT, or '-'")

    profiles = _expect(data["profiles"], dict, source, "profiles")
    commands = {}
    for prof, table in profiles.items():
        if prof not in PROFILES:
            raise InputError(source, f"profiles.{prof}", f"unknown profile; use {' or '.join(PROFILES)}")
        table = _expect(table, dict, source, f"profiles.{prof}")
        extra = sorted(set(table) - {"command"})
        if extra:
            raise InputError(source, f"profiles.{prof}.{extra[0]}", "unknown key; a profile has only 'command'")
        if "command" not in table:
            raise InputError(source, f"profiles.{prof}.command", "missing required key")
        commands[prof] = _nonempty(table["command"], source, f"profiles.{prof}.command")
    if not commands:
        raise InputError(source, "profiles", "define at least [profiles.quick]")

    probes = []
    for i, table in enumerate(_expect(data.get("probe", []), list, source, "probe")):
        place = f"probe[{i}]"
        table = _expect(table, dict, source, place)
        extra = sorted(set(table) - {"benchmark", "command"})
        if extra:
            raise InputError(source, f"{place}.{extra[0]}", "unknown key; a probe has 'benchmark' and 'command'")
        for key in ("benchmark", "command"):
            if key not in table:
                raise InputError(source, f"{place}.{key}", "missing required key")
        bench = _nonempty(table["benchmark"], source, f"{place}.benchmark")
        problem = name_problem(bench)
        if problem:
            raise InputError(source, f"{place}.benchmark", problem)
        try:
            argv = tuple(shlex.split(_nonempty(table["command"], source, f"{place}.command")))
        except ValueError as e:
            raise InputError(source, f"{place}.command", f"cannot split into arguments: {e}") from None
        if any(b.benchmark == bench for b in probes):
            raise InputError(source, f"{place}.benchmark", f"{bench!r} is probed twice")
        probes.append(Probe(bench, argv))

    variants = {}
    for vname, table in _expect(data.get("variants", {}), dict, source, "variants").items():
        place = f"variants.{vname}"
        if name_problem(vname) or "/" in vname:
            raise InputError(source, place, "variant names must be plain non-empty names without '/'")
        table = _expect(table, dict, source, place)
        extra = sorted(set(table) - {"env"})
        if extra:
            raise InputError(source, f"{place}.{extra[0]}", "unknown key; a variant has only 'env'")
        env = _expect(table.get("env", {}), dict, source, f"{place}.env")
        for k, v in env.items():
            if not _ENV_NAME.match(k):
                raise InputError(source, f"{place}.env.{k}", "not a valid environment variable name")
            _expect(v, str, source, f"{place}.env.{k}")
        variants[vname] = dict(env)

    memory = _nonempty(data.get("memory", "4g"), source, "memory")
    if not _MEMORY.match(memory):
        raise InputError(source, "memory", f"{memory!r} is not a Docker memory size such as '2g' or '512m'")
    timeout = data.get("timeout", 1800)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise InputError(source, "timeout", "expected a positive number of seconds")

    context = _nonempty(data.get("context", "suite"), source, "context")
    if context not in CONTEXTS:
        raise InputError(source, "context", f"{context!r}: use 'suite' (the suite folder) or 'repo' (the whole repository)")
    ignore = _expect(data.get("context_ignore", []), list, source, "context_ignore")
    for i, pattern in enumerate(ignore):
        if not _nonempty(pattern, source, f"context_ignore[{i}]") or pattern.startswith("/") or ".." in pattern.split("/"):
            raise InputError(source, f"context_ignore[{i}]", f"{pattern!r} must be a relative glob pattern")
    if ignore and context != "repo":
        raise InputError(source, "context_ignore", "only applies with context = 'repo'")

    return Suite(name=name, folder=folder, context=context, context_ignore=tuple(ignore), image=image, adapter=adapter, output=output, commands=commands,
                 build=_expect(data.get("build", ""), str, source, "build"),
                 description=_expect(data.get("description", ""), str, source, "description"),
                 probes=tuple(probes), variants=variants, memory=memory, timeout=float(timeout))


def discover(benches: Path, wanted: list[str] | None = None) -> list[Suite]:
    """Every ``benches/*/bench.toml`` (or only the ``wanted`` suites), sorted by name."""
    folders = sorted(p.parent for p in benches.glob("*/bench.toml"))
    if wanted:
        names = {f.name for f in folders}
        missing = [w for w in wanted if w not in names]
        if missing:
            raise InputError(str(benches), "", f"no suite {missing[0]!r}; found: {', '.join(sorted(names)) or 'none'}")
        folders = [f for f in folders if f.name in wanted]
    if not folders:
        raise InputError(str(benches), "", "no */bench.toml found")
    return [load_suite(f) for f in folders]
