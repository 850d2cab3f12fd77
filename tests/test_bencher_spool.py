"""The spool keeps runs in the order they were put, whatever the clock does, and atomically."""

from __future__ import annotations

import json

import pytest

from perfgate.bencher import spool as spool_mod
from perfgate.bencher.payload import idempotency_uuid
from perfgate.bencher.spool import Spool
from perfgate.errors import InputError, PerfgateError


# What POST /v0/run needs of a spooled body; the spool refuses to send less.
BODY = {"results": ["{}"], "start_time": "2026-01-01T00:00:00Z", "end_time": "2026-01-01T00:00:01Z"}


@pytest.mark.parametrize("clock", ["frozen", "backwards"])
def test_order_survives_a_frozen_or_backward_clock(tmp_path, monkeypatch, clock):
    ticks = iter(range(10_000, 0, -1)) if clock == "backwards" else iter([5] * 100)
    monkeypatch.setattr(spool_mod.time, "time_ns", lambda: next(ticks))
    s = Spool(tmp_path)
    for i in range(30):
        s.put("http://h/p", {"idempotency_key": idempotency_uuid("p", str(i)), "n": i, **BODY})
    assert [e.body["n"] for e in s.pending("http://h/p")] == list(range(30))
    assert s.pending("http://other/p") == []


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    s = Spool(tmp_path)

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(spool_mod.os, "replace", boom)
    with pytest.raises(PerfgateError, match=rf"{tmp_path}/.*\.json: cannot write: disk full; nothing was written"):
        s.put("http://h/p", {"n": 1})
    assert list(tmp_path.iterdir()) == []


def test_entries_are_plain_json_without_credentials(tmp_path):
    path = Spool(tmp_path).put("http://h/p", {"n": 1})
    doc = json.loads(path.read_text())
    assert doc == {"format": 1, "target": "http://h/p", "body": {"n": 1}}


def test_foreign_file_is_reported_by_name(tmp_path):
    bad = tmp_path / "00000000000000000001-000000-abc.json"
    bad.write_text(json.dumps({"format": 99}))
    with pytest.raises(InputError, match=bad.name):
        Spool(tmp_path).pending()


def test_idempotency_key_is_a_stable_uuid_per_project():
    a = idempotency_uuid("proj", "k1")
    assert a == idempotency_uuid("proj", "k1") and a != idempotency_uuid("other", "k1")
    assert len(a) == 36 and a[14] == "5"  # UUIDv5, the API's uuid format


@pytest.mark.parametrize("body, problem", [
    ({"branch": {"x": 1}}, "branch is not a string"),          # a TypeError in every publish, for good
    ({"results": "x"}, "results is not a list"),
    ({"idempotency_key": {"a": 1}}, "idempotency_key is not a string"),
])
def test_a_body_perfgate_did_not_write_is_unreadable_not_sent(tmp_path, body, problem):
    path = Spool(tmp_path).put("http://h/p", {**BODY, "idempotency_key": idempotency_uuid("p", "k")})
    doc = json.loads(path.read_text())
    doc["body"].update(body)                     # written by something else
    path.write_text(json.dumps(doc))
    [(found, reason)] = Spool(tmp_path).unreadable()
    assert found == path and problem in reason
