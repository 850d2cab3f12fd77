"""perfgate: continuous performance regression detection for CI."""

__version__ = "0.1.0"
