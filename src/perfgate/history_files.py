"""The history as a folder of small JSON files, for an append-only git data branch.

Layout (every file is written once and never changed, so two writers never touch the same file
with different content and concurrent pushes merge trivially)::

    runs/<commit>/<run key>.json     one run with its metrics and raw samples
    alerts/<alert id>.json           an alert as detect raised it
    updates/<alert id>/<digest>.json the alert as a later finding left it (a change point that took a
                                     threshold alert over, placed among its siblings, narrowed by
                                     bisect): a file per state, the newest ("updated") read back
    acks/<alert id>.json             the alert was acknowledged (a separate file: alert files never change)
    forgotten/<run key>/run.json     the run was deleted on purpose (``perfgate forget``): its file stays,
    forgotten/<run key>/<digest>.json  every import leaves it out; or one metric of it (a retired series)

Deleting is a new file too, not a removed one: a job whose store was rebuilt before the deletion
still holds the run and would export its file again, and a removed file cannot win a merge
against one added back; a record that says "leave it out" can, and each job adds it unchanged.

The run key is the run's content key (``Run.with_key``), so the same run exported twice, from two
stores, lands in the same file.  A run file also carries the run's id (``run.id``), which an import
keeps; a store gives a new run the id its project and key give (``model.run_id_of``), so the same
run has the same id, and the same file, whichever store exports it, and a file written before
files carried ids imports with that id too.  Reading validates everything before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

import orjson

from perfgate import inputs
from perfgate.errors import InputError, shown
from perfgate.inputs import finite_float
from perfgate.model import RUN_ID, Alert, Forgotten, Metric, Run, Testbed, identity_problem, time_problem
from perfgate.outputs import write_atomic

FORMAT = 1
_SAFE = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
ALERT_KINDS = ("change_point", "threshold")
DIRECTIONS = ("regression", "improvement")


def name_problem(value: object) -> str | None:
    """Why ``value`` cannot be a run key or alert id (each names a file of the history), or None.
    ``perfgate ingest --idempotency-key`` is held to this rule too, so no run a store holds is one
    that ``sync --export`` cannot write."""
    if not isinstance(value, str):
        return f"expected text, got {inputs.json_kind(type(value))}"
    if not value:
        return "is empty"
    if _SAFE.match(value) and value not in (".", ".."):
        return None
    return f"{shown(value)} cannot name a file (1 to 128 letters, digits, '.', '_', '-'; not '.' or '..')"


def _name(value: str, what: str) -> str:
    """A file-name-safe form of a key or id (they are hex or uuids; anything else is refused)."""
    problem = name_problem(value)
    if problem:
        raise InputError(what, "", problem)
    return value


def commit_folder(commit: str) -> str:
    """The folder of a commit's runs: the commit itself when it can name a file (a hash), else
    ``_`` and a hash of it (a label such as ``release/1.0``; no commit starts with ``_``)."""
    if _SAFE.match(commit) and commit not in (".", ".."):
        return commit
    return "_" + hashlib.sha256(commit.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def run_path(run: Run) -> Path:
    return run_file(run.commit, run.idempotency_key)


def run_file(commit: str, key: str) -> Path:
    """Where the run of ``commit`` with this key is kept (what ``sync --export`` looks for before
    it reads the run from the store)."""
    return Path("runs") / commit_folder(commit or "unknown") / f"{_name(key, 'run key')}.json"


def run_to_json(run: Run, run_id: str | None = None) -> dict[str, Any]:
    # Field by field, not dataclasses.asdict: its deep copy of every sample took 85 µs a metric,
    # most of an export's time.  The same document either way (tests/test_sync.py).
    data = {f.name: getattr(run, f.name) for f in fields(run)}
    if run_id and RUN_ID.match(run_id):
        # The id the store gave the run (history and export list it, forget --run and compare
        # --base take it), which an import keeps.  Every store's ids are UUIDs; one that were not would be left out (the
        # import then gives the run the id its key gives), never written for the import to refuse.
        data["id"] = run_id
    data["testbed"] = {"name": run.testbed.name, "fingerprint": run.testbed.fingerprint}
    data["metrics"] = [{**{f.name: getattr(m, f.name) for f in fields(m)}, "samples": list(m.samples)}
                       for m in run.metrics]
    return {"format": FORMAT, "run": data}


def _dump(data: dict[str, Any]) -> str:
    # allow_nan=False: a NaN would not read back as JSON anywhere else.
    return json.dumps(data, sort_keys=True, indent=1, allow_nan=False, default=str) + "\n"


def write_if_absent(root: Path, rel: Path, data: dict[str, Any]) -> bool:
    """Write the file unless it is there whole: one torn by a crash (not a history file) is
    written again.  Atomically, through a temporary file of its own, so two exports into one
    folder at once never share one."""
    if _whole(root / rel) is not None:
        return False
    _write(root / rel, data)
    return True


def _whole(path: Path) -> dict[str, Any] | None:
    """The history file at ``path`` when it is there whole; None when absent or torn by a crash."""
    if not path.exists():
        return None
    try:
        return _load(path)
    except InputError:
        return None


def is_whole(path: Path) -> bool:
    """Whether the history file at ``path`` is there whole (as :func:`_whole` tells), read with
    orjson first: the standard library's parse of every run file was half of an export with
    nothing new (1.2 s of 300 runs × 500 metrics).  Whatever orjson refuses is read as before."""
    try:
        data = orjson.loads(inputs.read_bytes(path))
    except (orjson.JSONDecodeError, InputError):
        data = None
    return (isinstance(data, dict) and data.get("format") == FORMAT) or _whole(path) is not None


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, _dump(data))


def unexportable(runs: list[tuple[str, str, str, str]], alerts: list[Alert]) -> list[str]:
    """What ``sync --export`` cannot write, one line each: a run (branch, commit, testbed, key)
    whose key (or an alert whose id) cannot name a file, which only a store written by a perfgate
    older than the key check can hold.  Checked before anything is written, so an export is
    whole or not begun."""
    found = []
    for branch, commit, testbed, key in runs:
        problem = name_problem(key)
        if problem:
            found.append(f"the run of branch {shown(branch)} commit {shown(commit)} "
                         f"testbed {shown(testbed)}: its key {problem}")
    for alert in alerts:
        problem = name_problem(alert.id)
        if problem:
            found.append(f"the alert on {shown(alert.benchmark)} at commit {shown(alert.commit)}: its id {problem}")
    return found


def export_run(root: Path, run: Run, run_id: str | None = None) -> bool:
    """Write the run's file unless it is there whole; its document is made only then (an export
    with nothing new made every run's, and took 5 s for 300 runs of 500 benchmarks)."""
    rel = run_path(run.with_key())
    if is_whole(root / rel):
        return False
    _write(root / rel, run_to_json(run, run_id))
    return True


FORGOTTEN = "forgotten"


def forgotten_path(mark: Forgotten) -> Path:
    """One file per record, named from its content: the same deletion exported by two stores is one file."""
    name = "run" if mark.whole_run else hashlib.sha256(
        json.dumps([mark.benchmark, mark.measure]).encode()).hexdigest()[:16]
    return Path(FORGOTTEN) / _name(mark.run_key, "run key") / f"{name}.json"


def export_forgotten(root: Path, mark: Forgotten) -> bool:
    data = {"run": mark.run_key, "time": mark.time}
    if not mark.whole_run:
        data |= {"benchmark": mark.benchmark, "measure": mark.measure}
    return write_if_absent(root, forgotten_path(mark), {"format": FORMAT, "forgotten": data})


def read_forgotten(root: Path) -> list[Forgotten]:
    """Every record under ``root``/forgotten, validated (a file must sit where its content says)."""
    found = []
    for path in sorted(root.glob(f"{FORGOTTEN}/*/*.json")):
        src = str(path)
        f = _get(_load(path), FORGOTTEN, dict, src, FORGOTTEN)
        key = _get(f, "run", str, src, "forgotten.run")
        problem = name_problem(key)
        if problem:
            raise InputError(src, "forgotten.run", problem)
        names = [_identity(kind, _get(f, kind, str, src, f"forgotten.{kind}"), src, f"forgotten.{kind}")
                 for kind in ("benchmark", "measure") if kind in f]
        if len(names) == 1:
            raise InputError(src, "forgotten", "names a benchmark without a measure, or a measure without one")
        benchmark, measure = names or ("", "")
        mark = Forgotten(key, benchmark, measure, _time(f, "time", src, "forgotten.time"))
        if Path(*path.parts[-3:]) != forgotten_path(mark):
            raise InputError(src, "forgotten", f"does not match the file's place {FORGOTTEN}/<run key>/...")
        found.append(mark)
    return found


UPDATES = "updates"
_NOT_FINDINGS = ("id", "status", "created")   # what no later finding changes


def _findings(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in _NOT_FINDINGS}


def export_alert(root: Path, alert: Alert) -> int:
    """The alert's file, and an update file when what it says now is not what the folder's newest
    state of it says: alert files never change, and an update left in one CI job's store alone
    was lost when the next rebuilt its store from the data branch (a threshold alert then named
    its streak's first commit for good, and the change point's revert raised a second alert)."""
    data = asdict(alert)
    data["status"] = "active"  # as raised; acknowledgement is its own file
    path = root / "alerts" / f"{_name(alert.id, 'alert id')}.json"
    # Read once: what decides whether to write is what is compared with (a second read could
    # see another export's file, written in between).
    first, written = _whole(path), 0
    if first is None:
        _write(path, {"format": FORMAT, "alert": data})
        written = 1
    elif _findings(_newest_state(root, alert.id, first)) != _findings(json.loads(_dump(data))):
        digest = hashlib.sha256(_dump(_findings(data)).encode()).hexdigest()[:16]
        written = int(write_if_absent(root, Path(UPDATES) / alert.id / f"{digest}.json",
                                      {"format": FORMAT, "alert": data, "updated": time.time()}))
    if alert.status == "acknowledged":
        written += write_if_absent(root, Path("acks") / f"{alert.id}.json", {"format": FORMAT, "id": alert.id})
    return written


def _newest_state(root: Path, alert_id: str, first: dict[str, Any]) -> dict[str, Any]:
    """The alert as the folder has it now: its newest update, else its first file (``first``, as read)."""
    updates = [_load(p) for p in (root / UPDATES / alert_id).glob("*.json")]
    if updates:
        return max(updates, key=_update_order)["alert"]
    return first["alert"]


def _update_order(doc: dict[str, Any]) -> tuple[float, str]:
    # newest first by when it was written; two jobs' updates of one moment by their content
    updated = doc.get("updated")
    return (updated if isinstance(updated, (int, float)) else 0.0, _dump(doc.get("alert", {})))


# --- reading ----------------------------------------------------------------------------------

def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _load(path: Path) -> dict[str, Any]:
    text = inputs.read_text(path)   # a regular file, bounded: a FIFO hung the import, /dev/zero filled memory
    try:
        data = json.loads(text, parse_constant=_no_constant)   # NaN would not read back anywhere else
    except json.JSONDecodeError as e:
        raise InputError(str(path), f"line {e.lineno}", f"invalid JSON: {e.msg}") from None
    except (ValueError, RecursionError) as e:    # a bare NaN, an integer of 5,000 digits, deep nesting
        raise InputError(str(path), "", f"invalid JSON: {str(e)[:200]}") from None
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
        raise InputError(src, place, f"expected {inputs.json_kind(kind)}, got {inputs.json_kind(type(value))}")
    return value


def _number(d: Any, key: str, src: str, place: str, optional: bool = False) -> float | None:
    value = _get(d, key, (int, float), src, place, optional)
    if value is None:
        return None
    x = finite_float(value)
    if x is None:
        raise InputError(src, place, "not a finite number")
    return x


def _identity(kind: str, value: str, src: str, place: str) -> str:
    """The names ``ingest`` would refuse are refused here too (markup, control characters, ...)."""
    problem = identity_problem(kind, value)
    if problem:
        raise InputError(src, place, problem)
    return value


def _time(d: Any, key: str, src: str, place: str) -> float | None:
    value = _number(d, key, src, place, optional=True)
    problem = None if value is None else time_problem(value)
    if problem:
        raise InputError(src, place, problem)
    return value


def read_run(path: Path) -> Run:
    return _read_run(path)[0]


def _read_run(path: Path) -> tuple[Run, str | None]:
    """The run in the file, and the id its store gave it (None in a file written before files
    carried it)."""
    src = str(path)
    r = _get(_load(path), "run", dict, src, "run")
    run_id = _get(r, "id", str, src, "run.id", optional=True)
    if run_id is not None and not RUN_ID.match(run_id):
        raise InputError(src, "run.id", f"{shown(run_id)} is not a run id (a UUID in lower case, "
                         "as 'perfgate sync --export' writes it)")
    tb = _get(r, "testbed", dict, src, "run.testbed")
    metrics = []
    seen: set[tuple[str, str]] = set()
    for i, m in enumerate(_get(r, "metrics", list, src, "run.metrics")):
        place = f"run.metrics[{i}]"
        samples = _get(m, "samples", list, src, f"{place}.samples")
        values = [finite_float(x) for x in samples]
        for j, x in enumerate(values):
            if x is None:
                raise InputError(src, f"{place}.samples[{j}]", "not a finite number")
        metric = Metric(_identity("benchmark", _get(m, "benchmark", str, src, f"{place}.benchmark"), src,
                                  f"{place}.benchmark"),
                        _identity("measure", _get(m, "measure", str, src, f"{place}.measure"), src, f"{place}.measure"),
                        _number(m, "value", src, f"{place}.value"),
                        _number(m, "lower", src, f"{place}.lower", optional=True),
                        _number(m, "upper", src, f"{place}.upper", optional=True),
                        tuple(values), _get(m, "attrs", dict, src, f"{place}.attrs"))
        if (metric.lower is not None and metric.lower > metric.value) or \
                (metric.upper is not None and metric.upper < metric.value):
            raise InputError(src, place, f"its bounds [{metric.lower}, {metric.upper}] do not hold its value {metric.value}")
        if (metric.benchmark, metric.measure) in seen:
            raise InputError(src, place, f"benchmark {metric.benchmark!r} measure {metric.measure!r} appears twice")
        seen.add((metric.benchmark, metric.measure))
        metrics.append(metric)
    if not metrics:
        raise InputError(src, "run.metrics", "a run without a metric")
    run = Run(_identity("project", _get(r, "project", str, src, "run.project"), src, "run.project"),
              _identity("branch", _get(r, "branch", str, src, "run.branch"), src, "run.branch"),
              _identity("commit", _get(r, "commit", str, src, "run.commit"), src, "run.commit"),
              Testbed(_identity("testbed", _get(tb, "name", str, src, "run.testbed.name"), src, "run.testbed.name"),
                      _get(tb, "fingerprint", dict, src, "run.testbed.fingerprint")),
              metrics, _time(r, "start_time", src, "run.start_time"), _time(r, "end_time", src, "run.end_time"),
              _get(r, "adapter", str, src, "run.adapter"), _get(r, "context", dict, src, "run.context"),
              _get(r, "idempotency_key", str, src, "run.idempotency_key"))
    problem = name_problem(run.idempotency_key)   # "runs/<commit>/..json" has the stem "."
    if problem:
        raise InputError(src, "run.idempotency_key", problem)
    if path.stem != run.idempotency_key or path.parent.name != commit_folder(run.commit):
        raise InputError(src, "run.idempotency_key", "does not match the file's place runs/<commit>/<key>.json")
    return run, run_id


def read_alert(path: Path) -> Alert:
    alert = _alert_in(_load(path), str(path))
    if path.stem != alert.id:
        raise InputError(str(path), "alert.id", "does not match the file name alerts/<id>.json")
    return alert


def _alert_in(doc: dict[str, Any], src: str) -> Alert:
    a = _get(doc, "alert", dict, src, "alert")
    names = {kind: _identity(kind, _get(a, kind, str, src, f"alert.{kind}"), src, f"alert.{kind}")
             for kind in ("branch", "testbed", "benchmark", "measure", "commit")}
    for key, allowed in (("kind", ALERT_KINDS), ("direction", DIRECTIONS)):
        if _get(a, key, str, src, f"alert.{key}") not in allowed:
            raise InputError(src, f"alert.{key}", f"expected one of {', '.join(allowed)}")
    alert = Alert(names["branch"], names["testbed"], names["benchmark"], names["measure"], names["commit"],
                  _get(a, "direction", str, src, "alert.direction"),
                  _number(a, "magnitude", src, "alert.magnitude"),
                  _number(a, "ci_low", src, "alert.ci_low", optional=True),
                  _number(a, "ci_high", src, "alert.ci_high", optional=True),
                  _number(a, "p_value", src, "alert.p_value", optional=True),
                  _get(a, "kind", str, src, "alert.kind"), _get(a, "previous_commit", str, src, "alert.previous_commit"),
                  tuple(_get(a, "commit_range", list, src, "alert.commit_range")),
                  _get(a, "details", dict, src, "alert.details"), _get(a, "id", str, src, "alert.id"), "active",
                  _number(a, "created", src, "alert.created", optional=True))
    problem = name_problem(alert.id)
    if problem:
        raise InputError(src, "alert.id", problem)
    return alert


def _with_updates(root: Path, alerts: list[Alert]) -> list[Alert]:
    """Each alert as its newest update file leaves it (its id, creation time and status its own)."""
    by_id = {a.id: a for a in alerts}
    folder = root / UPDATES
    for sub in sorted(folder.iterdir()) if folder.is_dir() else ():
        if sub.name not in by_id:
            raise InputError(str(sub), "", "updates an alert that has no file")
        docs = [(_load(p), p) for p in sorted(sub.glob("*.json"))]
        if not docs:
            continue
        doc, p = max(docs, key=lambda d: _update_order(d[0]))
        newest = _alert_in(doc, str(p))
        if newest.id != sub.name:
            raise InputError(str(p), "alert.id", f"does not match the folder {UPDATES}/<id>/")
        first = by_id[sub.name]
        by_id[sub.name] = replace(newest, created=first.created, status=first.status)
    return [by_id[a.id] for a in alerts]


def read_folder(root: Path, held: Mapping[Path, tuple[str, str]] | None = None,
                ) -> tuple[list[Run], list[Alert], set[str], dict[str, str], int]:
    """Every run, alert and acknowledgement under ``root``, validated (nothing is written); the
    run ids the files carry, by run key; and how many run files were passed over as ``held``.

    ``held``: the files (``runs/<commit>/<key>.json``, relative to ``root``) of the runs the store
    holds already, with each run's key and id.  They are not read — parsing 10,000 run files only
    to skip them took 11 s, at each of a CI job's steps — but their keys and ids still count, as a
    read file's do, against another file's."""
    if not root.is_dir():
        raise InputError(str(root), "", "not a folder")
    folders = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]   # .git is expected
    if folders and not any((root / part).is_dir() for part in ("runs", "alerts", "acks", FORGOTTEN)):
        raise InputError(str(root), "", "holds no runs/, alerts/ or acks/ folder: not a history exported by "
                         "'perfgate sync --export' (artifacts merged without merge-multiple sit one folder down)")
    held = held or {}
    every = sorted(root.glob("runs/*/*.json"))
    passed = {p: held[place] for p in every if (place := p.relative_to(root)) in held}
    run_files = [p for p in every if p not in passed]
    read = [_read_run(p) for p in run_files]
    runs = [run for run, _ in read]
    seen: dict[str, Path] = {key: p for p, (key, _) in passed.items()}
    ids: dict[str, str] = {}
    id_seen: dict[str, Path] = {run_id: p for p, (_, run_id) in passed.items()}
    for p, (run, run_id) in zip(run_files, read):
        if run.idempotency_key in seen:   # one key, two runs: which one the store keeps is chance
            raise InputError(str(p), "run.idempotency_key", f"the key of {seen[run.idempotency_key]} too")
        seen[run.idempotency_key] = p
        if run_id is not None:
            if run_id in id_seen:        # one id, two runs: it would name either
                raise InputError(str(p), "run.id", f"the id of {id_seen[run_id]} too")
            id_seen[run_id] = p
            ids[run.idempotency_key] = run_id
    alerts = _with_updates(root, [read_alert(p) for p in sorted(root.glob("alerts/*.json"))])
    acks = set()
    for p in sorted(root.glob("acks/*.json")):
        ack_id = _get(_load(p), "id", str, str(p), "id")
        if ack_id != p.stem:
            raise InputError(str(p), "id", "does not match the file name acks/<id>.json")
        acks.add(ack_id)
    known = {a.id for a in alerts}
    for ack_id in sorted(acks - known):
        raise InputError(str(root / "acks" / f"{ack_id}.json"), "id", "acknowledges an alert that has no file")
    return runs, alerts, acks, ids, len(passed)


def held_files(places: Iterable[tuple[str, str, str]]) -> dict[Path, tuple[str, str]]:
    """The files of runs a store holds (each run's commit, key and id), as :func:`read_folder`
    takes them; a key that cannot name a file has none."""
    return {run_file(commit, key): (key, run_id) for commit, key, run_id in places if not name_problem(key)}
