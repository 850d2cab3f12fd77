"""Cut GitHub's REST contract down to the operations perfgate calls.

Input: ``generated/api.github.com.json`` from the npm package ``@octokit/openapi`` (see README.md
for the version).  Output: ``openapi.json`` beside this script, holding those operations and every
component they reference (transitively), minus the examples, which only weigh.

    npm pack @octokit/openapi@23.0.2 && tar xzf octokit-openapi-23.0.2.tgz
    python contracts/github/extract.py package/generated/api.github.com.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# (method, path template): what src/perfgate/github/client.py sends.
OPERATIONS = [
    ("get", "/repos/{owner}/{repo}/issues"),
    ("post", "/repos/{owner}/{repo}/issues"),
    ("patch", "/repos/{owner}/{repo}/issues/{issue_number}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("post", "/repos/{owner}/{repo}/statuses/{sha}"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/statuses"),
    # perfgate comment (the pull-request comment and check run)
    ("get", "/repos/{owner}/{repo}/pulls"),
    ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("post", "/repos/{owner}/{repo}/check-runs"),
    # notify's github-commit-comment channel
    ("get", "/repos/{owner}/{repo}/commits/{commit_sha}/comments"),
    ("post", "/repos/{owner}/{repo}/commits/{commit_sha}/comments"),
]


def strip_examples(node: Any) -> Any:
    if isinstance(node, list):
        return [strip_examples(n) for n in node]
    if not isinstance(node, dict):
        return node
    return {k: strip_examples(v) for k, v in node.items() if k not in ("examples", "example")}


def refs(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, list):
        for n in node:
            found |= refs(n)
    elif isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            found.add(node["$ref"])
        for v in node.values():
            found |= refs(v)
    return found


def extract(doc: dict) -> dict:
    paths: dict[str, dict] = {}
    for method, template in OPERATIONS:
        paths.setdefault(template, {})[method] = strip_examples(doc["paths"][template][method])
    components: dict[str, dict] = {}
    todo, seen = refs(paths), set()
    while todo:
        ref = todo.pop()
        if ref in seen:
            continue
        seen.add(ref)
        _, _, kind, name = ref.split("/", 3)  # "#/components/<kind>/<name>"
        item = strip_examples(doc["components"][kind][name])
        components.setdefault(kind, {})[name] = item
        todo |= refs(item) - seen
    return {"openapi": doc["openapi"], "info": doc["info"], "servers": doc.get("servers", []),
            "paths": paths, "components": {k: dict(sorted(v.items())) for k, v in sorted(components.items())}}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    doc = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    out = Path(__file__).resolve().parent / "openapi.json"
    out.write_text(json.dumps(extract(doc), indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {out.name}: {len(OPERATIONS)} operations, version {doc['info']['version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
