"""Send runs to Bencher in order, exactly once, and lose none when the server is away.

Order: the spool is flushed before anything new is sent; while it cannot be emptied, new runs
join its end.  A run whose send fails on the network, 5xx or 429 (after the client's retries)
goes to the spool together with every run after it.  Exactly once: each body carries an
idempotency key, so a resend after an unknown outcome (say, a connection dropped after the
server stored the run) returns the stored report instead of a duplicate.  A run the server
refuses (4xx on ``POST /v0/run``, e.g. a short commit hash) is set aside in the spool's
``rejected/`` folder with the reason, and the runs after it are still sent; a refusal that is not
about the run (the token, the project) stops the batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from perfgate.bencher import alerts as alerts_mod
from perfgate.bencher.bootstrap import Bootstrap
from perfgate.bencher.client import BencherClient, BencherError, BencherRejected, BencherUnreachable, \
    require_uuid, shaped
from perfgate.bencher.spool import Spool


# Seconds by which a report must predate the server's answer to be one stored by an earlier send
# (the Date header has a resolution of one second).
DUPLICATE_AGE = 3.0


@dataclass
class Outcome:
    branch: str
    hash: str
    testbed: str
    idempotency_key: str
    status: str                            # "published" | "spooled" | "rejected"
    report: str | None = None              # Bencher report UUID when published
    alerts: list[alerts_mod.BencherAlert] = field(default_factory=list)
    spooled_at: str | None = None          # the spool (or rejected/) file
    reason: str | None = None              # why the server refused it
    duplicate: bool = False                # the server already held this run (same idempotency key)


@dataclass
class FlushResult:
    sent: list[Outcome] = field(default_factory=list)
    remaining: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)   # (moved-to path, reason)
    error: str | None = None                                       # why sending stopped


class Publisher:
    def __init__(self, client: BencherClient, project: str, spool: Spool, bootstrap: Bootstrap | None = None):
        self.client, self.project, self.spool = client, project, spool
        self.bootstrap = bootstrap or Bootstrap(client, project)
        # Where spooled runs go back to; the token is not part of it.
        self.target = f"{client.base_url}/{project}"
        self.created: list[str] = []      # what bootstrapping created on the server, e.g. "measure peak-rss"

    def send(self, body: dict[str, Any]) -> Outcome:
        """One run, now.  Raises BencherUnreachable (outcome unknown) or BencherRejected."""
        try:
            self.created += self.bootstrap.for_body(body).created
        except BencherRejected as e:
            if e.status in (401, 403) or e.path.rstrip("/").endswith(f"/projects/{self.project}") \
                    or "/organizations" in e.path:
                raise _setup_error(e, self.project) from None
            e.about_run = True      # e.g. a branch or measure name of this run the server refuses
            raise
        report, server_now = self.client.request_dated("POST", "/v0/run", json=body)
        outcome = self._published(body, report, server_now)
        self.spool.mark_sent(self.target, outcome.idempotency_key)
        self.spool.forget_rejected(outcome.idempotency_key)   # a run refused once, accepted now
        return outcome

    @shaped("the report POST /v0/run returned")
    def _published(self, body: dict[str, Any], report: dict[str, Any], server_now: float | None) -> Outcome:
        found = [alerts_mod.from_json(a) for a in report.get("alerts") or []]
        # The idempotency key answers a resend with the report stored earlier: seen here before,
        # or created well before the server's own clock says it answered (no client clock skew).
        created = datetime.fromisoformat(report["created"].replace("Z", "+00:00")).timestamp()
        earlier = self.spool.was_sent(self.target, body.get("idempotency_key") or "") or \
            (server_now is not None and created < server_now - DUPLICATE_AGE)
        return _outcome(body, "published", report=require_uuid(report["uuid"], "the new report an id"),
                        alerts=found, duplicate=earlier)

    def flush(self) -> FlushResult:
        with self.spool.turn():
            return self._flush()

    def _flush(self) -> FlushResult:
        result = FlushResult()
        for path, reason in self.spool.unreadable():
            result.rejected.append((str(self.spool.set_aside(path, reason)), reason))
        entries = self.spool.pending(self.target)
        for i, entry in enumerate(entries):
            try:
                result.sent.append(self.send(entry.body))
            except BencherUnreachable as e:
                result.remaining, result.error = len(entries) - i, str(e)
                return result
            except BencherRejected as e:
                if not _about_the_run(e):
                    raise
                result.rejected.append((str(self.spool.reject(entry, str(e))), str(e)))
                continue
            self.spool.remove(entry)
        return result

    def publish(self, bodies: list[dict[str, Any]]) -> tuple[list[Outcome], FlushResult]:
        """Send ``bodies`` in order after whatever the spool holds.  Returns their outcomes and
        what the flush of older spooled runs did.  A run the server refuses is set aside (outcome
        ``rejected``) and the next one is sent; a refusal of the token or the project raises
        (earlier runs are on the server, nothing after it is sent)."""
        with self.spool.turn():
            return self._publish(bodies)

    def _publish(self, bodies: list[dict[str, Any]]) -> tuple[list[Outcome], FlushResult]:
        flushed = self._flush()
        outcomes: list[Outcome] = []
        for i, body in enumerate(bodies):
            if flushed.remaining:
                outcomes.extend(self._spool(b) for b in bodies[i:])
                break
            try:
                outcomes.append(self.send(body))
            except BencherUnreachable as e:
                flushed.error = str(e)
                outcomes.extend(self._spool(b) for b in bodies[i:])
                break
            except BencherRejected as e:
                if not _about_the_run(e):
                    raise
                outcomes.append(self._reject(body, str(e)))
        return outcomes, flushed

    def _reject(self, body: dict[str, Any], reason: str) -> Outcome:
        path = self.spool.put_rejected(self.target, body, reason)
        return _outcome(body, "rejected", spooled_at=str(path), reason=reason)

    def _spool(self, body: dict[str, Any]) -> Outcome:
        path = self.spool.put(self.target, body)
        return _outcome(body, "spooled", spooled_at=str(path))


def _outcome(body: dict[str, Any], status: str, **kw: Any) -> Outcome:
    return Outcome(branch=body.get("branch") or "", hash=body.get("hash") or "", testbed=body.get("testbed") or "",
                   idempotency_key=body.get("idempotency_key") or "", status=status, **kw)


def _about_the_run(e: BencherRejected) -> bool:
    """A refusal of the run itself (its hash, its results), not of the token or the project."""
    return (e.path == "/v0/run" or getattr(e, "about_run", False)) and e.status not in (401, 403)


def _setup_error(e: BencherRejected, project: str) -> BencherError:
    """A refused GET/POST while preparing the project says which call failed, and why."""
    hint = ""
    if e.path.rstrip("/").endswith(f"/projects/{project}") or e.status in (400, 404):
        hint = f"; check the project slug {project!r} in --to/--store"
    if e.status in (401, 403):
        hint = "; check BENCHER_API_TOKEN and its permissions on the project"
    return BencherError(f"Bencher project {project!r}: {e}{hint}")
