"""Complexity fitting, pure (no I/O but reading the expectations file): cost models over scaling
parameters, automatic model selection, knee detection and complexity expectations.

- :mod:`.terms`        term specs such as ``vo2,vo,o,1`` and the design matrix
- :mod:`.regression`   weighted, Huber-robust least squares with intervals, R²
- :mod:`.selection`    which terms the data needs (BIC over subsets)
- :mod:`.knee`         where the per-unit cost changes regime, with an interval
- :mod:`.expectations` "linear in objects up to 50,000" and the verdict against a fit
- :mod:`.analysis`     one phase's whole analysis, as ``perfgate fit`` runs it
- :mod:`.compare`      complexity in a pull-request check: both sides fitted and judged
- :mod:`.plot`         figures of a fit (a matplotlib Figure; the caller saves it)
"""
