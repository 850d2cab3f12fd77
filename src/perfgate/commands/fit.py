"""Fit cost models to a scaling benchmark: which terms, what coefficients, where the knee is.

Input is the scaling-benchmark TSV (parameters and times in the rows; or an INPUTS file of
parameters plus a RESULTS file of times, row for row), or a scaling run recorded in the store
(--from-store NAME[@COMMIT]).

Model choice: without -p, perfgate chooses the terms itself among all subsets of
vo2,vo,v,o2,o,1 (those the data has parameters for) by BIC, so a term the data does not need is
not reported.  With -p the given terms are fitted as written (the seeds' regression.py
behaviour); add --auto to choose among subsets of them instead.

Every coefficient comes with a 95% confidence interval.  Fits weight each point by 1/cost²
(timing noise is multiplicative) and down-weight outliers (Huber); --weights none --no-robust
gives plain least squares.  With --diff the difference of two runs on the same inputs is fitted;
its noise follows the two runs' costs, not the difference, so each point is weighted by
1/(μ² + μ_base²) with μ and μ_base from fitting each run on its own.
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path

import numpy as np

from perfgate.adapters.base import read_text
from perfgate.adapters.scaling_tsv import ScalingTable, combine, parse_inputs, parse_table, table_from_metrics
from perfgate.commands._common import add_run_identity, resolve_identity, store_from
from perfgate.complexity.expectations import Verdict, check, parse_expectations
from perfgate.complexity.analysis import analyse
from perfgate.complexity.regression import WEIGHTINGS, Fit, FitError
from perfgate.complexity.terms import DEFAULT_SPEC, TermError, default_terms, letters, parse_terms
from perfgate.errors import EXIT_OK, EXIT_REGRESSION, InputError, PerfgateError
from perfgate.escape import visible
from perfgate.model import Metric, Run
from perfgate.output import emit_json, err, out
from perfgate.outputs import write_atomic
from perfgate.thresholds import default_path

NAME = "fit"
HELP = "fit cost models (e.g. 32⋅v⋅o + 486⋅o) to a scaling benchmark, find knees, check complexity"
ORDER = 40
EPILOG = """examples:
  perfgate fit data/async_copy_array.txt                       # choose the terms by BIC
  perfgate fit data/async_copy_array.txt -p vo,o -y S,T        # fit exactly these terms
  perfgate fit data/inputs-5K.txt data/hop_copy.txt --diff data/hop_reset.txt -p vo
  perfgate fit data/async_tree.txt -y T --knee objects --plot fit.svg
  perfgate fit data/async_tree.txt --check --benchmark async-deinit/async_tree   # exit 1 if violated
  perfgate fit data/async_tree.txt --record --branch main --commit abc123

phases (-y): S scheduling, E execution (= total - scheduling), T total.
terms (-p): products of parameter letters with exponents: vo2 = values⋅objects², 1 = constant."""

PHASE_LABELS = {"S": "Scheduling", "E": "Execution", "T": "Total"}
MAGNITUDE = (1e-100, 1e100)   # |value| a cost model can square and weigh by 1/cost² without overflow


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="*", metavar="[INPUTS] RESULTS",
                   help="results TSV, optionally preceded by the inputs file it was run on")
    p.add_argument("--from-store", metavar="NAME[@COMMIT]",
                   help="fit the scaling run NAME recorded in the store (newest, or that commit's)")
    p.add_argument("-p", "--params", metavar="TERMS", help=f"terms to fit, e.g. vo,o,1 (default: choose among {DEFAULT_SPEC})")
    p.add_argument("--auto", action="store_true", help="with -p: choose the best subset of those terms by BIC")
    p.add_argument("-y", "--phases", metavar="S,E,T", help="phases to fit (default: every phase in the data)")
    p.add_argument("-d", "--diff", metavar="BASELINE", help="fit the difference to this results file (same inputs)")
    for bound in ("min", "max"):
        for param in ("values", "objects"):
            p.add_argument(f"--{bound}-{param}", type=float, metavar="N",
                           help=f"only points with {param} {'>=' if bound == 'min' else '<='} N")
    p.add_argument("--knee", nargs="?", const="objects", metavar="PARAM",
                   help="look for a knee (change of per-unit cost) in PARAM (default: objects)")
    p.add_argument("--plot", metavar="FILE.svg|png", help="draw cost against each parameter with the model and knee")
    p.add_argument("--weights", choices=WEIGHTINGS, help="relative: noise ∝ cost (default); none: equal weights")
    p.add_argument("--no-robust", action="store_true", help="plain least squares instead of Huber's M-estimator")
    p.add_argument("--benchmark", help="benchmark name for --check/--record (default: the name in the file header)")
    p.add_argument("--check", nargs="?", const="", metavar="FILE",
                   help="check complexity expectations (default file: thresholds/complexity.toml); exit 1 if violated")
    p.add_argument("--record", action="store_true", help="store coefficients and knee as derived metrics of a run")
    add_run_identity(p)


def run(args: argparse.Namespace) -> int:
    table, baseline = _load(args)
    for t in (table, baseline):
        if t is not None:
            _check_magnitudes(t, "row" if args.from_store else "line")
    weighting = args.weights or "relative"
    total = len(table)
    table = _filter(table, args)
    baseline = _filter(baseline, args) if baseline is not None else None
    if len(table) < 3:
        raise PerfgateError(_too_few(table, total, args))
    params = table.letters()
    names = table.names()
    candidates = _candidates(args, params)
    benchmark = args.benchmark or table.name
    every = _expectations(args.check) if args.check is not None else []
    expectations = [e for e in every if e.matches(benchmark)]
    if args.check is not None and not expectations:
        # a gate that checks nothing must not pass: a stored run named without its suite matched
        # no "async-deinit/*" and fit --check exited 0 on a known quadratic knee
        raise PerfgateError(f"--check: no complexity expectation matches benchmark {benchmark!r} (patterns: "
                            f"{', '.join(sorted({e.pattern for e in every})) or 'none'}); name it with --benchmark")
    knee_letter = _knee_letter(args.knee, bool(expectations), params, table)
    baseline_phases = {key: y for key, _, y in _phases(baseline, args.phases)} if baseline is not None else {}
    results = []
    for key, label, y in _phases(table, args.phases):
        try:
            scale = None
            if baseline is not None:
                if weighting == "relative":
                    scale = _noise_scale(candidates, params, y, baseline_phases[key], not args.no_robust)
                y = y - baseline_phases[key]
            found = analyse(candidates, params, y, auto=args.auto or not args.params, knee=knee_letter,
                            weighting=weighting, robust=not args.no_robust, noise_scale=scale)
            fit, selection, knee = found.fit, found.selection, found.knee
        except (FitError, TermError) as e:
            raise PerfgateError(f"{table.source}: {label}: {e}") from None
        verdicts = [check(e, label, fit, knee, params, names) for e in expectations]
        results.append((key, label, y, fit, selection, knee, verdicts))

    if args.plot:
        _plot(args.plot, benchmark, names, params, results, table.unit)
    recorded = _record(args, benchmark, table, names, results) if args.record else None
    violated = any(not v.ok for *_, verdicts in results for v in verdicts)
    if args.json:
        emit_json({"benchmark": benchmark, "source": table.source, "points": len(table),
                   "parameters": names, "unit": table.unit, "diff": args.diff,
                   "phases": [_phase_json(key, label, fit, selection, knee, verdicts, names, _measure(table))
                              for key, label, _, fit, selection, knee, verdicts in results],
                   "recorded": recorded, "violated": violated})
    else:
        _print(results, names, len(table), args, _measure(table))
        if recorded:
            err.print(f"recorded {recorded['metrics']} complexity metrics for {benchmark} "
                      f"as a run of {recorded['branch']}@{recorded['commit'][:12]}", markup=False, soft_wrap=True)
    return EXIT_REGRESSION if violated else EXIT_OK


# --- input ----------------------------------------------------------------------------------

def _load(args: argparse.Namespace) -> tuple[ScalingTable, ScalingTable | None]:
    """The dataset, and the --diff baseline (None without --diff)."""
    if args.from_store:
        if args.files or args.diff:
            raise PerfgateError("--from-store takes no files and no --diff")
        return _from_store(args), None
    if not 1 <= len(args.files) <= 2:
        raise PerfgateError("give RESULTS, or INPUTS RESULTS, or --from-store NAME")
    table = _read_results(args.files)
    if not args.diff:
        return table, None
    baseline = _read_results(args.files[:-1] + [args.diff])
    _check_same_inputs(table, baseline)
    return table, baseline


def _check_magnitudes(table: ScalingTable, where: str) -> None:
    """Refuse values a cost model cannot fit: it squares terms and costs and weighs rows by
    1/cost², which overflow past |value| 1e100 (or under 1e-100) and made the fit end in a
    traceback of infinities."""
    for column, values in {**table.params, **table.phases}.items():
        size = np.abs(values)
        bad = np.flatnonzero((size != 0) & ((size < MAGNITUDE[0]) | (size > MAGNITUDE[1])))
        if bad.size:
            i = int(bad[0])
            raise InputError(table.source, f"{where} {table.lines[i]}",
                             f"{column} = {values[i]:g} is beyond what a cost model can fit (|value| from "
                             f"{MAGNITUDE[0]:g} to {MAGNITUDE[1]:g}, or 0); give the column in another unit")


def _read_results(files: list[str]) -> ScalingTable:
    results = parse_table(read_text(files[-1]), files[-1])
    if len(files) == 2:
        results = combine(parse_inputs(read_text(files[0]), files[0]), results, files[0])
    elif not results.params:
        raise InputError(files[-1], "", "no parameter columns; give the inputs file first: perfgate fit INPUTS RESULTS")
    return results


def _check_same_inputs(table: ScalingTable, baseline: ScalingTable) -> None:
    if len(table) != len(baseline):
        raise InputError(baseline.source, "", f"{len(baseline)} rows but {table.source} has {len(table)}; "
                         "--diff needs two runs on the same inputs")
    for name, values in table.params.items():
        other = baseline.params.get(name)
        if other is None:
            raise InputError(baseline.source, "", f"has no {name!r} column")
        bad = np.nonzero(values != other)[0]
        if len(bad):
            i = int(bad[0])
            raise InputError(baseline.source, f"line {baseline.lines[i]}", f"{name} = {other[i]:g} but "
                             f"{table.source} line {table.lines[i]} has {values[i]:g}; --diff needs the same inputs")
    missing = set(table.phases) - set(baseline.phases)
    if missing:
        raise InputError(baseline.source, "", f"has no {', '.join(sorted(missing))} column")


def _noise_scale(candidates, params, y: np.ndarray, y_base: np.ndarray, robust: bool) -> np.ndarray:
    """Noise scale of ``y − y_base`` when each run's noise is multiplicative: with
    ``sd(y) = σ·μ`` and ``sd(y_base) = σ·μ_base``, ``sd(y − y_base) = σ·√(μ² + μ_base²)``, with each
    μ estimated by fitting that run on its own."""
    mu = analyse(candidates, params, y, robust=robust).fit.fitted
    mu_base = analyse(candidates, params, y_base, robust=robust).fit.fitted
    return np.hypot(mu, mu_base)


def _from_store(args: argparse.Namespace) -> ScalingTable:
    name, _, commit = args.from_store.partition("@")
    with store_from(args) as store:
        for summary in store.runs():
            if commit and not summary.commit.startswith(commit):
                continue
            run = store.get_run(summary.run_id)
            # Named as recorded, or with its suite first (as complexity.toml's patterns, the pages
            # and check name it): the table then carries the suite, so --check finds its expectation.
            # A check's side records its suites as a list.
            suites = [s for s in run.context.get("suites") or [run.context.get("suite")] if isinstance(s, str)]
            suite = next((s for s in suites if name.startswith(f"{s}/")), suites[0] if len(suites) == 1 else None)
            own = name.removeprefix(f"{suite}/") if suite else name
            points = [m for m in run.metrics if m.benchmark.startswith(own + "/") and m.is_scaling_point()]
            if points:
                full = f"{suite}/{own}" if suite else own
                return table_from_metrics(full, points, f"{args.store} run {summary.run_id}")
    at = f" at commit {commit}" if commit else ""
    raise PerfgateError(f"no scaling run of {name!r}{at} in {visible(args.store)} (ingest one with --adapter scaling-tsv)")


def _filter(table: ScalingTable, args: argparse.Namespace) -> ScalingTable:
    keep = np.ones(len(table), dtype=bool)
    for bound in ("min", "max"):
        for param in ("values", "objects"):
            limit = getattr(args, f"{bound}_{param}")
            if limit is None:
                continue
            if param not in table.params:
                raise PerfgateError(f"--{bound}-{param}: the data has no {param!r} parameter "
                                    f"(it has: {', '.join(table.params) or 'none'})")
            x = table.params[param]
            keep &= x >= limit if bound == "min" else x <= limit
    return table.subset(keep)


def _too_few(table: ScalingTable, total: int, args: argparse.Namespace) -> str:
    """Named with the file, and with the filters only when some were given (the message once
    blamed "the filters" of a plain `fit FILE`)."""
    given = [f"--{bound}-{param} {getattr(args, f'{bound}_{param}'):g}" for bound in ("min", "max")
             for param in ("values", "objects") if getattr(args, f"{bound}_{param}") is not None]
    n = len(table)
    points = f"only {n} data point{'' if n == 1 else 's'}"
    left = f" of {total} left after {' '.join(given)}" if given else ""
    return f"{table.source}: {points}{left}; a fit needs at least 3"


def _phases(table: ScalingTable, spec: str | None) -> list[tuple[str, str, np.ndarray]]:
    """(key, label, y) per requested phase.  E is derived as T − S."""
    available = {k[0].upper(): (PHASE_LABELS.get(k[0].upper(), k.capitalize()), v) for k, v in table.phases.items()}
    if "S" in available and "T" in available and "E" not in available:
        available["E"] = (PHASE_LABELS["E"], available["T"][1] - available["S"][1])
    keys = [k.strip().upper() for k in spec.split(",")] if spec else [k for k in "SET" if k in available] + \
        [k for k in available if k not in "SET"]
    out = []
    for key in keys:
        if key not in available:
            raise PerfgateError(f"-y {spec}: phase {key!r} is not in the data (it has: {', '.join(available)})")
        out.append((key, *available[key]))
    return out


def _candidates(args: argparse.Namespace, params: dict[str, np.ndarray]):
    if not args.params:
        return default_terms(params)
    try:
        terms = parse_terms(args.params)
    except TermError as e:
        raise PerfgateError(f"-p {args.params}: {e}") from None
    missing = letters(terms) - set(params)
    if missing:
        raise PerfgateError(f"-p {args.params}: the data has no parameter for {', '.join(sorted(missing))} "
                            f"(it has: {', '.join(sorted(params))})")
    return terms


def _knee_letter(knee: str | None, checking: bool, params, table: ScalingTable) -> str | None:
    """The parameter to search for a knee in: --knee's, or objects when checking expectations."""
    if knee:
        if knee[0].lower() not in params:
            raise PerfgateError(f"--knee {knee}: the data has no such parameter (it has: {', '.join(table.params)})")
        return knee[0].lower()
    return "o" if checking and "o" in params else None


def _expectations(path: str):
    if not path:
        folder = default_path()
        if folder is None or not (folder / "complexity.toml").is_file():
            raise PerfgateError("--check: no thresholds/complexity.toml here; name the file: --check FILE")
        path = str(folder / "complexity.toml")
    return parse_expectations(read_text(path), path)


# --- analysis -------------------------------------------------------------------------------

# --- output ---------------------------------------------------------------------------------

def _measure(table: ScalingTable) -> str:
    """A measure name ending in the table's unit (``cost-ns``): coefficients, intervals and knee
    models are written in it (``340 ns⋅o + 120 µs``) as the trend pages write them."""
    return f"cost-{table.unit}"


def _print(results, names: dict[str, str], n: int, args: argparse.Namespace, measure: str) -> None:
    width = max(len(label) for _, label, *_ in results)
    for key, label, y, fit, selection, knee, verdicts in results:
        pad = " " * (width + 2)
        if knee is not None and knee.found:
            # The knee model beat every model without one by BIC: it is the headline, and the
            # best polynomial (whose R² can be poor, or its cost below zero) the comparison.
            out.print(f"{label.ljust(width)}: {knee.describe(names.get(knee.param, knee.param), measure)}; R² = {knee.r2:.4f}",
                      markup=False, soft_wrap=True)
            out.print(f"{pad}without a knee: {fit.summary(measure=measure)} (ΔBIC {knee.delta_bic:.1f} worse)", markup=False,
                      soft_wrap=True)
        else:
            # The seeds' R² (unweighted) first, then the one in the fit's own metric: a relative
            # fit over costs spanning decades read "R² = 0.0150" beside a weighted 0.9774.
            fitted = f" (weighted, as fitted: {fit.r2_weighted:.4f})" if fit.weighting != "none" else ""
            out.print(f"{label.ljust(width)}: {fit.summary(measure=measure)}{fitted}", markup=False, soft_wrap=True)
        out.print(f"{pad}95% CI: {fit.intervals(measure)}", markup=False, style="dim", soft_wrap=True)
        if fit.below_zero:
            out.print(f"{pad}warning: {fit.below_zero_text()}", markup=False, style="yellow", soft_wrap=True)
        if selection is not None and len(selection.ranking) > 1:
            runner, delta = selection.ranking[1], selection.delta_bic
            # a runner-up with no more terms scores better by the common weights only: the chosen
            # model won when each was fitted with its own (see complexity/selection.py)
            extra = len(runner.terms) > len(selection.ranking[0].terms)
            why = (f"ΔBIC {delta:.1f} worse" if delta >= 0 else
                   f"ΔBIC {-delta:.1f} better, too little for its extra terms" if extra else
                   f"ΔBIC {-delta:.1f} better, too little to tell them apart")
            out.print(f"{pad}chosen by BIC among {len(selection.ranking)} models; next best {runner.spec}: {why}",
                      markup=False, style="dim", soft_wrap=True)
        if knee is not None and args.knee and not knee.found:
            out.print(f"{pad}{knee.describe(names.get(knee.param, knee.param), measure)}", markup=False, soft_wrap=True)
        for v in verdicts:
            mark = "ok" if v.ok else "VIOLATED"
            out.print(f"{pad}{mark}: {v.reason}", markup=False, style=None if v.ok else "bold red", soft_wrap=True)
            if v.extrapolation:
                out.print(f"{pad}{v.extrapolation}", markup=False, style="dim", soft_wrap=True)
    out.print(f"[dim]{n} points; weighting {results[0][3].weighting}, "
              f"{'Huber-robust' if results[0][3].robust else 'least squares'}[/dim]")


def _phase_json(key, label, fit: Fit, selection, knee, verdicts: list[Verdict], names, measure: str) -> dict:
    # the texts as printed; the numbers themselves stay in the table's unit
    return {"phase": key, "label": label, "fit": fit.as_dict(measure), "summary": fit.summary(measure=measure),
            "selection": selection.as_dict() if selection else None,
            "knee": {**knee.as_dict(), "formula": knee.model(measure), "param": names.get(knee.param, knee.param)}
            if knee else None,
            "verdicts": [v.as_dict() for v in verdicts]}


def _plot(path: str, title: str, names, params, results, unit: str) -> None:
    from perfgate.complexity.plot import fit_figure

    if Path(path).suffix.lower() not in (".svg", ".png"):
        raise PerfgateError(f"--plot {path}: the file must end in .svg or .png")
    fig = fit_figure(title, names, params, [(label, y, fit, knee) for _, label, y, fit, _, knee, _ in results], unit)
    buf = io.BytesIO()
    fig.savefig(buf, format=Path(path).suffix.lower()[1:])
    write_atomic(path, buf.getvalue())  # never leave a half-written plot behind


def _record(args, benchmark: str, table: ScalingTable, names, results) -> dict:
    """One run whose metrics are the fits: benchmark ``NAME/phase``, measure ``complexity:TERM``
    (value = coefficient, lower/upper = its 95% interval) and ``complexity:knee-PARAM``."""
    branch, commit, testbed = resolve_identity(args)
    metrics = []
    for key, label, _, fit, selection, knee, _ in results:
        bench = f"{benchmark}/{label.lower()}"
        attrs = {"model": ",".join(t.spec for t in fit.terms), "formula": fit.formula(), "r2": fit.r2,
                 "adj_r2": fit.adj_r2, "points": fit.n, "source": table.source}
        for t, c, lo, hi in zip(fit.terms, fit.coef, fit.ci_low, fit.ci_high):
            metrics.append(Metric(bench, f"complexity:{t.spec}", float(c), float(lo), float(hi), attrs=attrs))
        if knee is not None and knee.found:
            metrics.append(Metric(bench, f"complexity:knee-{names.get(knee.param, knee.param)}", knee.location,
                                  knee.low, knee.high, attrs={**attrs, "knee": knee.as_dict()}))
    now = time.time()
    new_run = Run(args.project, branch, commit, testbed, metrics, start_time=now, end_time=now,
                  adapter="perfgate-fit", context={"complexity_of": benchmark, "source": table.source})
    new_run.start_time = None  # the content key must not depend on the clock: a retry is a no-op
    new_run.with_key()
    new_run.start_time = now
    with store_from(args, create=True) as store:
        added = store.add_run(new_run)
    return {"added": added, "branch": branch, "commit": commit, "metrics": len(metrics)}
