"""actionlint and zizmor over the workflows, the root action and the example consumer: actionlint
reports nothing, zizmor nothing above `low` (each remaining finding of higher severity carries an
inline `zizmor: ignore[...]` with its reason).  Both come from the registries: zizmor is pinned in
the test extras (requirements.lock); actionlint is built from the Go module proxy at the pinned
version below when it is not on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ACTIONLINT = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.7"
TOOLS = ROOT / ".perfgate" / "tools"


def _actionlint() -> str:
    found = shutil.which("actionlint") or (str(TOOLS / "actionlint") if (TOOLS / "actionlint").exists() else None)
    if found:
        return found
    go = shutil.which("go") or ("/usr/local/go/bin/go" if Path("/usr/local/go/bin/go").exists() else None)
    if not go:
        pytest.fail("actionlint is not installed and there is no Go toolchain to build it (apt-get install golang)")
    TOOLS.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([go, "install", ACTIONLINT], env={**os.environ, "GOBIN": str(TOOLS)},
                          capture_output=True, text=True)
    assert proc.returncode == 0, f"go install {ACTIONLINT} failed:\n{proc.stderr}"
    return str(TOOLS / "actionlint")


def _projects() -> list[Path]:
    return [ROOT, *sorted(p.parent.parent for p in (ROOT / "examples").glob("*/.github/workflows"))]


# An example's workflows use the action as an adopter must: `OWNER/perfgate@<40-hex commit sha>`, a
# placeholder (zizmor rightly calls it unpinned).  Linted as the adopter's copy will be, with it filled in.
PLACEHOLDER = "OWNER/perfgate@<40-hex commit sha>"
PINNED = "OWNER/perfgate@" + "0123456789abcdef" * 2 + "01234567"


def _standalone(project: Path, tmp_path: Path, action: str) -> Path:
    """An example consumer as its own repository, its placeholder for the action replaced by ``action``
    (``./.perfgate-action``, where perfgate's action.yml is put, lets actionlint check every step's
    inputs against it; a full SHA is what zizmor's pinning policy asks for)."""
    if project == ROOT:
        return ROOT
    copy = tmp_path / project.name
    shutil.copytree(project, copy)
    for workflow in (copy / ".github" / "workflows").glob("*.yml"):
        text = workflow.read_text()
        assert PLACEHOLDER in text, f"{workflow.name}: the example uses the action as an adopter writes it"
        workflow.write_text(text.replace(PLACEHOLDER, action))
    (copy / ".perfgate-action").mkdir()
    shutil.copy(ROOT / "action.yml", copy / ".perfgate-action" / "action.yml")
    subprocess.run(["git", "init", "-q", str(copy)], check=True)  # actionlint finds a project by its .git
    return copy


@pytest.mark.parametrize("project", _projects(), ids=lambda p: str(p.relative_to(ROOT)) or ".")
def test_actionlint_reports_nothing(project, tmp_path):
    where = _standalone(project, tmp_path, "./.perfgate-action")
    proc = subprocess.run([_actionlint(), "-no-color"], cwd=where, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("project", _projects(), ids=lambda p: str(p.relative_to(ROOT)) or ".")
def test_zizmor_reports_nothing_above_low(project, tmp_path):
    project = _standalone(project, tmp_path, PINNED)
    zizmor = Path(sys.executable).parent / "zizmor"
    assert zizmor.exists(), "zizmor is in the test extras: run scripts/setup"
    # --offline: no GitHub API here (and none needed: every action is pinned to a SHA already).
    proc = subprocess.run([str(zizmor), "--offline", "--no-progress", "--min-severity", "medium", "--format", "plain",
                           "."], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No findings to report" in proc.stdout + proc.stderr or "0 medium, 0 high" in proc.stdout + proc.stderr
