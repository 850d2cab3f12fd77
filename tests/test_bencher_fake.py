"""The fake Bencher is held to the contract as tightly as the real server: the query parameters
it takes act as contracts/bencher/openapi.json says, and one it does not implement is a problem,
never an answer that ignores it."""

from __future__ import annotations

import httpx
import pytest
from fake_bencher.fixtures import TOKEN, fake  # noqa: F401 - fixture
from fake_bencher.fixtures import make_run, make_store

from perfgate.bencher.client import BencherClient, BencherRejected

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def taken_problems(fake) -> list[str]:
    problems, fake.problems[:] = list(fake.problems), []
    return problems


@pytest.mark.parametrize("path, query", [
    ("/v0/projects/demo/benchmarks", {"search": "sort"}),
    ("/v0/projects/demo/reports", {"start_time": "1750000000000"}),
    ("/v0/projects/demo/alerts", {"sort": "created"}),
    ("/v0/organizations", {"search": "perf"}),
])
def test_a_query_parameter_the_fake_does_not_implement_is_a_problem(fake, tmp_path, path, query):
    make_store(fake, tmp_path).add_runs([make_run(0, 100.0)])
    answer = httpx.get(fake.url + path, params=query, headers=AUTH)
    (problem,) = taken_problems(fake)
    assert answer.status_code == 400 and f"query parameter {next(iter(query))!r} is in the contract" in problem


def test_a_body_not_sent_as_json_is_refused(fake):
    answer = httpx.post(f"{fake.url}/v0/organizations/perfgate-org/projects", content=b'{"name": "x"}',
                        headers={**AUTH, "Content-Type": "text/plain"})
    (problem,) = taken_problems(fake)
    assert answer.status_code == 400 and "body sent as 'text/plain'" in problem
    assert fake.project("x") is None


def test_report_list_filters_by_testbed_and_archived(fake, tmp_path):
    make_store(fake, tmp_path).add_runs([make_run(0, 100.0), make_run(1, 100.0, testbed="arm")])
    client = BencherClient(fake.url, TOKEN)
    on_arm = client.request("GET", "/v0/projects/demo/reports", params={"testbed": "arm"}, expect=list)
    assert [r["testbed"]["name"] for r in on_arm] == ["arm"]
    assert len(client.request("GET", "/v0/projects/demo/reports", expect=list)) == 2
    # Only reports of an archived branch or testbed; the fake archives neither.
    assert client.request("GET", "/v0/projects/demo/reports", params={"archived": True}, expect=list) == []


def test_name_sorted_lists_take_a_direction(fake, tmp_path):
    make_store(fake, tmp_path).add_runs([make_run(0, 100.0, extra={"instructions": 1.0, "peak-rss": 2.0})])
    client = BencherClient(fake.url, TOKEN)
    names = [m["name"] for m in client.request("GET", "/v0/projects/demo/measures", expect=list)]
    assert names == sorted(names) and len(names) > 2
    backwards = client.request("GET", "/v0/projects/demo/measures", params={"direction": "desc"}, expect=list)
    assert [m["name"] for m in backwards] == names[::-1]
    assert client.request("GET", "/v0/organizations", params={"name": "nobody"}, expect=list) == []
    assert [o["slug"] for o in client.request("GET", "/v0/organizations", params={"name": "Perfgate Org"},
                                              expect=list)] == ["perfgate-org"]


def test_alerts_list_active_first_then_last_modified(fake, tmp_path):
    from test_bencher_store import _Stub, _Test

    store = make_store(fake, tmp_path, thresholds=_Stub({"latency": _Test("static", upper_boundary=150.0)}))
    store.add_runs([make_run(i, 200.0) for i in range(3)])
    client = BencherClient(fake.url, TOKEN)
    first, second, third = (a["uuid"] for a in fake.alerts)
    client.request("PATCH", f"/v0/projects/demo/alerts/{second}", json={"status": "dismissed"})
    client.request("PATCH", f"/v0/projects/demo/alerts/{first}", json={"status": "active"})   # modified last
    listed = [a["uuid"] for a in client.request("GET", "/v0/projects/demo/alerts", expect=list)]
    assert listed == [first, third, second]
    assert client.request("GET", "/v0/projects/demo/alerts", params={"archived": True}, expect=list) == []
    with pytest.raises(BencherRejected):
        client.request("GET", "/v0/projects/demo/alerts", params={"direction": "asc"})
    assert taken_problems(fake)
