"""Scaling sweeps on the trend pages, from tables ingested through the real CLI: a one-parameter
sweep (the project's headline case: linear per queued object up to ~2,000, then quadratic) gets
its page and one index row, and every place on the page leads with the same model."""

from __future__ import annotations

import json
import random
import re

import pytest

from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.report.sweeps import split_name
from perfgate.store.sqlite import SqliteStore

NAME = "queue_drain"
COMMITS = 5
KNEE_FROM = 3          # the cost turns quadratic past 2,000 objects from this commit on


def _commit(i: int) -> str:
    return f"{i:02d}" + "a" * 38


def _js(path) -> object:
    text = path.read_text(encoding="utf-8")
    return json.loads(text[text.index("=") + 1:text.rindex(";")])


def _table(rng: random.Random, knee: bool) -> str:
    """A one-column table (objects only), as the seeds' driver writes it; objects up to 8,000."""
    lines = [f"# {NAME} --objects=100:8000 --points=80", "#", "# objects total(ns) schedule(ns)"]
    for _ in range(80):
        o = rng.choice(range(100, 8001, 100))
        cost = 30 * o + 500 + (0.05 * (o - 2000) ** 2 if knee and o > 2000 else 0)
        t = cost * rng.lognormvariate(0, 0.03)
        lines.append(f"{o}\t{t:.0f}\t{0.8 * t:.0f}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def one_parameter(tmp_path, cli):
    rng = random.Random(2)
    for i in range(COMMITS):
        path = tmp_path / f"sweep-{i}.tsv"
        path.write_text(_table(rng, i >= KNEE_FROM))
        cli("ingest", str(path), "--adapter", "scaling-tsv", "--branch", "main", "--commit", _commit(i),
            "--testbed", "tb", "--start-time", str(1.7e9 + i * 3600), check=True)
    site = tmp_path / "site"
    counts = json.loads(cli("pages", "--out", str(site), "--json", check=True).stdout)
    return site, counts


def test_a_one_parameter_sweep_gets_its_page_and_one_index_row(one_parameter):
    """`perfgate fit` fitted such a table (knee found) while the pages made no sweep page and listed
    its 80 points one by one (NAME/objects=100, …): the collector wanted two NAME=VALUE pairs."""
    site, counts = one_parameter
    assert counts["sweeps"] == 1 and counts["series"] == 0, counts
    [line] = _js(site / "data" / "index.js")["sweeps"]
    assert line["name"] == NAME and line["commits"] == COMMITS
    assert re.fullmatch(r"total-ns: objects ≈ [12],\d{3}", line["knee"].split("; ")[-1]), line["knee"]
    [sweep] = [_js(p) for p in (site / "data" / "s").glob("*.js")]
    total = next(m for m in sweep["measures"] if m["measure"] == "total-ns")
    latest = total["fits"][-1]
    assert latest["x"] == "objects" and latest["group"] is None and len(latest["curves"]) == 1
    assert latest["knee"]["found"] and 1500 < latest["knee"]["location"] < 2600
    assert not total["fits"][0]["knee"]["found"]


def test_every_place_leads_with_the_model_the_fit_chose(one_parameter):
    """The headline and the index gave the knee model while the table of fits and the coefficient
    history gave the polynomial it beat: each fit now carries the one model it leads with."""
    site, _ = one_parameter
    [sweep] = [_js(p) for p in (site / "data" / "s").glob("*.js")]
    [line] = _js(site / "data" / "index.js")["sweeps"]
    for m in sweep["measures"]:
        for f in m["fits"]:
            lead, knee = f["lead"], f["knee"]
            if knee["found"]:
                assert lead["model"] == "knee" and lead["formula"] == knee["formula"] and lead["r2"] == knee["r2"]
                # its coefficients: the knee model's base terms, then the hinge's
                assert [t["label"] for t in lead["terms"]][-1].startswith("(o − knee)₊")
                assert all("ci_low" not in t for t in lead["terms"])
            else:
                assert lead["model"] == "polynomial" and lead["formula"] == f["formula"] and lead["r2"] == f["r2"]
                assert [t["coef"] for t in lead["terms"]] == [t["coef"] for t in f["terms"]]
        assert {"measure": m["measure"], "formula": m["fits"][-1]["lead"]["formula"]} in line["models"]


def test_the_adapter_s_recorded_numbers_decide_what_is_a_sweep_point(tmp_path, store_path, cli):
    """A point's name rounds (objects=1.23457e+06) or may soon be exact (objects=1234567): either
    way its recorded parameters are its numbers.  Parameters recorded as text (pytest-benchmark's
    `test_x[a=b]`, or a name ending in size=small) are no sweep, nor is a name alone with one pair
    (a store that keeps no parameters: `BenchmarkSort/size=10` is a Go sub-benchmark)."""
    rng = random.Random(4)
    big = [1000, 30000, 250000, 1234567, 2500000]
    metrics = []
    for o in big:
        for name in (f"huge/objects={o:g}", f"exact/objects={o}"):
            metrics.append(Metric(name, "total-ns", 40.0 * o * rng.lognormvariate(0, 0.01),
                                  attrs={"parameters": {"objects": float(o)}}))
    for size in ("small", "large"):
        metrics.append(Metric(f"texty/size={size}", "latency", 1e3, attrs={"parameters": {"size": size}}))
    metrics += [Metric(f"BenchmarkSort/size={n}", "latency", 1e3 * n) for n in (10, 100, 1000, 10000)]
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", _commit(0), Bed("tb"), metrics, start_time=1.7e9)])
    site = tmp_path / "site"
    counts = json.loads(cli("pages", "--out", str(site), "--json", check=True).stdout)
    sweeps = {s["name"]: s for s in map(_js, (site / "data" / "s").glob("*.js"))}
    assert set(sweeps) == {"huge", "exact"} and counts["sweeps"] == 2
    for s in sweeps.values():
        xs = sorted({p[0] for p in s["measures"][0]["fits"][0]["points"]})
        assert xs == big                       # 1234567, not the name's 1.23457e+06
    listed = {r["benchmark"] for r in json.loads((site / "data.json").read_text())}
    assert listed == {"texty/size=small", "texty/size=large"} | {f"BenchmarkSort/size={n}" for n in (10, 100, 1000, 10000)}


def test_sweep_names_are_split_into_parameters():
    assert split_name("async_array/values=3,objects=900") == ("async_array", {"values": 3.0, "objects": 900.0})
    assert split_name("a/b/n=1e3,m=2") == ("a/b", {"n": 1000.0, "m": 2.0})
    assert split_name("x/values=a,objects=2") is None                 # not numbers
    assert split_name("x/values=nan,objects=2") is None
    assert split_name("parse/size=10") is None                        # one pair and nothing recorded
    # recorded parameters: one pair is enough, and their numbers win over the name's rounding
    assert split_name("q/objects=1.23457e+06", {"objects": 1234567.0}) == ("q", {"objects": 1234567.0})
    assert split_name("q/objects=1234567", {"objects": 1234567}) == ("q", {"objects": 1234567.0})
    assert split_name("q/objects=100", {"objects": "100"}) is None    # recorded as text
    assert split_name("q/objects=100", {"values": 1.0}) is None       # not the name's parameters
