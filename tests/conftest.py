"""Shared fixtures: paths to the real-harness fixtures and a fresh store per test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "history.db"


@pytest.fixture
def cli(store_path: Path):
    """Run the real ``perfgate`` CLI in a subprocess against the test's own store."""

    def run(*args: str, check: bool = False, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
        full_env = {**os.environ, "PERFGATE_STORE": f"sqlite:{store_path}", **(env or {})}
        proc = subprocess.run([sys.executable, "-m", "perfgate.cli", *args], capture_output=True, text=True,
                              env=full_env, **kw)
        if check and proc.returncode != 0:
            raise AssertionError(f"perfgate {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
        return proc

    return run
