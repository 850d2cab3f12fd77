"""Complexity fitting, pure (no I/O): cost models over scaling parameters, automatic model
selection, knee detection and complexity expectations.

- :mod:`.terms`        term specs such as ``vo2,vo,o,1`` and the design matrix
- :mod:`.regression`   weighted, Huber-robust least squares with intervals, R²
- :mod:`.selection`    which terms the data needs (BIC over subsets)
- :mod:`.knee`         where the per-unit cost changes regime, with an interval
- :mod:`.expectations` "linear in objects up to 50,000" and the verdict against a fit
"""
