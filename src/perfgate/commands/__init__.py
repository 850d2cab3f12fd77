"""One module per CLI verb (see :mod:`perfgate.cli`)."""
