"""The data model, kept close to Bencher's so the SQLite and Bencher stores are interchangeable.

A *run* (Bencher: report) is one execution of a suite at one commit on one testbed.  It carries
*metrics*: one number per (benchmark, measure) with its lower/upper bounds and, unlike Bencher,
the raw samples the harness produced, because every honest statistical test needs them.

Pure data: nothing here does I/O.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import uuid
from array import array
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import AbstractSet, Any, Iterable, Iterator, Sequence

from perfgate.units import confidence_text

# Measures perfgate knows.  ``lower_is_better`` decides whether a rise is a regression.
# Unknown measures default to lower-is-better, which is true of nearly every cost.
KNOWN_MEASURES: dict[str, tuple[str, bool]] = {
    "latency": ("nanoseconds (ns)", True),
    "instructions": ("instructions", True),
    "peak-rss": ("bytes", True),
    "allocated-bytes": ("bytes", True),
    "throughput": ("operations / second (ops/s)", False),
    "build-time": ("seconds (s)", True),
    "file-size": ("bytes", True),
}


BIGGER_IS_BETTER, SMALLER_IS_BETTER = " (bigger is better)", " (smaller is better)"
# A rate per second in any spelling: "/sec" is github-action-benchmark's (pytest's "iter/sec") and
# users' ("req/sec", "MB/sec"); read as a cost, its fall was reported as an improvement.
_HIGHER_IS_BETTER = re.compile(r"^complexity:knee|throughput|per.second|/s(ec(ond)?)?$|^ops\b|items.per",
                               re.IGNORECASE)


@dataclass(frozen=True)
class Measure:
    name: str
    units: str = ""
    lower_is_better: bool = True

    @classmethod
    def named(cls, name: str) -> "Measure":
        if name in KNOWN_MEASURES:
            units, lower = KNOWN_MEASURES[name]
            return cls(name, units, lower)
        # A name may say its direction (github-action-benchmark's custom tools need it to).
        for suffix, lower in ((BIGGER_IS_BETTER, False), (SMALLER_IS_BETTER, True)):
            if name.endswith(suffix):
                return cls(name, "", lower)
        # Rates and the size a cost stays linear up to are better higher; anything else is a cost.
        return cls(name, "", not _HIGHER_IS_BETTER.search(name))


@dataclass(frozen=True)
class Testbed:
    """Where a run happened.  ``fingerprint`` holds image digest, CPU model, kernel, cpuset and
    harness versions; two runs with different fingerprints are never silently compared."""

    name: str
    fingerprint: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


@dataclass
class Metric:
    benchmark: str
    measure: str
    value: float
    lower: float | None = None
    upper: float | None = None
    # A tuple, or a packed ``array('d')`` when a harness gives millions (hyperfine).
    samples: Sequence[float] = ()
    # Extra, harness-specific facts worth keeping (e.g. Google Benchmark's Big-O class).
    attrs: dict[str, Any] = field(default_factory=dict)

    def is_scaling_point(self) -> bool:
        """Whether this is a point of a scaling table, as the scaling-tsv adapter records one: its
        ``attrs["parameters"]`` map each parameter to a number.  Other adapters keep parameters
        too (pytest-benchmark's parametrized tests, hyperfine's ``--parameter-list``) as text, which
        no cost model fits: a check of a pytest suite took ``test_bare[sync]`` for a point and
        failed on ``float("sync")``."""
        return scaling_parameters(self.attrs.get("parameters"))


def scaling_parameters(params: Any) -> bool:
    """Whether ``params`` (a metric's ``attrs["parameters"]``) are a scaling point's: each a number."""
    return isinstance(params, dict) and bool(params) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in params.values())


@dataclass
class Run:
    project: str
    branch: str
    commit: str
    testbed: Testbed
    metrics: list[Metric]
    start_time: float | None = None  # epoch seconds
    end_time: float | None = None
    adapter: str = ""
    # Facts about the run itself (harness versions, command line, suite, variant, ...).
    context: dict[str, Any] = field(default_factory=dict)
    idempotency_key: str = ""

    def with_key(self) -> "Run":
        """Fill ``idempotency_key`` from the run's content when the caller gave none, so that
        ingesting the same output twice yields the same key."""
        if not self.idempotency_key:
            self.idempotency_key = content_key(self)
        return self


@dataclass(frozen=True)
class Forgotten:
    """A run (``benchmark`` and ``measure`` empty) or one metric of a run deleted on purpose
    (``perfgate forget``), named by the run's key: the data folder keeps the run's file, and this
    record tells every import to leave it (or that metric) out."""

    run_key: str
    benchmark: str = ""
    measure: str = ""
    time: float | None = field(default=None, compare=False)

    @property
    def whole_run(self) -> bool:
        return not self.benchmark


def without_forgotten(runs: list[Run], forgotten: Iterable[Forgotten]) -> list[Run]:
    """``runs`` less the runs and metrics ``forgotten`` names; a run left without a metric goes too."""
    gone: dict[str, set[tuple[str, str]] | None] = {}
    for f in forgotten:
        if f.whole_run:
            gone[f.run_key] = None
        elif gone.get(f.run_key, set()) is not None:
            gone.setdefault(f.run_key, set()).add((f.benchmark, f.measure))
    kept = []
    for run in runs:
        if run.idempotency_key not in gone:
            kept.append(run)
            continue
        metrics = [m for m in run.metrics if (m.benchmark, m.measure) not in (gone[run.idempotency_key] or ())]
        if gone[run.idempotency_key] is not None and metrics:
            kept.append(replace(run, metrics=metrics))
    return kept


def content_key(run: Run) -> str:
    h = hashlib.sha256()
    head = [run.project, run.branch, run.commit, run.testbed.name, run.adapter, run.start_time]
    h.update(json.dumps(head, sort_keys=True).encode())
    for m in sorted(run.metrics, key=lambda m: (m.benchmark, m.measure)):
        h.update(json.dumps([m.benchmark, m.measure, m.value, m.lower, m.upper]).encode())
        packed = m.samples if isinstance(m.samples, array) and m.samples.typecode == "d" else array("d", m.samples)
        h.update(packed)  # the samples' exact bits, cheaply (no copy when already packed)
    return h.hexdigest()[:32]


# A run id as every store gives it: a UUID in lower case (``run_id_of``, or a random one).
RUN_ID = re.compile(r"\A[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")

# The namespace of run ids (uuid5), fixed for good: every store derives the same ids from it.
RUN_IDS = uuid.UUID("1e2b783d-ba92-4f89-be6a-e0a3c83b1265")


def run_id_of(project: str, key: str) -> str:
    """The id a store gives a run recorded in it (``perfgate ingest`` prints it; ``history``,
    ``forget --run``, ``compare --base`` and alerts name the run by it): from the project and the
    run's key, so that a store rebuilt from the data folder (``sync --import``) names the run as
    the store that recorded it did.  Two different runs never share a key (the key is what makes
    them one run: it names its file, and a second run of one key is not recorded), so never an id."""
    return str(uuid.uuid5(RUN_IDS, f"{project}\x00{key}"))


# --- validation shared by adapters and the CLI -------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Characters that make text display other than it reads: bidi overrides and isolates (the
# "Trojan Source" trick) and the Unicode line/paragraph separators, which break lines and logs;
# and characters that display as nothing, so that "a\u200bb" would be a second series looking
# exactly like "ab" in every page, comment and alert: the soft hyphen, the Arabic letter mark,
# the Mongolian vowel separator, the zero-width space, the direction marks, the word joiner and
# invisible operators, the deprecated format controls and the BOM / zero-width no-break space.
# ZWNJ and ZWJ (U+200C, U+200D) are kept: Persian and Indic words and emoji sequences need them.
DECEPTIVE_CHARS = ("\u202a-\u202e\u2066-\u2069\u2028\u2029"     # a character class's body
                   "\u00ad\u061c\u180e\u200b\u200e\u200f\u2060-\u2064\u206a-\u206f\ufeff")
_DECEPTIVE = re.compile(f"[{DECEPTIVE_CHARS}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Template arguments such as ``BM_Sort<std::vector<int>>`` are legitimate benchmark names, so
# only markup that a browser would act on is refused, and only tags no type is named after:
# ``BM_Serialize<Object>``, ``Parse<Input>``, ``Sort<A>`` were refused as <object>, <input>, <a>,
# and the whole file with them.  Every page, comment and message escapes names anyway.  An
# ``on…=`` attribute is not matched on its own: ``onHeap=true`` (JMH @Param) and ``one=1`` (Go
# sub-benchmark) are real names, and outside a tag it is inert.  ``<html>`` / ``<body>`` run
# nothing and are real names too (``BENCHMARK_TEMPLATE(BM_Render, Html)`` is ``BM_Render<Html>``,
# a pytest param may be an HTML document), so only tags that load or run something are refused.
_MARKUP = re.compile(
    r"<\s*/?\s*(script|img|iframe|svg|embed|meta)\b"
    r"|javascript:|&#",
    re.IGNORECASE,
)
MAX_NAME_LENGTH = 1024
MAX_IDENTITY_LENGTH = 256


def name_problem(name: object) -> str | None:
    """Why ``name`` is not acceptable as a benchmark / measure / branch name, or None."""
    if not isinstance(name, str):
        return f"name must be a string, got {type(name).__name__}"
    if not name.strip():
        return "name is empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"name is longer than {MAX_NAME_LENGTH} characters"
    m = _CONTROL.search(name)
    if m:
        return f"name contains control character {m.group()!r}"
    if _SURROGATE.search(name):
        return "name is not valid Unicode (a lone surrogate)"
    m = _DECEPTIVE.search(name)
    if m:
        return f"name contains invisible formatting character U+{ord(m.group()):04X}"
    if _MARKUP.search(name):
        return f"name contains HTML markup or a script URL: {name[:80]!r}"
    return None


# A commit is a hash or something git would take as a ref (a tag, ``HEAD~1``, ``origin/main``).
_COMMIT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+~^@-]*")
# Names that may become file or URL path parts: none of these components.
_TRAVERSAL = re.compile(r"(^|[/\\])\.{1,2}($|[/\\])|^[/\\~]|\\")


def identity_problem(kind: str, value: object) -> str | None:
    """Why ``value`` cannot be the ``kind`` of a run (project, branch, testbed, commit, benchmark
    or measure), or None.

    The one check every identity gets before it reaches a store or an output."""
    problem = name_problem(value)
    if problem or kind in ("benchmark", "measure"):
        return problem
    assert isinstance(value, str)
    if len(value) > MAX_IDENTITY_LENGTH:
        return f"{kind} is longer than {MAX_IDENTITY_LENGTH} characters"
    if kind == "commit":
        if not _COMMIT.fullmatch(value) or ".." in value or "@{" in value or value.endswith((".", "/", ".lock")):
            return f"{kind} {value[:80]!r} is neither a commit hash nor a git ref"
        return None
    if value != value.strip():
        return f"{kind} {value[:80]!r} starts or ends with white space"
    if _TRAVERSAL.search(value):
        return f"{kind} {value[:80]!r} looks like a file path ('..', '.', leading '/' or '~', or a backslash)"
    return None


def number_problem(value: object, *, allow_negative: bool = False) -> str | None:
    """Why ``value`` is not an acceptable measurement, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"expected a number, got {type(value).__name__}"
    if math.isnan(value):
        return "value is NaN"
    if math.isinf(value):
        return "value is infinite"
    if value < 0 and not allow_negative:
        return f"negative value {value}"
    return None



LATEST_TIME = 253402300799.0   # 9999-12-31T23:59:59Z: the last second a date can be written for


def time_problem(value: float) -> str | None:
    """Why ``value`` cannot be a run's time in epoch seconds, or None.  An infinite or far-future
    time was once recorded, and every verb that wrote it as a date (history, pages, sync) failed."""
    if not math.isfinite(value):
        return f"{value} is not a finite number of seconds"
    if not 0 <= value <= LATEST_TIME:
        return f"{value:g} is not a time between 1970 and 9999 in epoch seconds"
    return None


def duplicate_metric(metrics: list[Metric]) -> tuple[str, str] | None:
    """The first (benchmark, measure) that appears twice, or None: a run holds each once."""
    seen: set[tuple[str, str]] = set()
    for m in metrics:
        key = (m.benchmark, m.measure)
        if key in seen:
            return key
        seen.add(key)
    return None


# --- alerts (derived by ``perfgate detect``, never hand-entered) --------------------------------

# A change point alert's detail, given by ``detect`` and dropped as the store matches the alert
# (:meth:`Alert.recorded_as`): the commits its new level began with (see :meth:`Alert.within_new_regime`).
REGIME_HEAD = "regime_head"

# A threshold alert's evidence details (``detect``'s ``_evidence``), with its ``ci_low``, ``ci_high``
# and ``p_value``: of its streak as long as ``streak_size`` values (``ci_level``: its interval's
# level), renewed while the streak grows (:meth:`Alert.grown_streak`).
STREAK_EVIDENCE = ("streak_change", "streak_size", "evidence_baseline_size", "no_interval", "ci_level")

# A change point alert's details that are part of its finding (``detect``'s ``_report``): where the
# split is, the levels either side, the last commit measured before its range, and the siblings it
# was tested or placed with.  Renewed with the rest of the finding (:meth:`Alert.refined_by`).
CHANGE_FINDINGS = ("index", "before", "after", "last_measured", "siblings", "placed_with")

# A change point alert's detail, set when a later analysis narrowed its range (:meth:`Alert.refined_by`):
# what it said before, ``{"commit", "magnitude", "commit_range"}``, for the update that tells it.
NARROWED_FROM = "narrowed_from"

# A recorded alert's details that tell its past, not its figures (``perfgate.alert_history``'s
# REOPENED, WITHDRAWN_AT, UNFOUND_SINCE and WENT_BACK): kept when a later finding takes the alert
# over (:meth:`Alert.take_findings`).  Dropped, a reopened alert's later close took the id notify
# had sent its first close under (sent never), one withdrawn and taken over stayed closed with no
# reopening (the withdrawals that follow a record tell it when they see WITHDRAWN_AT), and one
# whose series went back was open again.
ALERT_PAST = ("reopened", "withdrawn_at", "unfound_since", "went_back")


def suspects(kind: str, commit: str, commit_range: Sequence[str] | None) -> tuple[str, ...]:
    """The commits a change could have started at, oldest first.  A threshold alert's range is the
    run of values past the limit (two in a row for wall time), of which only the first can be where
    the change started: the later ones are slow too.  A change point's range is its location's."""
    if kind == "threshold" or not commit_range:
        return (commit,) if commit else ()
    return tuple(commit_range)


def last_good(suspected: Sequence[str], commit: str, previous_commit: str, last_measured: object) -> str:
    """The last commit measured before every one of ``suspected`` ('' when unknown): the old
    regime's last commit when they start at the change's ``commit``, else the one ``detect`` kept
    as ``last_measured`` (after a thinned backfill the commits between are suspects too)."""
    if tuple(suspected[:1]) == (commit,):
        return previous_commit
    return last_measured if isinstance(last_measured, str) else ""


@dataclass
class Alert:
    """A change a series went through, pointing at the commit that started it.

    ``kind`` is ``change_point`` (found by change point detection on the history) or ``threshold``
    (values beyond a threshold test's limit).  ``commit_range`` lists every commit a change point
    could have started at, and for a threshold alert the run of values past the limit (its first
    is the alert's commit); an alert whose range holds an already-alerted commit of the same
    series, kind and direction is the same alert, so a change alerts once, not on every later run.
    """

    branch: str
    testbed: str
    benchmark: str
    measure: str
    commit: str                      # first commit of the new regime
    direction: str                   # "regression" | "improvement"
    magnitude: float                 # relative change: after / before - 1
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    kind: str = "change_point"
    previous_commit: str = ""        # last commit of the old regime
    commit_range: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)
    id: str = ""                     # assigned by the store
    status: str = "active"           # "active" | "acknowledged"
    created: float | None = None     # epoch seconds, assigned by the store

    @property
    def siblings(self) -> list[str]:
        """The sibling series (``benchmark [measure]``) whose change at this commit made ``detect``
        test this series there — empty for a change the series showed alone.  Names only: the
        details are JSON read back from a store."""
        return self._names_in("siblings")

    @property
    def placed_with(self) -> list[str]:
        """The sibling series whose change at this commit ``detect`` placed this series' change at
        (found alone a few runs away, where the noise put its best split) — empty otherwise."""
        return self._names_in("placed_with")

    def _names_in(self, detail: str) -> list[str]:
        return [n for n in (self.details or {}).get(detail) or [] if isinstance(n, str)]

    def series_key(self) -> tuple[str, str, str, str, str]:
        """Its series and direction: the alerts that can describe one change."""
        return self.branch, self.testbed, self.benchmark, self.measure, self.direction

    @staticmethod
    def by_series(alerts: Sequence["Alert"]) -> dict[tuple[str, str, str, str, str], list["Alert"]]:
        """``alerts`` grouped by :meth:`series_key` (an empty list for any other key)."""
        groups: dict[tuple[str, str, str, str, str], list[Alert]] = defaultdict(list)
        for a in alerts:
            groups[a.series_key()].append(a)
        return groups

    @staticmethod
    def sort_out(alerts: Sequence["Alert"], held: dict[tuple[str, str, str, str, str], list["Alert"]]
                 ) -> Iterator[tuple["Alert", "Alert | None", bool]]:
        """For each of ``alerts`` (one detect's), ``(alert, the held alert it describes again or
        None, whether it takes that one over)`` (:meth:`recorded_as`); one found again takes the held
        one's id.  ``held``: the alerts kept so far by series, oldest first; each new one joins it
        once the caller has seen it (and given it its id), so that a store records and a dry run
        counts the same new alerts."""
        claimed: set[str] = set()       # ids of the alerts this batch found again
        batch = Alert.by_series(alerts)
        for alert in alerts:
            key = alert.series_key()
            same, takes_over = alert.recorded_as(held[key], batch[key], claimed)
            if same is not None:
                claimed.add(same.id)
                alert.id = same.id      # it is that alert: detect names it by its id ("known 3f2c9a10")
            yield alert, same, takes_over
            if same is None:
                held[key].append(alert)

    def same_series(self, other: "Alert") -> bool:
        return self.series_key() == other.series_key()

    def same_regression(self, other: "Alert") -> bool:
        """Whether two alerts are one change of one series, whichever detector raised them: the
        same direction and commits in common (a threshold alert names the first commit of its run
        of alerting values and lists them all; a change point lists the commits it could be)."""
        if not self.same_series(other):
            return False
        return bool({self.commit, *self.commit_range} & {other.commit, *other.commit_range})

    def recorded_as(self, known: list["Alert"], batch: Sequence["Alert"] = (),
                    claimed: AbstractSet[str] = frozenset()) -> tuple["Alert | None", bool]:
        """The alert of ``known`` that this one describes again, if any, and whether this one takes
        it over (:meth:`superseded_by`): the same change first, at its very commit, then at a
        commit of its range (a change point found again), else the same regression (a threshold
        alert that a change point takes over).  Taking the first alert of the same regression
        instead let a change point found again take over a threshold alert raised a run after it,
        and become a second alert of the change it already had.  Once matched, the transient
        :data:`REGIME_HEAD` detail is dropped: it is what ``detect`` saw, not part of the alert.

        A known alert is one change: of the alerts of ``batch`` (those of its series one
        ``detect`` raised with this one) that could describe it again, the one whose commit is
        nearest to its own does, and none matched before (``claimed``: their ids).  Else a second
        change a few runs after a weak one, inside the first one's range as first alerted, was
        never alerted."""
        def free(k: Alert) -> bool:
            if k.kind != self.kind:
                return True
            mine = self._runs_from(k)
            return k.id not in claimed and not any(
                b is not self and b.kind == k.kind and b.same_series(k) and b._runs_from(k) < mine for b in batch)

        same = [k for k in known if self.same_change(k)]
        found = (next((k for k in same if k.commit == self.commit), None) or next((k for k in same if free(k)), None)
                 or next((k for k in known if (self.same_regression(k) or k.within_new_regime(self)) and free(k)),
                         None))
        takes_over = found is not None and found.superseded_by(self)
        self.details.pop(REGIME_HEAD, None)
        return found, takes_over

    def suspects(self) -> tuple[str, ...]:
        """The commits the change could have started at, oldest first (:func:`suspects`)."""
        return suspects(self.kind, self.commit, self.commit_range)

    def last_good(self) -> str:
        """The last commit measured before every suspect (:func:`last_good`)."""
        return last_good(self.suspects(), self.commit, self.previous_commit, (self.details or {}).get("last_measured"))

    def _runs_from(self, other: "Alert") -> float:
        """How many commits this alert's commit is from ``other``'s, counted in either one's range
        (infinite when neither range holds both)."""
        for commits in (other.commit_range, self.commit_range):
            if self.commit in commits and other.commit in commits:
                return abs(commits.index(self.commit) - commits.index(other.commit))
        return 0 if self.commit == other.commit else math.inf

    def within_new_regime(self, change: "Alert") -> bool:
        """Whether this threshold alert's first value is among the first runs of the new level that
        the change point alert ``change`` found (``detect`` lists their commits in the transient
        detail :data:`REGIME_HEAD`): the threshold test judged them against the old level before
        the change was found, so they are one regression even where the first value past the limit
        came a few runs after the commits the change could be.  So is a change point alert whose
        last good commit came before them: the change started in its unmeasured gap (runs recorded
        there later, with no checkout to list the gap's commits, place it at one of them).  Never
        a bisected alert: bisect measured its gap, and a change placed before its first bad commit
        is another change (one whose range holds that commit is the same regression)."""
        head = change.details.get(REGIME_HEAD, ()) if change.kind == "change_point" else ()
        if not (self.same_series(change) and self.commit in head) or self.bisected():
            return False
        return self.kind == "threshold" or (self.kind == "change_point" and self.previous_commit not in head)

    def superseded_by(self, other: "Alert") -> bool:
        """A threshold alert gives way to a change point found later for the same regression:
        the change point places the change better and gives its size with an interval.  A change
        point found alone gives way to the same change placed at its siblings' commit, once they
        changed there (``detect`` keeps where it was found in the placed alert's range), and to the
        change placed inside its unmeasured gap (:meth:`within_new_regime`)."""
        if self.kind == "threshold":
            return other.kind == "change_point" and (self.same_regression(other) or self.within_new_regime(other))
        return self.kind == "change_point" and other.kind == "change_point" and (
            (bool(other.placed_with) and not self.placed_with and self.same_change(other))
            or (self.within_new_regime(other) and not self.same_change(other)))

    def renewed_by(self, other: "Alert", takes_over: bool) -> bool:
        """Take what a later detect's alert ``other`` knows better of this recorded one
        (:meth:`recorded_as` matched them): a change point's findings when it takes the alert over,
        else a longer streak's evidence, else a change point's surer finding of the same change.
        Whether anything changed (the store writes it then)."""
        if takes_over:
            self.take_findings(other)
        elif self.grown_streak(other):
            self.take_streak(other)
        elif self.refined_by(other):
            self.take_refinement(other)
        else:
            return False
        return True

    def streak_size(self) -> int:
        """How many values a threshold alert's streak held when its evidence was computed (its range,
        for one recorded before the evidence was kept)."""
        n = (self.details or {}).get("streak_size")
        return n if type(n) is int else len(self.commit_range)

    def grown_streak(self, other: "Alert") -> bool:
        """Whether ``other``, a later detect's alert of this threshold alert's streak (the same first
        commit), saw it longer: a regression that persists is surer than its first two values said.
        Only while the alert is active and its streak was not seen to end; an acknowledged one keeps
        what it was accepted on."""
        return (self.kind == other.kind == "threshold" and self.commit == other.commit and self.status == "active"
                and "ended_at" not in (self.details or {}) and other.streak_size() > self.streak_size())

    def take_streak(self, other: "Alert") -> None:
        """The longer streak's values and evidence (:data:`STREAK_EVIDENCE`); the size, the limit and
        the value it alerted at stay as raised, and so do the id, status and time."""
        self.commit_range = tuple(other.commit_range)
        self.ci_low, self.ci_high, self.p_value = other.ci_low, other.ci_high, other.p_value
        self.details = ({k: v for k, v in self.details.items() if k not in STREAK_EVIDENCE}
                        | {k: other.details[k] for k in STREAK_EVIDENCE if k in other.details})

    def refined_by(self, other: "Alert") -> bool:
        """Whether ``other``, a later analysis's change point of this change point alert's change
        (:meth:`same_change`), is at least as sure and tells something this one does not.

        At least as sure: a p-value no larger and no more suspects.  Both, so that an analysis
        that locates the change worse (a wider range: more commits to bisect) or sizes it on weaker
        evidence replaces nothing, and a range never widens; it may shift by a commit or two as
        the runs after the change firm up where the split is likeliest.  Something new: fewer
        suspects, this alert's size outside the later interval, or another confidence as shown —
        not each re-estimate within the interval (nor a range merely shifted), which the runs
        after a step give at nearly every detect: each would rewrite the alert and add a history
        file.  Only while active (an acknowledged one keeps what it was accepted on); one placed
        at its siblings' commit only by a finding placed with them too.  A bisected alert's range is exact: only a
        finding of that very commit renews it, and only its size (:meth:`take_refinement`)."""
        if not (self.kind == other.kind == "change_point" and self.status == "active" and self.same_change(other)):
            return False
        if self.placed_with and not other.placed_with:
            return False
        mine, theirs = self.suspects(), other.suspects()
        if self.bisected() and theirs != mine:
            return False
        if other.p_value is None or (self.p_value is not None and other.p_value > self.p_value) \
                or len(theirs) > len(mine):
            return False
        outside = (other.ci_low is not None and other.ci_high is not None
                   and not other.ci_low <= self.magnitude <= other.ci_high)
        shown = self.p_value is None or confidence_text(other.p_value) != confidence_text(self.p_value)
        return len(theirs) < len(mine) or outside or shown

    def take_refinement(self, other: "Alert") -> None:
        """``other``'s surer finding (:meth:`refined_by`): its size, interval, p-value, levels and
        location; the id, status, time and everything else kept (withdrawals, a takeover's
        record).  A bisected alert keeps bisect's commit, range and last good commit.  A narrower
        range keeps what the alert said before (:data:`NARROWED_FROM`), for notify to tell."""
        narrowed = len(other.suspects()) < len(self.suspects())
        if narrowed:
            size = self.magnitude if math.isfinite(self.magnitude) else None
            was = {"commit": self.commit, "magnitude": size, "commit_range": list(self.commit_range)}
        self.magnitude, self.ci_low, self.ci_high, self.p_value = (other.magnitude, other.ci_low, other.ci_high,
                                                                   other.p_value)
        exact = self.bisected()
        taken = [k for k in CHANGE_FINDINGS if not (exact and k == "last_measured")]
        self.details = ({k: v for k, v in self.details.items() if k not in taken}
                        | {k: other.details[k] for k in taken if k in other.details})
        if not exact:
            self.commit, self.previous_commit, self.commit_range = (other.commit, other.previous_commit,
                                                                    tuple(other.commit_range))
            if narrowed:
                self.details[NARROWED_FROM] = was

    def take_findings(self, other: "Alert") -> None:
        """Become ``other``'s description of the change, keeping this alert's id, status, time and
        past (:data:`ALERT_PAST`).  A bisected alert whose first bad commit ``other`` suspects keeps
        that commit, its last good commit and bisect's record: bisect measured the commits
        ``other`` can only choose among (taking its wider range asked for a bisect already done)."""
        superseded = "threshold" if self.kind == "threshold" else f"found alone at {self.commit}"
        # what those told of this alert were told, for the update that follows
        size = self.magnitude if isinstance(self.magnitude, (int, float)) and math.isfinite(self.magnitude) else None
        was: dict[str, Any] = {"commit": self.commit, "magnitude": size}
        exact = self.bisected() and self.commit in other.suspects()
        kept = {"bisect": self.details["bisect"]} if exact else {}
        taken = ["direction", "magnitude", "ci_low", "ci_high", "p_value", "kind"]
        if exact:
            was["bisected"] = True      # taken over after bisect: notify tells both (``notify.events.updated``)
        else:
            taken += ["commit", "previous_commit", "commit_range"]
        for name in taken:
            setattr(self, name, getattr(other, name))
        past = {k: self.details[k] for k in ALERT_PAST if k in self.details}
        found = {k: v for k, v in other.details.items() if not (exact and k == "last_measured")}
        self.details = {**found, **past, **kept, "superseded": superseded, "superseded_from": was}

    def bisected(self) -> bool:
        """Whether ``perfgate bisect`` narrowed this alert to its first bad commit (``details.bisect``)."""
        return isinstance((self.details or {}).get("bisect"), dict)

    def same_change(self, other: "Alert") -> bool:
        """Whether two alerts describe the same change of the same series."""
        if (self.kind, self.branch, self.testbed, self.benchmark, self.measure, self.direction) != \
                (other.kind, other.branch, other.testbed, other.benchmark, other.measure, other.direction):
            return False
        return (self.commit == other.commit or self.commit in other.commit_range
                or other.commit in self.commit_range)
