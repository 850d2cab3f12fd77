"""Figures of a cost-model fit: cost against each parameter, the model, the knee.

Builds a matplotlib Figure (Agg, no display); the caller saves it.  One row of panels per phase,
one panel per parameter: measured points (coloured by the other parameter when there is one),
the model's predictions, and — on the knee parameter's panel — the knee with its interval shaded.
"""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from perfgate.complexity.knee import Knee  # noqa: E402
from perfgate.complexity.regression import Fit  # noqa: E402


def fit_figure(title: str, names: dict[str, str], params: dict[str, np.ndarray],
               phases: list[tuple[str, np.ndarray, Fit, Knee | None]], unit: str = "ns") -> Figure:
    """``names`` maps parameter letters to column names; ``phases`` is (label, y, fit, knee)."""
    letters = [p for p in names if p in params and np.ptp(params[p]) > 0] or [p for p in names if p in params]
    measure = f"cost-{unit}"   # a name ending in the unit: the titles' models read in it (45.2 ns⋅o)
    knee_panel = any(k is not None and k.found for *_, k in phases)
    cols = max(len(letters), 1) + knee_panel
    fig = Figure(figsize=(5.2 * cols, 3.8 * len(phases)), layout="constrained")
    axes = fig.subplots(len(phases), cols, squeeze=False)
    for row, (label, y, fit, knee) in enumerate(phases):
        for col, letter in enumerate(letters):
            ax = axes[row][col]
            x = params[letter]
            others = [p for p in letters if p != letter and np.ptp(params[p]) > 0]
            colour = params[others[0]] if others else None
            if colour is not None:
                points = ax.scatter(x, y, s=6, c=colour, cmap="viridis", alpha=0.6, linewidths=0, label="measured")
                fig.colorbar(points, ax=ax, label=names[others[0]])
            else:
                ax.scatter(x, y, s=6, color="tab:blue", alpha=0.6, linewidths=0, label="measured")
            order = np.argsort(x)
            if others:
                ax.scatter(x, fit.fitted, s=3, color="tab:red", alpha=0.5, linewidths=0, label="model")
            else:
                ax.plot(x[order], fit.fitted[order], color="tab:red", lw=1.5, label="model")
            if knee is not None and knee.found and knee.param == letter:
                ax.axvspan(knee.low, knee.high, color="tab:orange", alpha=0.25, lw=0)
                ax.axvline(knee.location, color="tab:orange", lw=1.5, ls="--",
                           label=f"knee ≈ {knee.location:,.0f}")
            ax.set_xlabel(names[letter])
            ax.set_ylabel(f"{label} ({unit})")
            ax.set_title(textwrap.fill(f"{label}: {fit.formula(measure=measure)}  (R² {fit.r2:.3f})", 60), fontsize=8)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8, loc="upper left")
        if knee_panel:
            ax = axes[row][-1]
            if knee is not None and knee.found:
                _per_unit_panel(ax, names[knee.param], params[knee.param], y, knee, label, unit, measure)
            else:
                ax.set_axis_off()
    fig.suptitle(title)
    return fig


def _per_unit_panel(ax, name: str, x: np.ndarray, y: np.ndarray, knee: Knee, label: str, unit: str,
                    measure: str) -> None:
    """Cost per unit of the knee parameter on a log axis: flat while linear, rising past the knee."""
    keep = x > 0
    order = np.argsort(x[keep])
    ax.scatter(x[keep], y[keep] / x[keep], s=6, color="tab:blue", alpha=0.5, linewidths=0, label="measured")
    if knee.fitted is not None:
        ax.plot(x[keep][order], (knee.fitted[keep] / x[keep])[order], color="tab:red", lw=1.5, label="knee model")
    ax.axvspan(knee.low, knee.high, color="tab:orange", alpha=0.25, lw=0)
    ax.axvline(knee.location, color="tab:orange", lw=1.5, ls="--", label=f"knee ≈ {knee.location:,.0f}")
    ax.set_xscale("log")
    ax.set_xlabel(f"{name} (log scale)")
    ax.set_ylabel(f"{label} per {name.rstrip('s')} ({unit})")
    ax.set_title(textwrap.fill(f"knee model: {knee.model(measure)}", 60), fontsize=8)
    lo, hi = np.percentile(y[keep] / x[keep], [1, 99])  # a few wild runs must not flatten the curve
    ax.set_ylim(lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo))
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left")
