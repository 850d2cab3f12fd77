"""Send runs to Bencher in order, exactly once, and lose none when the server is away.

Order: the spool is flushed before anything new is sent; while it cannot be emptied, new runs
join its end.  A run whose send fails on the network, 5xx or 429 (after the client's retries)
goes to the spool together with every run after it.  Exactly once: each body carries an
idempotency key, so a resend after an unknown outcome (say, a connection dropped after the
server stored the run) returns the stored report instead of a duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from perfgate.bencher import alerts as alerts_mod
from perfgate.bencher.bootstrap import Bootstrap
from perfgate.bencher.client import BencherClient, BencherRejected, BencherUnreachable
from perfgate.bencher.spool import Spool


@dataclass
class Outcome:
    branch: str
    hash: str
    testbed: str
    idempotency_key: str
    status: str                            # "published" | "spooled"
    report: str | None = None              # Bencher report UUID when published
    alerts: list[alerts_mod.BencherAlert] = field(default_factory=list)
    spooled_at: str | None = None


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
        self.created += self.bootstrap.for_body(body).created
        report = self.client.request("POST", "/v0/run", json=body)
        found = [alerts_mod.from_json(a) for a in report.get("alerts") or []]
        return _outcome(body, "published", report=report["uuid"], alerts=found)

    def flush(self) -> FlushResult:
        result = FlushResult()
        entries = self.spool.pending(self.target)
        for i, entry in enumerate(entries):
            try:
                result.sent.append(self.send(entry.body))
            except BencherUnreachable as e:
                result.remaining, result.error = len(entries) - i, str(e)
                return result
            except BencherRejected as e:
                result.rejected.append((str(self.spool.reject(entry, str(e))), str(e)))
                continue
            self.spool.remove(entry)
        return result

    def publish(self, bodies: list[dict[str, Any]]) -> tuple[list[Outcome], FlushResult]:
        """Send ``bodies`` in order after whatever the spool holds.  Returns their outcomes and
        what the flush of older spooled runs did.  A 4xx for one of ``bodies`` raises (nothing
        after it is sent; earlier ones are on the server)."""
        flushed = self.flush()
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
                raise BencherRejected("POST", "/v0/run", e.status,
                                      f"{e.server_message} (run {body.get('branch')}@{str(body.get('hash'))[:12]}; "
                                      f"{len(outcomes)} earlier run(s) of this batch were published)") from None
        return outcomes, flushed

    def _spool(self, body: dict[str, Any]) -> Outcome:
        path = self.spool.put(self.target, body)
        return _outcome(body, "spooled", spooled_at=str(path))


def _outcome(body: dict[str, Any], status: str, **kw: Any) -> Outcome:
    return Outcome(branch=body.get("branch") or "", hash=body.get("hash") or "", testbed=body.get("testbed") or "",
                   idempotency_key=body.get("idempotency_key") or "", status=status, **kw)
