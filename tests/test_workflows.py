"""Every perfgate command line in the GitHub workflows parses with the real CLI, so the
workflows cannot drift from the verbs and options they call."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from perfgate.cli import build_parser

GITHUB = Path(__file__).resolve().parent.parent / ".github"


def _command_lines() -> list[tuple[str, str]]:
    found = []
    for path in sorted(GITHUB.rglob("*.yml")):
        text = path.read_text()
        yaml.safe_load(text)  # each file is valid YAML
        for line in text.splitlines():
            m = re.search(r"args:\s*\"?(.+?)\"?\s*}?$", line) or re.search(r"\.venv/bin/perfgate (.+)$", line)
            if m and "inputs.args" not in line:
                found.append((f"{path.name}: {line.strip()}", m.group(1)))
    return found


COMMANDS = _command_lines()


def test_the_workflows_call_perfgate():
    assert len(COMMANDS) >= 5


@pytest.mark.parametrize("where, command", COMMANDS, ids=[w for w, _ in COMMANDS])
def test_workflow_command_parses(where, command):
    # Expressions and shell variables stand for one word each.
    command = re.sub(r"\$\{\{[^}]*\}\}|\"?\$[A-Z_]+\"?|\"bencher\+\$[A-Z_]+\"", "X", command)
    command = command.split(">")[0].split(";")[0]
    argv = shlex.split(command)
    build_parser(argv[0]).parse_args(argv)  # SystemExit(2) on an unknown verb or option
