"""pytest fixtures around the fake server; test modules import what they use from here."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from perfgate.bencher.client import BencherClient, RetryPolicy
from perfgate.bencher.spool import Spool
from perfgate.model import Metric, Run, Testbed
from perfgate.store.bencher import BencherStore

from .server import FakeBencher

TOKEN = "bencher-admin-token-7d1f0c2a9e4b"
VIEWER_TOKEN = "bencher-viewer-token-55aa01"
# Fast retries: the waits are real, just short.
FAST = RetryPolicy(attempts=4, backoff=0.01, max_backoff=0.05, timeout=2.0)


@pytest.fixture
def fake():
    server = FakeBencher({TOKEN: "admin", VIEWER_TOKEN: "viewer"}).start()
    yield server
    server.stop()
    assert not server.problems, "requests/responses that break openapi.json:\n" + "\n".join(server.problems)


def make_store(fake: FakeBencher, tmp_path: Path, *, token: str = TOKEN, project: str = "demo",
               policy: RetryPolicy = FAST, thresholds=None, **kw) -> BencherStore:
    client = BencherClient(fake.url, token, policy=policy, rng=random.Random(1))
    return BencherStore(fake.url, project, client=client, spool=Spool(tmp_path / "spool"),
                        thresholds=thresholds, **kw)


def commit(i: int, salt: str = "") -> str:
    import hashlib

    return hashlib.sha1(f"{salt}{i}".encode()).hexdigest()


def make_run(i: int, latency: float, *, branch: str = "main", testbed: str = "ci-x86", salt: str = "",
             extra: dict[str, float] | None = None) -> Run:
    metrics = [Metric("sort 1e6", "latency", latency, latency * 0.98, latency * 1.02)]
    for measure, value in (extra or {}).items():
        metrics.append(Metric("sort 1e6", measure, value))
    return Run("demo", branch, commit(i, salt), Testbed(testbed), metrics, start_time=1_750_000_000 + 60 * i,
               end_time=1_750_000_000 + 60 * i + 5, adapter="hyperfine")
