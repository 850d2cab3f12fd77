"""The repository stands alone: a clone with nothing beside it must pass its tests, so nothing
that runs (the package, the tests, the scripts, CI) may reach outside the checkout."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNNING_CODE = ["src", "tests", "scripts", ".ci", "bench", "benches", "docker", ".github"]
# The workspace folder beside the checkout that developers read from; spelt in parts so that this
# file itself holds no path into it.
BESIDE = "shared"
NEEDLES = (f"../{BESIDE}", f"{BESIDE}/bencher", f"{BESIDE}/seeds")


def _tracked(paths: list[str]) -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", *paths], cwd=ROOT, check=True,
                             capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / p for p in out.decode().split("\0") if p]


def test_nothing_reads_outside_the_checkout():
    offenders = []
    for path in _tracked(RUNNING_CODE):
        if path == Path(__file__) or not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if any(needle in line for needle in NEEDLES):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not offenders, "reads beside the checkout:\n" + "\n".join(offenders)


def test_contracts_carry_source_version_and_licence():
    for folder in (ROOT / "contracts").iterdir():
        if folder.is_dir():
            readme = (folder / "README.md").read_text()
            for word in ("source", "version", "licence"):
                assert word in readme.lower(), f"{folder.name}/README.md does not name its {word}"
