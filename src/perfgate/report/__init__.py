"""Reporters: what users read.  ``markdown`` is the pull-request comment; ``pages`` writes the
trend pages and their Atom feed, from ``series_data``, ``sweeps`` and ``threshold_band``."""
