"""Serve the fake Bencher over HTTP, to try perfgate's Bencher path by hand (no Bencher server
can run on this machine; the tests start the same fake in-process).

    python tests/fake_bencher/serve.py PORT [--token TOKEN]      # then, in another shell:
    export BENCHER_API_TOKEN=TOKEN
    perfgate publish --to bencher+http://127.0.0.1:PORT/my-project --all

It is the tests' fake (tests/fake_bencher/server.py): every request and response is validated
against contracts/bencher/openapi.json, and a request that breaks it is answered 400 (one that
makes the fake's answer break it, 500) and printed.  The token (default: the tests' admin
token) may create projects (in the organization "perfgate-org"); state lives in memory only.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fake_bencher.fixtures import TOKEN  # noqa: E402
from fake_bencher.server import FakeBencher  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("port", type=int)
    p.add_argument("--token", default=TOKEN)
    args = p.parse_args()
    fake = FakeBencher({args.token: "admin"}).start(args.port)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"fake Bencher at {fake.url} (token {args.token[:6]}…); Ctrl-C stops it", flush=True)
    seen = 0
    try:
        while True:
            time.sleep(0.5)
            for problem in fake.problems[seen:]:
                print(f"contract problem: {problem}", flush=True)
            seen = len(fake.problems)
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
        print(f"{len(fake.requests)} request(s), {len(fake.problems)} contract problem(s)")


if __name__ == "__main__":
    main()
