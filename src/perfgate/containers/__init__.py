"""Pinned containers: the Docker engine, image builds with caching, the suite runner, the
``bench.toml`` manifest and the testbed fingerprint.  Everything that touches Docker lives here."""
