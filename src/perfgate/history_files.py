"""The history as a folder of small JSON files, for an append-only git data branch.

Layout (every file is written once and never changed, so two writers never touch the same file
with different content and concurrent pushes merge trivially)::

    runs/<commit>/<run key>.json     one run with its metrics and raw samples
    alerts/<alert id>.json           an alert as detect raised it
    acks/<alert id>.json             the alert was acknowledged (a separate file: alert files never change)

The run key is the run's content key (``Run.with_key``), so the same run exported twice, from two
stores, lands in the same file.  Reading validates everything before anything is written.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from perfgate.errors import InputError
from perfgate.model import Alert, Metric, Run, Testbed, time_problem

FORMAT = 1
_SAFE = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


def _name(value: str, what: str) -> str:
    """A file-name-safe form of a commit, key or id (they are hex or uuids; anything else is refused)."""
    if not _SAFE.match(value) or value in (".", ".."):
        raise InputError(what, "", f"{value!r} cannot name a file (letters, digits, '.', '_', '-')")
    return value


def run_path(run: Run) -> Path:
    return Path("runs") / _name(run.commit or "unknown", "run commit") / f"{_name(run.idempotency_key, 'run key')}.json"


def run_to_json(run: Run) -> dict[str, Any]:
    data = asdict(run)
    data["testbed"] = {"name": run.testbed.name, "fingerprint": run.testbed.fingerprint}
    return {"format": FORMAT, "run": data}


def _dump(data: dict[str, Any]) -> str:
    # allow_nan=False: a NaN would not read back as JSON anywhere else.
    return json.dumps(data, sort_keys=True, indent=1, allow_nan=False, default=str) + "\n"


def write_if_absent(root: Path, rel: Path, data: dict[str, Any]) -> bool:
    path = root / rel
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(_dump(data), encoding="utf-8")
    tmp.replace(path)
    return True


def export_run(root: Path, run: Run) -> bool:
    return write_if_absent(root, run_path(run.with_key()), run_to_json(run))


def export_alert(root: Path, alert: Alert) -> int:
    data = asdict(alert)
    data["status"] = "active"  # as raised; acknowledgement is its own file
    written = write_if_absent(root, Path("alerts") / f"{_name(alert.id, 'alert id')}.json",
                              {"format": FORMAT, "alert": data})
    if alert.status == "acknowledged":
        written += write_if_absent(root, Path("acks") / f"{alert.id}.json", {"format": FORMAT, "id": alert.id})
    return int(written)


# --- reading ----------------------------------------------------------------------------------

def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(str(path), "", f"cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise InputError(str(path), f"line {e.lineno}", f"invalid JSON: {e.msg}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(str(path), "format", f"expected a perfgate history file of format {FORMAT}")
    return data


def _get(d: Any, key: str, kind: type | tuple[type, ...], src: str, place: str, optional: bool = False) -> Any:
    if not isinstance(d, dict) or (key not in d and not optional):
        raise InputError(src, place, "missing")
    value = d.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):  # no field of this format is a boolean
        raise InputError(src, place, f"expected {getattr(kind, '__name__', kind)}, got {type(value).__name__}")
    return value


def _number(d: Any, key: str, src: str, place: str, optional: bool = False) -> float | None:
    value = _get(d, key, (int, float), src, place, optional)
    if value is not None and not math.isfinite(value):
        raise InputError(src, place, "not a finite number")
    return None if value is None else float(value)


def _time(d: Any, key: str, src: str, place: str) -> float | None:
    value = _number(d, key, src, place, optional=True)
    problem = None if value is None else time_problem(value)
    if problem:
        raise InputError(src, place, problem)
    return value


def read_run(path: Path) -> Run:
    src = str(path)
    r = _get(_load(path), "run", dict, src, "run")
    tb = _get(r, "testbed", dict, src, "run.testbed")
    metrics = []
    for i, m in enumerate(_get(r, "metrics", list, src, "run.metrics")):
        place = f"run.metrics[{i}]"
        samples = _get(m, "samples", list, src, f"{place}.samples")
        for j, x in enumerate(samples):
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
                raise InputError(src, f"{place}.samples[{j}]", "not a finite number")
        metrics.append(Metric(_get(m, "benchmark", str, src, f"{place}.benchmark"),
                              _get(m, "measure", str, src, f"{place}.measure"),
                              _number(m, "value", src, f"{place}.value"),
                              _number(m, "lower", src, f"{place}.lower", optional=True),
                              _number(m, "upper", src, f"{place}.upper", optional=True),
                              tuple(float(x) for x in samples),
                              _get(m, "attrs", dict, src, f"{place}.attrs")))
    run = Run(_get(r, "project", str, src, "run.project"), _get(r, "branch", str, src, "run.branch"),
              _get(r, "commit", str, src, "run.commit"),
              Testbed(_get(tb, "name", str, src, "run.testbed.name"),
                      _get(tb, "fingerprint", dict, src, "run.testbed.fingerprint")),
              metrics, _time(r, "start_time", src, "run.start_time"), _time(r, "end_time", src, "run.end_time"),
              _get(r, "adapter", str, src, "run.adapter"), _get(r, "context", dict, src, "run.context"),
              _get(r, "idempotency_key", str, src, "run.idempotency_key"))
    if path.stem != run.idempotency_key or path.parent.name != run.commit:
        raise InputError(src, "run.idempotency_key", "does not match the file's place runs/<commit>/<key>.json")
    return run


def read_alert(path: Path) -> Alert:
    src = str(path)
    a = _get(_load(path), "alert", dict, src, "alert")
    alert = Alert(_get(a, "branch", str, src, "alert.branch"), _get(a, "testbed", str, src, "alert.testbed"),
                  _get(a, "benchmark", str, src, "alert.benchmark"), _get(a, "measure", str, src, "alert.measure"),
                  _get(a, "commit", str, src, "alert.commit"), _get(a, "direction", str, src, "alert.direction"),
                  _number(a, "magnitude", src, "alert.magnitude"),
                  _number(a, "ci_low", src, "alert.ci_low", optional=True),
                  _number(a, "ci_high", src, "alert.ci_high", optional=True),
                  _number(a, "p_value", src, "alert.p_value", optional=True),
                  _get(a, "kind", str, src, "alert.kind"), _get(a, "previous_commit", str, src, "alert.previous_commit"),
                  tuple(_get(a, "commit_range", list, src, "alert.commit_range")),
                  _get(a, "details", dict, src, "alert.details"), _get(a, "id", str, src, "alert.id"), "active",
                  _number(a, "created", src, "alert.created", optional=True))
    if path.stem != alert.id:
        raise InputError(src, "alert.id", "does not match the file name alerts/<id>.json")
    return alert


def read_folder(root: Path) -> tuple[list[Run], list[Alert], set[str]]:
    """Every run, alert and acknowledgement under ``root``, validated (nothing is written)."""
    if not root.is_dir():
        raise InputError(str(root), "", "not a folder")
    runs = [read_run(p) for p in sorted(root.glob("runs/*/*.json"))]
    alerts = [read_alert(p) for p in sorted(root.glob("alerts/*.json"))]
    acks = set()
    for p in sorted(root.glob("acks/*.json")):
        ack_id = _get(_load(p), "id", str, str(p), "id")
        if ack_id != p.stem:
            raise InputError(str(p), "id", "does not match the file name acks/<id>.json")
        acks.add(ack_id)
    known = {a.id for a in alerts}
    for ack_id in sorted(acks - known):
        raise InputError(str(root / "acks" / f"{ack_id}.json"), "id", "acknowledges an alert that has no file")
    return runs, alerts, acks
