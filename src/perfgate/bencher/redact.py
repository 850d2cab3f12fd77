"""Bencher's view of the shared redaction helper (:mod:`perfgate.redact`) and its logger."""

from perfgate.redact import MASK, RedactingFilter, Secret, redact, redacting_logger, register

log = redacting_logger("perfgate.bencher")

__all__ = ["MASK", "RedactingFilter", "Secret", "log", "redact", "register"]
