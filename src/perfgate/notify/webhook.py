"""A generic webhook: one JSON POST per event, with a Slack-compatible ``text`` field (so a Slack
or Mattermost incoming-webhook URL works as is) and the structured fields beside it.

The URL is treated as a secret (a Slack webhook URL is one): messages show only its host.  Each
POST carries the event's id in ``Idempotency-Key`` (and ``event_id`` in the body): a resend after
a crash between sending and recording repeats the same key, and a receiver that de-duplicates on
it (the common convention; Slack itself does not) sees the event once.

Slack and Mattermost post every copy, so a POST is sent again only when it cannot have arrived
(``acted_on_arrival``): a slow receiver is waited for (``PERFGATE_NOTIFY_ANSWER_TIMEOUT``, 60 s)
instead of being sent the message again at every timeout, and one that does not answer in time
has the event spooled for the next run (it may show twice then; it is never lost).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from perfgate import __version__
from perfgate.urls import split_url
from perfgate.notify import render
from perfgate.notify.base import Channel, Links, RefLookup
from perfgate.notify.events import Event, alert_json
from perfgate.http_client import Http, RetryPolicy
from perfgate.redact import Secret, register


def idempotency_key(event: Event) -> str:
    """Stable per event, short enough for any receiver's header limits."""
    return hashlib.sha256(event.id.encode()).hexdigest()[:32]


def payload(event: Event, links: Links) -> dict[str, Any]:
    a = event.alert
    return _finite({
        "text": render.plain_text(event, links),
        "event_id": event.id,
        "event": event.kind,
        "reason": event.reason or None,
        "alert": {**alert_json(a), "status": status(event)},
        "related": alert_json(event.related) if event.related else None,
        "links": {"commit": render.commit_url(links, a.commit) or None,
                  "range": render.range_url(links, a) or None,
                  "trend": render.trend_url(links, a) or None},
        "source": f"perfgate/{__version__}",
    })


def status(event: Event) -> str:
    """The alert's status as the receiver should keep it: a closing event's reason ("undone",
    "withdrawn", "acknowledged").  The store keeps an undone or no-longer-found regression
    "active" (it can still be acknowledged), and the close said so, telling a receiver that
    mirrors alerts by id to reopen the alert it was closing.  Taken from the event, not the store,
    so a resent event carries the same body."""
    return event.reason if event.kind == "closed" and event.reason else event.alert.status


def _finite(node: Any) -> Any:
    """NaN and infinities as null: strict JSON has no word for them (a threshold alert without
    a baseline has no magnitude)."""
    if isinstance(node, float) and not math.isfinite(node):
        return None
    if isinstance(node, dict):
        return {k: _finite(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_finite(v) for v in node]
    return node


class WebhookChannel(Channel):
    kind = "webhook"

    def __init__(self, url: str, links: Links, *, policy: RetryPolicy | None = None, **http_kw: Any):
        parts = split_url(url, "--channel webhook:URL")
        super().__init__(url)
        self._secret = Secret(url)
        register(self._secret)      # the URL never appears in a message or log, nor its path
        secret_part = parts.path + (f"?{parts.query}" if parts.query else "")
        if len(secret_part) > 8:    # (Slack's secret is the path; some hooks put a token in the query)
            register(Secret(secret_part))
        self.host = parts.netloc.rsplit("@", 1)[-1]
        self.links = links
        self.http = Http(f"webhook {self.host}", policy=policy, **http_kw)

    @property
    def label(self) -> str:
        return f"webhook:{self.host}/…"

    def handles(self, event: Event) -> bool:
        # A recurrence is already a "raised" message of its own; a chat needs no second one.
        return event.kind != "again"

    def deliver(self, event: Event, refs: RefLookup) -> str | None:
        self.http.request("POST", self._secret.reveal(), json=payload(event, self.links),
                          headers={"Idempotency-Key": idempotency_key(event), "X-Perfgate-Event": event.kind},
                          acted_on_arrival=True)
        return None

    def close(self) -> None:
        self.http.close()
