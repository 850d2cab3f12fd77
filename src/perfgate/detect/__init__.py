"""Pure detection layer: noise model, change points, threshold tests and the A/B comparison.

Nothing here does I/O or imports a store, a container or the CLI; every function works on plain
numbers (numpy arrays, ``perfgate.model`` dataclasses), so each can be tested on its own.

* :mod:`.noise` — relative scale, robust noise, winsorizing, autocorrelation
* :mod:`.stats` — rank test, mean test, Hodges–Lehmann, Benjamini–Hochberg
* :mod:`.changepoint` — ``detect_change_points(values, settings, lower_is_better)``
* :mod:`.pelt` — the exact penalised search the change points start from (PELT in C)
* :mod:`.elimination` — weakest-first elimination over the chain of candidates
* :mod:`.location` — where a change starts, and the range of runs it could be
* :mod:`.modes` — visits to a second mode, told apart from changes
* :mod:`.threshold_tests` — Bencher-compatible tests with alerted values kept out of baselines
* :mod:`.threshold_verdicts` — every value of a series judged by its threshold test at once
* :mod:`.load_hold` — a wall-time streak the machine's load explains is held until later runs decide
* :mod:`.load_search` — the change point search of a wall-time series without its loaded runs
* :mod:`.compare` — ``compare_runs(base, head, thresholds=None, alpha=0.05) -> Comparison``;
  ``compare_rounds`` for ``perfgate check``'s interleaved rounds
* :mod:`.rounds` — paired t across rounds, its MDE, alpha spending for sequential checks
* :mod:`.bisection` — which commit ``perfgate bisect`` measures next, and how a measurement is judged
"""
