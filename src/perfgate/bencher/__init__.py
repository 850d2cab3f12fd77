"""A client for a Bencher server (https://bencher.dev, API v0.6.12).

``client``     HTTP with timeouts, retries (exponential backoff with jitter) and redaction
``payload``    perfgate runs -> ``POST /v0/run`` bodies (BMF results, start point, thresholds)
``spool``      runs that could not be sent, kept on disk until ``perfgate publish --flush``
``publisher``  sends runs in order, exactly once, spooling when the server is unreachable
``bootstrap``  creates the project, branches, testbeds and measures a run needs
``alerts``     Bencher's threshold alerts as perfgate verdicts (effect size and confidence)
``alert_memory``  perfgate's own change point alerts for a Bencher-backed history
``commits``    short commit hashes expanded from the checkout (Bencher takes only full ones)
``redact``     the shared redaction helper and logger, as the Bencher modules use them
"""
