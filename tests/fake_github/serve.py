"""Serve the fake GitHub over HTTP, for scripts/act-example (the workflows call it like the real API).

    python tests/fake_github/serve.py PORT STATE.json --pull NUMBER:HEAD_SHA:HEAD_REPO [--repo OWNER/REPO]

Every request and response is validated against contracts/github/openapi-subset.json; after each
request the comments, check runs and contract problems are written to STATE.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fake_github.pr_api import FakeGitHub  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("state")
    p.add_argument("--pull", action="append", default=[])
    p.add_argument("--repo", default="example/consumer")
    args = p.parse_args()
    fake = FakeGitHub(args.repo)
    for spec in args.pull:
        number, sha, repo = spec.split(":", 2)
        fake.add_pull(int(number), sha, repo)

    def save() -> None:
        Path(args.state).write_text(json.dumps({"comments": fake.comments, "check_runs": fake.check_runs,
                                                "problems": fake.problems, "requests": fake.requests}, indent=1))

    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            request = httpx.Request(self.command, f"http://fake{self.path}", headers=dict(self.headers),
                                    content=self.rfile.read(length) if length else b"")
            response = fake.handle(request)
            save()
            self.send_response(response.status_code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(response.content)))
            self.end_headers()
            self.wfile.write(response.content)

        do_GET = do_POST = do_PATCH = _any

        def log_message(self, *a) -> None:  # quiet; the state file is the record
            pass

    save()
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
