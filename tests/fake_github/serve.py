"""Serve the fake GitHub over HTTP, for scripts/act-example (the workflows call it like the real API).

    python tests/fake_github/serve.py PORT STATE.json --pull NUMBER:HEAD_SHA:HEAD_REPO [--repo OWNER/REPO]

It is the tests' fake (tests/fake_github/server.py): every request and response is validated
against contracts/github/openapi.json, and any bearer token is accepted (act passes its own).
The comments, check runs, requests and contract problems are written to STATE.json every 0.2 s
and when the server is stopped (SIGTERM or SIGINT).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fake_github.server import FakeGitHub  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("state")
    p.add_argument("--pull", action="append", default=[])
    p.add_argument("--repo", default="example/consumer")
    args = p.parse_args()
    fake = FakeGitHub(None, args.repo, login="github-actions[bot]")
    for spec in args.pull:
        number, sha, repo = spec.split(":", 2)
        fake.add_pull(int(number), sha, repo)

    def save() -> None:
        with fake.lock:
            state = {"comments": {n: [{"login": c["user"]["login"], "body": c["body"]} for c in cs]
                                  for n, cs in fake.comments.items()},
                     "check_runs": fake.check_runs, "problems": fake.problems,
                     "requests": [{"method": r["method"], "path": r["path"], "op": r["op"]} for r in fake.requests]}
        Path(args.state + ".part").write_text(json.dumps(state, indent=1))
        Path(args.state + ".part").replace(args.state)

    def stop(*_: object) -> None:
        fake.stop()
        save()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    fake.start(args.port)
    while True:
        save()
        time.sleep(0.2)


if __name__ == "__main__":
    main()
