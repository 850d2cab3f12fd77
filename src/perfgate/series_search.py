"""The change point search of one stored series, built and fitted as ``detect`` and the pages
both run it, so that what the pages draw is what ``detect`` alerts on: the measure's direction,
the runs' raw samples, and a wall-time series' runs measured under load left out
(``detect.load_search``).  Here, not in ``detect/``, whose modules take plain numbers."""

from __future__ import annotations

from perfgate.detect.changepoint import ChangePointDetector
from perfgate.detect.load_search import fitted
from perfgate.model import Measure
from perfgate.store import Point, SeriesKey, raw_samples
from perfgate.thresholds import SeriesThresholds


def fitted_detector(key: SeriesKey, points: list[Point], settings: SeriesThresholds):
    """A ChangePointDetector fitted to the series (or a ``load_search.WithoutLoaded`` around one)."""
    detector = ChangePointDetector(settings.change_point, Measure.named(key.measure).lower_is_better)
    return fitted(detector, key.measure, [p.value for p in points], raw_samples(points), [p.load for p in points])
