"""Create what a run needs on the server: the project, its branch, testbed and measures.

``POST /v0/run`` would create missing branches, testbeds and measures itself, but a measure it
creates gets no units; bootstrapping first gives perfgate's measures (``instructions``,
``peak-rss``, ...) their real units, and turns a token without ``create`` permission into one
clear message that lists what is missing instead of a failure half-way through a batch.
A branch that will be created with a start point is left to ``POST /v0/run``, which is the only
call that copies the start point's history.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from perfgate.bencher.client import BencherClient, BencherError, BencherRejected, shaped
from perfgate.model import Measure

KINDS = {"branch": "branches", "testbed": "testbeds", "measure": "measures"}


def slug_of(name: str) -> str:
    """The slug Bencher derives from a name: lower case, runs of other characters as one ``-``.
    A BMF measure key resolves to the measure with that slug, so ``latency`` is the built-in
    measure named ``Latency``."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def measure_name(measure: dict) -> str:
    """perfgate's name for a Bencher measure: its slug when the name is only a case variant of it
    (the built-in ``Latency`` is ``latency``), else its name when that is what made the slug
    (``ops (bigger is better)`` keeps the direction it states), else the slug."""
    name, slug = str(measure.get("name", "")), measure.get("slug") or slug_of(str(measure.get("name", "")))
    if name.lower() != slug and slug_of(name) == slug:
        return name
    return slug


def find_measure(measures: list[dict], name: str) -> dict | None:
    """The measure a perfgate measure name means: the one whose slug is the name's slug (the
    oldest, when a project already holds duplicates), else one with that name in any case."""
    want = slug_of(name)
    by_slug = [m for m in measures if m.get("slug") == want]
    if by_slug:
        return by_slug[0]
    return next((m for m in measures if str(m.get("name", "")).lower() == name.lower()), None)


@dataclass
class BootstrapReport:
    created: list[str] = field(default_factory=list)   # e.g. "measure peak-rss"
    existing: list[str] = field(default_factory=list)


def needs(body: dict[str, Any]) -> tuple[str | None, str | None, set[str]]:
    """(branch to create or None, testbed, measures) that a ``JsonNewRun`` body refers to."""
    measures: set[str] = set()
    for text in body.get("results", []):
        for by_measure in json.loads(text).values():
            measures.update(by_measure)
    measures.update((body.get("thresholds") or {}).get("models") or {})
    branch = None if body.get("start_point") else body.get("branch")
    return branch, body.get("testbed"), measures


class Bootstrap:
    def __init__(self, client: BencherClient, project: str, organization: str | None = None):
        self.client, self.project = client, project
        self.organization = organization or os.environ.get("BENCHER_ORGANIZATION") or None
        self._known: set[tuple[str, str]] = set()
        self._project_checked = False

    def for_body(self, body: dict[str, Any]) -> BootstrapReport:
        branch, testbed, measures = needs(body)
        wanted = [("branch", branch), ("testbed", testbed)] + [("measure", m) for m in sorted(measures)]
        return self.ensure([(kind, name) for kind, name in wanted if name])

    def ensure(self, wanted: Iterable[tuple[str, str]]) -> BootstrapReport:
        report = BootstrapReport()
        if not self._project_checked:
            self._ensure_project(report)
        missing: list[tuple[str, str]] = []
        measures: list[dict] | None = None
        for kind, name in wanted:
            if (kind, name) in self._known:
                continue
            if kind == "measure":  # by slug, as the server resolves BMF keys
                measures = self._measures() if measures is None else measures
                found = find_measure(measures, name)
            else:
                found = self.client.request("GET", f"/v0/projects/{self.project}/{KINDS[kind]}",
                                            params={"name": name}, expect=list)
            if found:
                report.existing.append(f"{kind} {name}")
                self._known.add((kind, name))
            else:
                missing.append((kind, name))
        for kind, name in missing:
            body: dict[str, Any] = {"name": name}
            if kind == "measure":
                body["units"] = Measure.named(name).units or "units"
            try:
                self.client.request("POST", f"/v0/projects/{self.project}/{KINDS[kind]}", json=body)
            except BencherRejected as e:
                if e.status in (401, 403):
                    names = ", ".join(f"{k} {n!r}" for k, n in missing)
                    raise BencherError(
                        f"Bencher project {self.project!r} lacks {names}, and the token may not create them "
                        f"(HTTP {e.status}: {e.server_message}). Create them in the Bencher console or use a "
                        f"token with 'create' permission on the project.") from None
                raise
            report.created.append(f"{kind} {name}")
            self._known.add((kind, name))
        return report

    def _measures(self) -> list[dict]:
        return self.client.list_all(f"/v0/projects/{self.project}/measures")

    def _ensure_project(self, report: BootstrapReport) -> None:
        try:
            self.client.request("GET", f"/v0/projects/{self.project}", expect=dict)
            report.existing.append(f"project {self.project}")
        except BencherRejected as e:
            if e.status != 404:
                raise
            org = self.organization or self._only_organization()
            try:
                self.client.request("POST", f"/v0/organizations/{org}/projects",
                                    json={"name": self.project, "slug": self.project})
            except BencherRejected as e2:
                if e2.status in (401, 403):
                    raise BencherError(
                        f"Bencher project {self.project!r} does not exist and the token may not create it in "
                        f"organization {org!r} (HTTP {e2.status}: {e2.server_message}).") from None
                if e2.status == 404 and self.organization:   # the organization is what is missing, not the project
                    raise BencherError(
                        f"Bencher project {self.project!r} does not exist and organization {org!r} to create it "
                        f"in was not found (HTTP 404: {e2.server_message}); check BENCHER_ORGANIZATION "
                        "(an organization slug the token can see)") from None
                raise
            report.created.append(f"project {self.project}")
        self._project_checked = True

    @shaped("the organizations")
    def _only_organization(self) -> str:
        orgs = self.client.list_all("/v0/organizations")
        if len(orgs) == 1:
            return orgs[0]["slug"]
        if not orgs:
            raise BencherError(f"Bencher project {self.project!r} does not exist and the token sees no "
                               "organization to create it in")
        slugs = ", ".join(o["slug"] for o in orgs)
        raise BencherError(f"Bencher project {self.project!r} does not exist; set BENCHER_ORGANIZATION to "
                           f"the organization to create it in (one of: {slugs})")
