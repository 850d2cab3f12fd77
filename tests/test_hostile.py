"""The hostile-input campaign, kept: each case is a way the CLI was broken (unbounded reads,
unvalidated identities, output injection, damaged or unwritable stores, silent data loss), and
each test fails on the code before the fix.  Fuzz targets for the same boundaries are at the end.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from perfgate.cli import main
from perfgate.detect.compare import compare_samples
from perfgate.errors import InputError
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.report.markdown import comparison_markdown
from perfgate.store import sqlite as sqlite_store
from perfgate.store.migrations import MIGRATIONS
from perfgate.store.sqlite import SqliteStore

FIX = Path(__file__).parent / "fixtures"
HYPERFINE = FIX / "hyperfine" / "two-commands.json"
GO = FIX / "go-bench" / "strings.txt"
COMMIT = "c" * 40
UNSAFE = ("\x1b", "\r", "\x00", "\u202e", "\u2028", "\u200b", "\u00ad", "\ufeff")


def perfgate(*args: str, store: Path, stdin: bytes | None = None, timeout: float = 60,
             env: dict | None = None, user: str | None = None) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess, with a 2 GiB address-space cap so a runaway read fails fast
    (the code before the fix read /dev/zero until a MemoryError at 7.4 GiB)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    cmd = [sys.executable, "-m", "perfgate.cli", *args]
    if user:
        # The other user may read (not write) anything: a checkout in a private folder (``git
        # clone`` into ``mktemp -d``, mode 0700) must still give it perfgate and its interpreter,
        # while what it may write stays decided by the files' permissions, the point of the tests.
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups",
               "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", *cmd]
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout, preexec_fn=cap,
                          env={**os.environ, "PERFGATE_STORE": f"sqlite:{store}", **(env or {})})


def ingest(*args: str, store: Path) -> int:
    return main(["ingest", *args, "--store", f"sqlite:{store}"])


def runs_in(store: Path) -> int:
    if not store.exists():
        return 0
    with SqliteStore(store) as s:
        return len(s.runs())


def bmf(tmp_path: Path, doc: dict | str, name: str = "bmf.json") -> Path:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def clean(err: str) -> None:
    """A refusal's message: no traceback, and nothing that would act on a terminal."""
    assert "Traceback" not in err, err
    assert not any(c in err for c in UNSAFE), repr(err)


# --- bounded reads -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["device", "symlink-to-device", "fifo"])
def test_only_regular_files_are_read(kind, tmp_path, store_path):
    if kind == "device":
        target = "/dev/zero"
    elif kind == "symlink-to-device":
        target = str(tmp_path / "innocent.json")
        os.symlink("/dev/zero", target)
    else:
        target = str(tmp_path / "pipe.json")
        os.mkfifo(target)  # no writer: opening it blocking would wait forever
    proc = perfgate("ingest", target, "--branch", "main", "--commit", COMMIT, store=store_path, timeout=30)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert target in err and ("character device" in err or "FIFO" in err), err
    clean(err)
    assert runs_in(store_path) == 0


def test_detect_series_from_a_device_is_refused(tmp_path, store_path):
    proc = perfgate("detect", "--series", "/dev/zero", store=store_path, timeout=30)
    assert proc.returncode == 2 and b"character device" in proc.stderr, proc.stderr


def test_stdin_is_read_when_named_dash_and_capped(tmp_path, store_path, monkeypatch):
    data = HYPERFINE.read_bytes()
    ok = perfgate("ingest", "-", "--adapter", "hyperfine", "--branch", "main", "--commit", COMMIT,
                  store=store_path, stdin=data)
    assert ok.returncode == 0, ok.stderr
    assert runs_in(store_path) == 1
    # Over the cap: refused on the bytes actually read (stdin has no size to trust).
    from perfgate.adapters import base

    monkeypatch.setattr(base, "MAX_INPUT_BYTES", len(data) - 1)
    with HYPERFINE.open("r") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        with pytest.raises(InputError) as info:
            base.read_text("-")
    assert "byte limit" in str(info.value) and "<stdin>" in str(info.value)



def test_stdin_named_twice_is_a_clear_error_before_anything_is_read(store_path, capsys, monkeypatch):
    """`ingest - -` read stdin for the first '-' and nothing for the second, refused as "the file
    is empty: the harness wrote nothing (did its command fail?)", about a harness that had not failed."""
    with HYPERFINE.open("r") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        assert main(["ingest", "-", "-", "--adapter", "hyperfine", "--branch", "main", "--commit", COMMIT,
                     "--store", f"sqlite:{store_path}"]) == 2
        assert stdin.tell() == 0                   # refused before reading: the input is still there
    err = capsys.readouterr().err
    assert "<stdin>: named 2 times ('-') but it can be read only once" in err and "empty" not in err, err
    assert not store_path.exists()


# --- one validation for every identity ------------------------------------------------------------------

BAD_IDENTITIES = [
    ("--branch", "../../etc"), ("--branch", "a\nb"), ("--branch", "x\x1b[2J"), ("--branch", "a\rb"),
    ("--branch", "rtl\u202eevil"), ("--branch", "line\u2028sep"), ("--branch", "b" * 300),
    ("--commit", "\n\n# @bob"), ("--commit", "abc def"), ("--commit", "a`b"), ("--commit", "../../x"),
    ("--commit", "\x1b]8;;http://evil/\x1b\\link"), ("--commit", "-rf"), ("--commit", "HEAD@{1}"),
    ("--testbed", "../up"), ("--testbed", "tb\x00"), ("--testbed", "tb\u2066x"),
    ("--project", "../p"), ("--project", "p\x1b[31m"),
]


@pytest.mark.parametrize("option,value", BAD_IDENTITIES, ids=[f"{o}-{v.encode('unicode_escape').decode()[:20]}"
                                                            for o, v in BAD_IDENTITIES])
def test_bad_identities_are_refused_at_the_boundary(option, value, tmp_path, store_path, capsys):
    args = {"--branch": "main", "--commit": COMMIT, "--testbed": "tb", "--project": "default", option: value}
    code = ingest(str(HYPERFINE), *[f"{k}={v}" for k, v in args.items()], store=store_path)
    err = capsys.readouterr().err
    assert code == 2, err
    assert option in err, err
    clean(err)
    assert runs_in(store_path) == 0


@pytest.mark.parametrize("name", ["rtl\u202eelif", "isolate\u2067x", "line\u2028break", "para\u2029graph"])
def test_invisible_formatting_characters_are_refused_in_benchmark_names(name, tmp_path, store_path, capsys):
    code = ingest(str(bmf(tmp_path, {name: {"latency": {"value": 1.0}}})), "--branch", "main", "--commit", COMMIT,
                  store=store_path)
    err = capsys.readouterr().err
    assert code == 2 and "invisible formatting character" in err, err
    clean(err)


# Characters that display as nothing: "BM\u200bSort" was a second series looking exactly like "BMSort".
INVISIBLE = "\u00ad\u061c\u180e\u200b\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_invisible_characters_are_refused_in_names_naming_the_file_and_place(char, tmp_path, store_path, capsys):
    path = bmf(tmp_path, {f"BM{char}Sort": {"latency": {"value": 1.0}}})
    code = ingest(str(path), "--branch", "main", "--commit", COMMIT, store=store_path)
    err = capsys.readouterr().err
    # the place shows the character as an escape, so the look-alike can be told apart in the message
    escaped = f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    assert code == 2 and f"{path}:BM{escaped}Sort" in err, err
    assert f"name contains invisible formatting character U+{ord(char):04X}" in err, err
    assert char not in err and runs_in(store_path) == 0
    code = ingest(str(HYPERFINE), "--branch", f"main{char}", "--commit", COMMIT, store=store_path)
    err = capsys.readouterr().err
    assert code == 2 and f"--branch: name contains invisible formatting character U+{ord(char):04X}" in err, err


@pytest.mark.parametrize("name", ["\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",   # Persian: ZWNJ between letters
                                  "emoji/\U0001f469\u200d\U0001f4bb"])                # ZWJ: one emoji of two
def test_zwnj_and_zwj_are_accepted_in_names(name, tmp_path, store_path, capsys):
    code = ingest(str(bmf(tmp_path, {name: {"latency": {"value": 1.0}}})), "--branch", "main", "--commit", COMMIT,
                  store=store_path)
    assert code == 0, capsys.readouterr().err
    with SqliteStore(store_path) as s:
        assert [k.benchmark for k in s.series_keys()] == [name]


def test_name_lengths_are_as_the_readme_says(tmp_path, store_path, capsys):
    """The README said every name had at most 256 characters; benchmark and measure names may have 1,024."""
    from perfgate.model import MAX_IDENTITY_LENGTH, MAX_NAME_LENGTH
    row = next(line for line in Path(__file__).parent.parent.joinpath("README.md").read_text().splitlines()
               if line.startswith("| identities |"))
    assert f"benchmark and measure names at most {MAX_NAME_LENGTH:,} characters" in row, row
    assert f"branch, commit, testbed and project at most {MAX_IDENTITY_LENGTH}" in row, row
    for length, code in ((MAX_NAME_LENGTH, 0), (MAX_NAME_LENGTH + 1, 2)):
        assert ingest(str(bmf(tmp_path, {"b" * length: {"latency": {"value": 1.0}}})), "--branch", "main",
                      "--commit", COMMIT, store=store_path) == code, capsys.readouterr().err
    assert f"name is longer than {MAX_NAME_LENGTH} characters" in capsys.readouterr().err
    for length, code in ((MAX_IDENTITY_LENGTH, 0), (MAX_IDENTITY_LENGTH + 1, 2)):
        assert ingest(str(HYPERFINE), "--branch", "b" * length, "--commit", COMMIT, store=store_path) == code
    assert f"branch is longer than {MAX_IDENTITY_LENGTH} characters" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["org.openjdk.Bench.copy:onHeap=true", "BenchmarkDecode/one=1-8",
                                  "parse/only=5", "BM_Sort<std::vector<int>>"])
def test_legitimate_names_with_on_and_equals_are_accepted(name, tmp_path, store_path, capsys):
    code = ingest(str(bmf(tmp_path, {name: {"latency": {"value": 1.0}}})), "--branch", "main", "--commit", COMMIT,
                  store=store_path)
    assert code == 0, capsys.readouterr().err
    with SqliteStore(store_path) as s:
        assert [k.benchmark for k in s.series_keys()] == [name]


def test_markup_branch_is_stored_and_printed_without_crashing_rich(tmp_path, store_path):
    proc = perfgate("ingest", str(HYPERFINE), "--branch", "[/]", "--commit", COMMIT, "--testbed", "[bold]tb",
                    store=store_path)
    assert proc.returncode == 0, proc.stderr
    assert b"[/]@" in proc.stderr and b"[bold]tb" in proc.stderr
    shown = perfgate("history", store=store_path, env={"COLUMNS": "200"})
    assert shown.returncode == 0 and b"[/]" in shown.stdout, shown.stderr


def test_error_messages_never_echo_raw_escape_sequences(tmp_path, store_path, capsys):
    for name in ("evil\x1b[2Jname", "carriage\rreturn", "nul\x00byte"):
        code = ingest(str(bmf(tmp_path, {name: {"latency": {"value": 1.0}}})), "--branch", "main",
                      "--commit", COMMIT, store=store_path)
        err = capsys.readouterr().err
        assert code == 2 and "control character" in err, err
        clean(err)
        assert "\\x1b" in err or "\\r" in err or "\\x00" in err, err  # shown, not sent



@pytest.mark.parametrize("case", ["missing", "folder", "markdown", "input"])
def test_a_path_in_a_message_is_shown_escaped_never_as_a_line_break(case, tmp_path, store_path, capsys, monkeypatch):
    """A --store (or output, or input) path holding a newline was printed raw: the message broke
    over two lines, the second one anything the path said (a forged "error:" or ::warning line)."""
    monkeypatch.chdir(tmp_path)
    forged = "x\n::error::forged\x1b[2J"
    if case == "folder":
        (tmp_path / forged).mkdir()
    args = {"missing": ["alerts", "--store", f"sqlite:{tmp_path / forged / 'h.db'}"],
            "folder": ["alerts", "--store", f"sqlite:{forged}"],
            "markdown": ["compare", "--base", "a", "--head", "b", "--markdown", str(tmp_path / forged / "c.md"),
                         "--store", f"sqlite:{store_path}"],
            "input": ["ingest", str(tmp_path / forged), "--branch", "main", "--commit", COMMIT,
                      "--store", f"sqlite:{store_path}"]}[case]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "x\\x0a::error::forged\\x1b[2J" in err, err


# --- one escaping function per output format ---------------------------------------------------------------

def _comparison(names: list[str], commit: str, branch: str, testbed: str):
    import numpy as np

    rng = np.random.default_rng(3)
    base = {(n, "latency"): tuple(1000 * rng.lognormal(0, 0.02, 30)) for n in names}
    head = {(n, "latency"): tuple(1300 * rng.lognormal(0, 0.02, 30)) for n in names}
    c = compare_samples(base, head)
    c.base = {"commit": commit, "branch": branch, "testbed": testbed}
    c.head = {"commit": commit, "branch": branch, "testbed": testbed}
    return c


def test_pr_comment_neither_pings_nor_tracks_nor_links(tmp_path):
    names = ["@octocat please review", "![img](http://host/track.png)", "[click](http://evil.example/)",
             "<img src=x>", "www.evil.example and http://evil.example/x", "pipe | in `code`"]
    md = comparison_markdown(_comparison(names, "a`b\n\n# @bob", "x\n\n## @alice", "``` tb"))
    html = MarkdownIt("commonmark", {"html": True, "linkify": False}).enable("table").render(md)
    assert "<img" not in html and "<a " not in html and "<h1" not in html and "<h2" not in html, html
    # No @mention and no bare URL outside a code span (GitHub links neither inside one).
    outside = html
    for chunk in html.split("<code>")[1:]:
        outside = outside.replace("<code>" + chunk.split("</code>")[0] + "</code>", "")
    assert "@octocat" not in outside and "@bob" not in outside and "@alice" not in outside, outside
    assert "http://" not in outside and "www.evil" not in outside, outside
    # Every name is shown whole, literally, in one code span of its table row.
    for name in names:
        assert f"<code>{_html(name)}</code>" in html, (name, html)
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert all(line.count(" | ") == 7 for line in rows[1:] if not line.startswith("|---")), rows


def test_alert_issue_and_webhook_text_neither_ping_nor_link_from_data():
    from perfgate.model import Alert
    from perfgate.notify.base import Links
    from perfgate.notify.events import Event
    from perfgate.notify.render import issue_body, plain_text

    alert = Alert("x`\n\n# @bob", "tb|<!here>", "@octocat ![t](http://t.example/p.png) [c](http://evil.example/)",
                  "latency", "a" * 40, "regression", 0.2, commit_range=("a" * 40,), id="id1")
    body = issue_body(alert, Links("https://pages.example", "https://github.com/acme/widget"))
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(body)
    outside = html
    for chunk in html.split("<code>")[1:]:
        outside = outside.replace("<code>" + chunk.split("</code>")[0] + "</code>", "")
    assert "<img" not in html and "<h1" not in html and "http://evil.example" not in outside, html
    assert "@octocat" not in outside and "@bob" not in outside, outside
    assert all(href.startswith(("https://github.com/acme/widget/", "https://pages.example/"))
               for href in [part.split('"')[0] for part in html.split('href="')[1:]]), html
    assert html.count("<tr>") == 8 and html.count("<td>") == 14, html  # header + 7 rows of 2: none broken
    slack = plain_text(Event("raised", alert), Links())
    assert "<!here>" not in slack and "<http://evil" not in slack and "\n" not in slack, slack


def test_a_commit_comment_neither_pings_nor_links_from_data():
    # The github-commit-comment channel's words, raised over a range and closed, rendered as GitHub would.
    from perfgate.model import Alert
    from perfgate.notify.base import Links
    from perfgate.notify.events import Event
    from perfgate.notify.render import commit_closed_comment, commit_comment

    name = "@octocat ![t](http://t.example/p.png) [c](http://evil.example/) <img src=x>"
    alert = Alert("x`\n\n# @bob", "tb|<!here>", name, "latency", "a" * 40, "regression", 0.2,
                  previous_commit="c" * 40, commit_range=("a" * 40, "b" * 40), id="id1")
    fix = Alert("x`\n\n# @bob", "tb|<!here>", name, "latency", "d" * 40, "improvement", -0.2,
                commit_range=("d" * 40,), id="`@fixer [f](http://evil.example/)")
    links = Links("https://pages.example", "https://github.com/acme/widget")
    for body in (commit_comment(Event("raised", alert), links),
                 commit_closed_comment(Event("closed", alert, fix, "undone"), links)):
        html = MarkdownIt("commonmark", {"html": True}).enable("table").render(body)
        outside = html
        for chunk in html.split("<code>")[1:]:
            outside = outside.replace("<code>" + chunk.split("</code>")[0] + "</code>", "")
        assert "<img" not in html and "<h1" not in html and "http://evil.example" not in outside, html
        assert "@octocat" not in outside and "@bob" not in outside and "@fixer" not in outside, outside
        assert all(href.startswith(("https://github.com/acme/widget/", "https://pages.example/"))
                   for href in [part.split('"')[0] for part in html.split('href="')[1:]]), html


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _stepped_store(store: Path, commit_of) -> None:
    bed = Bed("tb")
    with SqliteStore(store) as s:
        for i in range(30):
            value = 100.0 + (i % 3) * 0.5 + (50.0 if i >= 15 else 0.0)
            s.add_run(Run("default", "main", commit_of(i), bed, [Metric("bench", "latency", value)],
                          start_time=1.7e9 + i))


def test_atom_feed_stays_well_formed_whatever_the_commits(tmp_path, store_path):
    # A history written before validation existed (or by another tool) holds any text.
    _stepped_store(store_path, lambda i: f"c{i:02d}\x01\x1b[2J\ufffe&<]]>")
    proc = perfgate("pages", "--out", str(tmp_path / "site"), store=store_path)
    assert proc.returncode == 0, proc.stderr
    feed = (tmp_path / "site" / "regressions.xml").read_text(encoding="utf-8")
    entries = ET.fromstring(feed).findall("{http://www.w3.org/2005/Atom}entry")
    assert entries and "c15" in ET.tostring(entries[0], encoding="unicode")
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "\x1b" not in page and "\x01" not in page


def test_csv_export_cells_cannot_run_as_formulas(tmp_path, store_path, capsys):
    assert ingest(str(bmf(tmp_path, {"=HYPERLINK(\"http://x\")": {"latency": {"value": 1.0}}})),
                  "--branch", "main", "--commit", COMMIT, store=store_path) == 0
    out = tmp_path / "h.csv"
    assert main(["export", "--format", "csv", "-o", str(out), "--store", f"sqlite:{store_path}"]) == 0
    import csv

    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert rows[0]["benchmark"] == "'=HYPERLINK(\"http://x\")"


# --- every error a perfgate error -----------------------------------------------------------------------

def _filled_store(store: Path, runs: int = 40) -> None:
    bed = Bed("tb")
    with SqliteStore(store) as s:
        for i in range(runs):
            s.add_run(Run("default", "main", f"{i:040x}", bed,
                          [Metric(f"bench-{k}", "latency", 100.0 + k, samples=tuple(range(50))) for k in range(20)],
                          start_time=1.7e9 + i))


def test_history_limit_shows_the_newest_points_or_every_one_and_refuses_a_negative(store_path, capsys):
    # A negative --limit once showed all but the first few points, later the whole series; it
    # means neither, so it is refused by name.
    _filled_store(store_path, runs=40)
    shown = {}
    for limit in ("5", "0"):
        assert main(["history", "bench-3", "--limit", limit, "--json", "--store", f"sqlite:{store_path}"]) == 0
        (series,) = json.loads(capsys.readouterr().out)
        shown[limit] = [p["commit"] for p in series["points"]]
    assert shown["5"] == [f"{i:040x}" for i in range(35, 40)]
    assert shown["0"] == [f"{i:040x}" for i in range(40)]
    assert main(["history", "--limit", "-3", "--store", f"sqlite:{store_path}"]) == 2
    err = capsys.readouterr().err
    assert "--limit must be 0 (every point) or more, got -3" in err, err
    # past SQLite's 64-bit integers: an OverflowError, exit 3; it is every point, as 0
    assert main(["history", "bench-3", "--limit", str(10**30), "--json", "--store", f"sqlite:{store_path}"]) == 0
    (series,) = json.loads(capsys.readouterr().out)
    assert [p["commit"] for p in series["points"]] == shown["0"]


@pytest.mark.parametrize("verb", [["detect"], ["history"], ["alerts"], ["export", "--format", "json"], ["pages", "--out", "site"],
                                  ["notify", "--channel", "webhook:http://127.0.0.1:9/x"], ["sync", "--export", "out"],
                                  ["fit", "--from-store", "x", "-y", "T"], ["bisect", "abc", "--runner", "host"]])
def test_a_verb_that_reads_refuses_a_history_that_is_not_there(verb, tmp_path, capsys, monkeypatch):
    """A mistyped --store or PERFGATE_STORE once opened as a new, empty history: detect passed
    ("no change points in 0 series", exit 0) and left the folder and an empty file behind."""
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)   # bisect starts from a repository
    store = tmp_path / "typo" / "history.db"
    assert main([*verb, "--store", f"sqlite:{store}"]) == 2
    err = capsys.readouterr().err
    assert f"{store}: no perfgate history there (nothing was created)" in err, err
    assert not (tmp_path / "typo").exists() and not (tmp_path / "site").exists() and not (tmp_path / "out").exists()


def test_the_verbs_that_record_create_the_history(tmp_path, capsys):
    store = tmp_path / "new" / "history.db"
    assert main(["sync", "--import", str(_empty_folder(tmp_path / "in")), "--store", f"sqlite:{store}"]) == 0
    assert store.is_file()


def _empty_folder(path: Path) -> Path:
    path.mkdir()
    return path


def _git_checkout(path: Path, commits: int) -> list[str]:
    """A repository with ``commits`` empty commits; their hashes, oldest first."""
    git = ["git", "-C", str(path), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    for i in range(commits):
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", f"c{i}"], check=True)
    out = subprocess.run([*git, "rev-list", "--reverse", "HEAD"], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_a_git_ref_given_as_the_commit_is_recorded_as_its_hash(tmp_path, store_path, monkeypatch, capsys):
    """``--commit HEAD`` was recorded as a commit named "HEAD": every such run at one fake commit."""
    shas = _git_checkout(tmp_path / "repo", 2)
    monkeypatch.chdir(tmp_path / "repo")
    fixture = HYPERFINE
    for ref in ("HEAD", "HEAD~1", shas[0][:7]):
        assert ingest(str(fixture), "--branch", "main", "--commit", ref, "--testbed", f"tb-{ref}", store=store_path) == 0
    assert ingest(str(fixture), "--branch", "main", "--commit", "v-label", "--testbed", "tb", store=store_path) == 0
    with SqliteStore(store_path) as s:
        assert sorted(r.commit for r in s.runs()) == sorted([shas[1], shas[0], shas[0], "v-label"])
    monkeypatch.chdir(tmp_path)                                  # no checkout: HEAD names nothing
    capsys.readouterr()
    assert ingest(str(fixture), "--branch", "main", "--commit", "HEAD~2", store=store_path) == 2
    assert "--commit 'HEAD~2' is a git ref, but no commit by that name" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--branch", "--commit", "--testbed"])
def test_an_empty_identity_is_refused_not_taken_for_the_default(option, tmp_path, store_path, capsys):
    """``--branch ""`` (an unset CI variable) was recorded on the checked-out branch."""
    fixture = HYPERFINE
    args = {"--branch": "main", "--commit": "c0ffee", "--testbed": "tb"} | {option: ""}
    assert ingest(str(fixture), *[x for kv in args.items() for x in kv], store=store_path) == 2
    assert f"{option}: name is empty" in capsys.readouterr().err
    assert not store_path.exists()


@pytest.mark.parametrize("out", ["a-file", "/proc/no-folder-here"])
def test_pages_out_that_cannot_be_a_folder_is_a_clear_error(out, tmp_path, store_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("keep me\n")
    _filled_store(store_path, runs=3)
    assert main(["pages", "--out", out, "--store", f"sqlite:{store_path}"]) == 2
    err = capsys.readouterr().err
    assert f"--out {out}: " in err and ("is not a folder" in err or "cannot create the folder" in err), err
    assert (tmp_path / "a-file").read_text() == "keep me\n"


def test_pages_never_replace_a_data_folder_they_did_not_write(tmp_path, store_path, capsys, monkeypatch):
    """``pages --out .`` beside the history's own ``data/`` (``sync --export data/``, as the README
    shows) swapped that folder out for the site's and deleted it, exit 0.  An earlier build's
    ``data/`` and an empty one are still replaced."""
    monkeypatch.chdir(tmp_path)
    _filled_store(store_path, runs=3)
    assert main(["sync", "--export", "data", "--store", f"sqlite:{store_path}"]) == 0
    (tmp_path / "data" / "notes.txt").write_text("keep me\n")
    before = sorted(p.relative_to(tmp_path) for p in (tmp_path / "data").rglob("*"))
    capsys.readouterr()
    assert main(["pages", "--out", ".", "--store", f"sqlite:{store_path}"]) == 2
    err = capsys.readouterr().err
    assert "--out .: data holds 'notes.txt': it is not pages data perfgate wrote" in err, err
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "data").rglob("*")) == before
    assert not (tmp_path / "index.html").exists()
    (tmp_path / "site" / "data").mkdir(parents=True)
    for _ in range(2):   # an empty data/, then the first build's
        assert main(["pages", "--out", "site", "--store", f"sqlite:{store_path}"]) == 0
        assert (tmp_path / "site" / "data" / "index.js").read_bytes().startswith(b"window.PERFGATE_INDEX=")


@pytest.mark.parametrize("args, said", [
    (["notify", "--channel", "webhook:http://[::1/hook-s3cr3t"], "--channel webhook:URL: not a usable URL: an unclosed '['"),
    (["notify", "--channel", "webhook:http://127.0.0.1:99999/hook-s3cr3t"], "not a usable URL: an unclosed '[', or a port"),
    (["history", "--store", "bencher+http://[::1/p"], "--store: not a usable URL: an unclosed '['"),
    # the host forgotten: the password read as a port, and the parser's message quoted it
    (["notify", "--channel", "webhook:http://user:s3cr3t/hooks"], "(is the host missing before it?)"),
    (["publish", "--to", "bencher+http://u:s3cr3t/p"], "--to: not a usable URL"),
    (["notify", "--channel", "webhook:http://user:s3cr3t@/hooks"], "expected http(s)://HOST[:PORT]/..."),
    (["notify", "--channel", "webhook:http://127.0.0.1:8765/s3cr3t\x7f"], "a space or a control character"),
    (["publish", "--to", "bencher+http://127.0.0.1:8765/s3cr3t\x1b"], "a space or a control character"),
    (["publish", "--to", "bencher+ftp://u:s3cr3t@host/p"], "--to: not a usable URL: expected http(s)"),
    (["publish", "--to", "bencher+http://127.0.0.1:1"], "--to 'bencher+http://127.0.0.1:1': the URL must end with"),
    (["publish", "--to", "bencher+http://u:s3cr3t@127.0.0.1:1/p"], "--to: put the Bencher token in BENCHER_API_TOKEN"),
    (["publish", "--to", "bencher+http://127.0.0.1:1/p?token=s3cr3t"], "--to: a Bencher store URL has no query"),
    (["history", "--store", "bencher+http://127.0.0.1:1/p#s3cr3t"], "--store: a Bencher store URL has no query"),
])
def test_a_url_that_cannot_be_used_is_a_clear_error_naming_its_option(args, said, store_path, capsys):
    """An unclosed IPv6 bracket ended notify and the Bencher store with a traceback (exit 1, the
    code for "regression found"); a port past 65535 spooled the messages as if the target were
    down; publish's errors named --store for its --to."""
    _filled_store(store_path, runs=1)
    if "--store" not in args:
        args = [*args, "--store", f"sqlite:{store_path}"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert said in err and "s3cr3t" not in err, err


@pytest.mark.parametrize("args, said", [
    (["history", "--store", "benchr+https://user:s3cr3t@bencher.example/proj"],
     "--store 'benchr+https://…@bencher.example/…': unknown store"),
    (["history", "--store", "https://bencher.example/proj?token=s3cr3t"], "--store 'https://bencher.example/…': unknown"),
    (["history", "--store", "https://user:s3cr3t/proj"], "--store 'https://user:…/…': unknown store"),
    (["history", "--store", "bencher+https://bencher.example/"],
     "--store 'bencher+https://bencher.example/…': the URL must end with the Bencher project slug"),
    (["publish", "--to", "https://user:s3cr3t@bencher.example/proj"], "--to 'https://…@bencher.example/…': publish sends"),
    (["publish", "--store", "bencher+https://bencher.example/p?token=s3cr3t", "--all"],
     "--store 'bencher+https://bencher.example/…': publish reads runs from a local store"),
    (["history", "--store", "history.db"], "--store 'history.db': unknown store"),
])
def test_a_store_that_is_not_one_is_named_without_its_secrets(args, said, capsys):
    """A typo in a store's scheme (or a Bencher URL without its project) quoted the whole URL,
    a password or a token in its query string with it, into the CI log."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert said in err and "s3cr3t" not in err, err


@pytest.mark.parametrize("api", ["http://u:s3cr3t/x", "http://[::1", "http://127.0.0.1:8765/s3cr3t\x7f", "ftp://s3cr3t"])
def test_a_github_api_url_that_cannot_be_used_is_a_clear_error(api, store_path, capsys, monkeypatch):
    """GITHUB_API_URL was used unchecked: a traceback (exit 1), a password quoted from the parser's
    message, or events spooled as if GitHub were down."""
    _filled_store(store_path, runs=1)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_t0kenvalue")
    monkeypatch.setenv("GITHUB_API_URL", api)
    assert main(["notify", "--channel", "github-issues:me/proj", "--store", f"sqlite:{store_path}"]) == 2
    err = capsys.readouterr().err
    assert "GITHUB_API_URL: not a usable URL" in err and "s3cr3t" not in err, err


@pytest.mark.parametrize("verb", [["check", "--base", "main", "--head", "pr"],
                                  ["compare", "--base-branch", "main", "--head-branch", "pr"]])
@pytest.mark.parametrize("where", ["missing/x.md", ".", "/proc/x.md"])
def test_an_unwritable_markdown_comment_is_refused_before_any_work(verb, where, tmp_path, store_path, capsys, monkeypatch):
    """check --markdown into a missing folder ran every round, then lost the verdict (and its
    exit 1) to the write's error; /proc passed the permission check (a folder root may write)."""
    monkeypatch.chdir(tmp_path)
    _filled_store(store_path, runs=1)
    assert main([*verb, "--markdown", where, "--store", f"sqlite:{store_path}"]) == 2
    err = capsys.readouterr().err
    assert f"--markdown {Path(where)}: " in err and any(
        why in err for why in ("does not exist", "is a folder", "no file can be written", "not writable")), err


@pytest.mark.parametrize("args, variable", [
    (["notify", "--channel", "github-issues:acme/widget"], "GITHUB_TOKEN"),
    (["comment", "--repo", "acme/widget", "--head-repo", "acme/widget", "--head-sha", "a" * 40, "--artifacts", "."],
     "GITHUB_TOKEN"),
    (["history", "--store", "bencher+http://127.0.0.1:9/proj"], "BENCHER_API_TOKEN"),
])
def test_a_token_no_header_can_carry_is_a_clear_error(args, variable, tmp_path, store_path, capsys, monkeypatch):
    """A token pasted with an accented character ended notify and comment with a traceback from
    the HTTP client (exit 1, the "regression found" code)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(variable, "ghp_s3cr3t\u00e9")
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")
    _filled_store(store_path, runs=1)
    if "--store" not in args:
        args = [*args, "--store", f"sqlite:{store_path}"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{variable} holds characters no token has" in err and "s3cr3t" not in err, err
    # a placeholder: every "1" of the refusal was hidden as the secret, "HTTP 40***"
    monkeypatch.setenv(variable, "1")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{variable} holds 1 character(s), fewer than any token has (a placeholder?)" in err, err


def _damaged(store: Path) -> None:
    """Overwrite four pages a third of the way into the file; the header stays intact."""
    data = bytearray(store.read_bytes())
    page = 4096
    for n in range(len(data) // page // 3, len(data) // page // 3 + 4):
        data[n * page:(n + 1) * page] = b"\x55" * page
    store.write_bytes(bytes(data))


def test_damage_inside_the_file_is_an_error_and_nothing_is_written(tmp_path, store_path):
    _filled_store(store_path)
    assert store_path.stat().st_size // 4096 > 20
    _damaged(store_path)
    before = store_path.read_bytes()
    proc = perfgate("ingest", str(HYPERFINE), "--branch", "main", "--commit", "e" * 40, store=store_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and ("integrity check" in err or "damaged" in err), err
    assert "nothing was written" in err and "Traceback" not in err, err
    assert store_path.read_bytes() == before
    # every run read (the damage is in the samples of older runs than history's default 30 shows)
    for verb in (["history", "--limit", "0"], ["export", "--format", "json"], ["detect", "--no-record"]):
        proc = perfgate(*verb, store=store_path)
        err = proc.stderr.decode()
        assert proc.returncode == 2 and str(store_path) in err, (verb, err)
        clean(err)
    assert store_path.read_bytes() == before


def test_a_damaged_copy_of_a_data_branch_is_set_aside_and_made_again_only_when_asked(tmp_path, store_path):
    """CI keeps the store in the Actions cache as a head start on importing the data branch; a
    damaged entry failed every job that restored it, until someone deleted it.  With
    ``--set-aside-damaged`` (the action's import) it is renamed, kept for a look, and the store is
    made again from the folder; without it the import stops as before, and a file that never was
    a history is never set aside."""
    _filled_store(store_path)
    data = tmp_path / "data"
    assert perfgate("sync", "--export", str(data), store=store_path).returncode == 0
    _damaged(store_path)
    before = store_path.read_bytes()
    proc = perfgate("sync", "--import", str(data), store=store_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "damaged" in err and store_path.read_bytes() == before, err
    proc = perfgate("sync", "--import", str(data), "--set-aside-damaged", "--json", store=store_path)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    [aside] = tmp_path.glob(f"{store_path.name}.damaged-*")
    assert aside.read_bytes() == before and f"set aside as {aside}" in err and "damaged" in err, err
    clean(err)
    assert json.loads(proc.stdout)["runs_added"] == 40
    with SqliteStore(store_path) as s:
        assert len(s.runs()) == 40 and s.db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    # not a history at all: named, left as it is
    swapped = tmp_path / "out.json"
    swapped.write_text("[]\n")
    proc = perfgate("sync", "--import", str(data), "--set-aside-damaged", store=swapped)
    assert proc.returncode == 2 and swapped.read_text() == "[]\n" and not list(tmp_path.glob("out.json.damaged-*"))
    assert perfgate("sync", "--export", str(data), "--set-aside-damaged", store=store_path).returncode == 2


def test_a_newer_perfgates_copy_of_a_data_branch_is_set_aside_and_made_again_only_when_asked(tmp_path, store_path):
    """The workflow restores the newest cached store whatever perfgate wrote it: after a
    downgraded action, one of a newer schema failed every job (this perfgate cannot read it) until
    the entry was evicted.  With ``--set-aside-damaged`` it is a copy like a damaged one: renamed
    ``FILE.newer-TIME`` and made again from the folder; without the flag the import stops."""
    _filled_store(store_path)
    data = tmp_path / "data"
    assert perfgate("sync", "--export", str(data), store=store_path).returncode == 0
    with SqliteStore(store_path) as s:
        newer = s.schema_version() + 1
    db = sqlite3.connect(store_path)
    db.execute(f"PRAGMA user_version = {newer}")
    db.close()
    before = store_path.read_bytes()
    proc = perfgate("sync", "--import", str(data), store=store_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and f"schema version {newer} is newer" in err and store_path.read_bytes() == before, err
    proc = perfgate("sync", "--import", str(data), "--set-aside-damaged", "--json", store=store_path)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    [aside] = tmp_path.glob(f"{store_path.name}.newer-*")
    assert aside.read_bytes() == before and f"set aside as {aside}" in err and "newer" in err, err
    assert not list(tmp_path.glob(f"{store_path.name}.damaged-*"))
    clean(err)
    assert json.loads(proc.stdout)["runs_added"] == 40
    with SqliteStore(store_path) as s:
        assert len(s.runs()) == 40 and s.schema_version() == newer - 1


@pytest.mark.parametrize("verb", [["ingest", str(HYPERFINE), "--branch", "main", "--commit", COMMIT], ["history"]])
def test_a_store_that_is_no_sqlite_file_is_not_called_damaged(verb, tmp_path):
    """``--store sqlite:out.json`` (the store and the input swapped) said the file was damaged and
    to restore it from a backup; it never was a history.  The JSON is left as it was."""
    swapped = tmp_path / "out.json"
    swapped.write_text('[{"name": "a", "unit": "ns", "value": 1}]\n')
    before = swapped.read_bytes()
    proc = perfgate(*verb, store=swapped)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert ("out.json: the file is not a SQLite history (file is not a database; it begins b'[{\"name\": \"a\", \"'): "
            "is --store the right file? If it is, its header is damaged: restore it from a backup; nothing was "
            "written\n") in err, err
    assert swapped.read_bytes() == before and not (tmp_path / "out.json-wal").exists()
    clean(err)


def test_a_detect_that_records_refuses_a_damaged_store_checked_beside_its_work(tmp_path, store_path):
    """``detect`` starts the integrity check in a child process while it loads and analyses; the
    child finding damage (it only ever clears the file) leaves the verdict to the writer's own
    check: the same error, and not a byte written."""
    _filled_store(store_path)
    _damaged(store_path)
    before = store_path.read_bytes()
    proc = perfgate("detect", store=store_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and str(store_path) in err and "nothing was written" in err, err
    assert "Traceback" not in err
    assert store_path.read_bytes() == before


def test_the_integrity_check_beside_the_work_only_ever_spares_the_writers_own(tmp_path, store_path, monkeypatch):
    from perfgate.store import integrity

    _filled_store(store_path)
    Path(f"{store_path}.checked").unlink()     # the filling writer's note would spare the check
    # an intact file: the child's "ok" is taken, the writer does not check again
    verdicts = []
    passed = integrity.passed
    monkeypatch.setattr(integrity, "passed", lambda check: verdicts.append(passed(check)) or verdicts[-1])
    with SqliteStore(store_path) as s:
        s.expect_writes()
        assert s._check is not None
        s.add_run(Run("default", "main", "f" * 40, Bed("tb"), [Metric("bench-0", "latency", 1.0)], start_time=2e9))
        assert s._intact and s._check is None and verdicts == [True]
    # a child that fails (or prints anything but ok) leaves the check to the writer, which finds the damage
    _damaged(store_path)
    before = store_path.read_bytes()
    monkeypatch.setattr(integrity, "start", lambda path: subprocess.Popen(
        [sys.executable, "-c", "print('ok'); raise SystemExit(3)"], stdout=subprocess.PIPE))
    with SqliteStore(store_path) as s:
        s.expect_writes()
        with pytest.raises(Exception, match="integrity check|damaged"):
            s.add_run(Run("default", "main", "e" * 40, Bed("tb"), [Metric("bench-0", "latency", 1.0)], start_time=2e9))
    assert store_path.read_bytes() == before
    # a check no longer needed is ended with the store
    monkeypatch.setattr(integrity, "start", lambda path: subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], stdout=subprocess.PIPE))
    s = SqliteStore(store_path)
    s.expect_writes()
    child = s._check
    s.close()
    assert child.returncode is not None


def _add_one(s: SqliteStore, commit: str = "f" * 40) -> None:
    s.add_run(Run("default", "main", commit, Bed("tb"), [Metric("bench-0", "latency", 1.0)], start_time=2e9))


def test_a_writer_after_a_checked_writer_does_not_check_the_unchanged_file_again(tmp_path, store_path, monkeypatch):
    """``ingest`` then ``detect``: the second writer finds the file as the first, which checked it,
    left it (``FILE.checked``), and writes without reading every page again."""
    from perfgate.store import integrity

    _filled_store(store_path)
    assert Path(f"{store_path}.checked").is_file()
    started = []
    monkeypatch.setattr(integrity, "start", lambda path: started.append(path))
    with SqliteStore(store_path) as s:
        assert s._intact
        s.expect_writes()
        _add_one(s)
    assert started == []
    # each writer notes the file as it leaves it: the next one is spared too
    with SqliteStore(store_path) as s:
        assert s._intact
    # a reader's handle leaves no note of its own (opening a history to read it writes nothing)
    Path(f"{store_path}.checked").unlink()
    SqliteStore(store_path).close()
    assert not Path(f"{store_path}.checked").exists()


def test_ingest_then_detect_check_the_history_once(tmp_path, store_path, monkeypatch, capsys):
    """Each verb's writer finds the file as the one before it left it: the integrity check runs at
    the first write of a history no checked writer left (here: a new one), not at every verb's."""
    from perfgate.store import checked_note

    found = []
    unchanged = checked_note.unchanged_since_checked
    monkeypatch.setattr(checked_note, "unchanged_since_checked", lambda path: found.append(unchanged(path)) or found[-1])
    for i in range(3):
        assert ingest(str(HYPERFINE), "--branch", "main", "--commit", f"{i:040x}", store=store_path) == 0
    assert main(["detect", "--store", f"sqlite:{store_path}"]) in (0, 1)
    assert ingest(str(HYPERFINE), "--branch", "main", "--commit", "e" * 40, store=store_path) == 0
    capsys.readouterr()
    assert found == [False, True, True, True, True]


def test_damage_after_a_checked_writer_is_found_even_with_its_times_set_back(tmp_path, store_path):
    """Size and modification time put back as they were: the status-change time, which no tool
    can set, still differs, and the file is checked."""
    _filled_store(store_path)
    before_stat = store_path.stat()
    _damaged(store_path)
    os.utime(store_path, ns=(before_stat.st_atime_ns, before_stat.st_mtime_ns))
    assert store_path.stat().st_size == before_stat.st_size
    before = store_path.read_bytes()
    proc = perfgate("ingest", str(HYPERFINE), "--branch", "main", "--commit", "e" * 40, store=store_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "nothing was written" in err, err
    assert store_path.read_bytes() == before


def test_a_writer_another_connection_wrote_beside_leaves_no_note(tmp_path, store_path):
    """What another connection committed meanwhile was checked by no one this handle knows of."""
    _filled_store(store_path)
    Path(f"{store_path}.checked").unlink()
    with SqliteStore(store_path) as s:
        _add_one(s)
        other = sqlite3.connect(store_path)
        other.execute("UPDATE project SET name = name")
        other.commit()
        other.close()
    assert not Path(f"{store_path}.checked").exists()
    with SqliteStore(store_path) as s:
        assert not s._intact
        _add_one(s, "e" * 40)      # checked, then noted
    assert Path(f"{store_path}.checked").is_file()
    # a note that does not parse, or names another file, spares nothing
    for text in ("{", json.dumps({"file": [0, 0, 0, 0, 0], "wal": None})):
        Path(f"{store_path}.checked").write_text(text)
        with SqliteStore(store_path) as s:
            assert not s._intact


def test_the_check_beside_the_work_reads_through_a_map_and_still_sees_damage(tmp_path, store_path):
    """The child reads the file through a memory map (a third faster); what it says of an intact
    and of a damaged file is what SQLite's check says."""
    from perfgate.store import integrity

    _filled_store(store_path)
    check = integrity.start(store_path)
    assert integrity.passed(check)
    _damaged(store_path)
    check = integrity.start(store_path)
    assert not integrity.passed(check) and check.returncode in (0, 1)   # "damaged", or SQLite's error


@pytest.mark.parametrize("where", [i / 12 for i in range(1, 13)])
def test_damage_anywhere_is_never_a_traceback_nor_written_into(where, tmp_path, store_path, capsys):
    """One page overwritten at 1/12 … 12/12 of the file (the last one: the newest pages)."""
    _filled_store(store_path, runs=30)
    data = bytearray(store_path.read_bytes())
    page = 4096
    n = min(int(len(data) / page * where), len(data) // page - 1)
    data[n * page:(n + 1) * page] = bytes((i * 37 + 11) % 256 for i in range(page))
    store_path.write_bytes(bytes(data))
    db = sqlite3.connect(store_path)
    try:
        intact = [r[0] for r in db.execute("PRAGMA quick_check")] == ["ok"]
    except sqlite3.DatabaseError:
        intact = False
    db.close()
    before = store_path.read_bytes()
    store = f"sqlite:{store_path}"
    for verb in (["history"], ["export", "--format", "csv"], ["detect", "--no-record"], ["alerts"]):
        code = main([*verb, "--store", store])  # an uncaught exception fails the test here
        err = capsys.readouterr().err
        assert code in (0, 1, 2), (verb, err)
        assert code != 2 or str(store_path) in err, (verb, err)
    assert store_path.read_bytes() == before
    code = ingest(str(HYPERFINE), "--branch", "main", "--commit", "e" * 40, store=store_path)
    err = capsys.readouterr().err
    if not intact:
        assert code == 2 and "nothing was written" in err, err
        assert store_path.read_bytes() == before
    else:
        assert code == 0, err


def test_newer_schema_is_refused_before_anything_is_changed(tmp_path, store_path):
    db = sqlite3.connect(store_path)
    db.execute("CREATE TABLE future (x)")
    db.execute("PRAGMA user_version = 99")
    db.close()
    before = store_path.read_bytes()
    proc = perfgate("history", store=store_path)
    assert proc.returncode == 2 and b"newer" in proc.stderr, proc.stderr
    assert store_path.read_bytes() == before
    assert not Path(f"{store_path}-wal").exists()
    db = sqlite3.connect(store_path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()


def test_locked_store_is_a_clear_error(tmp_path, store_path, monkeypatch, capsys):
    _filled_store(store_path, runs=2)
    holder = sqlite3.connect(store_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 300)
    try:
        code = ingest(str(HYPERFINE), "--branch", "main", "--commit", COMMIT, store=store_path)
        err = capsys.readouterr().err
        assert code == 2 and "locked by another process" in err and "not a usable" not in err, err
        # Readers are not blocked by a writer (WAL).
        assert main(["history", "--store", f"sqlite:{store_path}"]) == 0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert runs_in(store_path) == 2


@pytest.fixture
def shared_dir():
    """A folder another user can read but not write (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="perfgate-ro-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to act as another user")
def test_read_only_store_can_be_read_but_not_written(shared_dir):
    store = shared_dir / "history.db"
    _filled_store(store, runs=3)
    store.chmod(0o644)
    before = store.read_bytes()
    nobody = "65534"
    env = {"HOME": str(shared_dir)}
    shown = perfgate("history", "--json", store=store, user=nobody, env=env)
    assert shown.returncode == 0, shown.stderr
    assert len(json.loads(shown.stdout)) == 20
    exported = perfgate("export", "--format", "json", store=store, user=nobody, env=env)
    assert exported.returncode == 0 and len(json.loads(exported.stdout)) == 3, exported.stderr
    refused = perfgate("ingest", str(HYPERFINE), "--branch", "main", "--commit", COMMIT, store=store, user=nobody,
                       env=env)
    assert refused.returncode == 2 and b"read-only" in refused.stderr, refused.stderr
    assert store.read_bytes() == before


def _tiny_tmpfs(path: Path, size: str = "16k") -> bool:
    path.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True).returncode == 0


def _fill(disk: Path) -> None:
    """Fill the disk to the last block (the file ``filler``; unlink it to make room again)."""
    with (disk / "filler").open("wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"x" * 512)
        except OSError:
            pass


@contextmanager
def _tiny_disk(tmp_path: Path, size: str = "16k"):
    """A tmpfs of ``size`` at ``tmp_path / "full"``, unmounted after (skips where none can be
    mounted: see test_full_disk_simulated)."""
    full = tmp_path / "full"
    if os.geteuid() != 0 or not _tiny_tmpfs(full, size):
        pytest.skip("cannot mount a tiny tmpfs here (see test_full_disk_simulated)")
    try:
        yield full
    finally:
        subprocess.run(["umount", str(full)], check=True)


@contextmanager
def _full_disk(tmp_path: Path):
    """A 16 KiB tmpfs filled to its last block, unmounted after."""
    with _tiny_disk(tmp_path) as full:
        _fill(full)
        yield full


def _ingest_is_refused_for_a_full_disk(store: Path) -> None:
    proc = perfgate("ingest", str(HYPERFINE), "--branch", "main", "--commit", COMMIT, store=store)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "disk is full" in err and "nothing was written" in err, err
    clean(err)


@pytest.mark.parametrize("verb", ["export", "pages", "compare-markdown"])
def test_full_disk_leaves_no_partial_output(verb, tmp_path, store_path):
    _filled_store(store_path, runs=30)
    with _full_disk(tmp_path) as full:
        if verb == "export":
            args = ["export", "--format", "json", "-o", str(full / "out.json")]
        elif verb == "pages":
            args = ["pages", "--out", str(full / "site")]
        else:
            args = ["compare", "--markdown", str(full / "comment.md"), *_oldest_and_newest(store_path)]
        proc = perfgate(*args, store=store_path)
        err = proc.stderr.decode()
        assert proc.returncode == 2 and ("No space left" in err or "disk" in err), err
        clean(err)
        left = [p for p in full.rglob("*") if p.is_file() and p.name != "filler"]
        assert left == [], left


def test_full_disk_under_the_store_is_an_error_and_the_store_stays_whole(tmp_path):
    with _tiny_disk(tmp_path, "512k") as full:
        store = full / "history.db"
        _filled_store(store, runs=2)
        _fill(full)
        _ingest_is_refused_for_a_full_disk(store)
        (full / "filler").unlink()
        with SqliteStore(store) as s:
            assert len(s.runs()) == 2
            assert [r[0] for r in s.db.execute("PRAGMA integrity_check")] == ["ok"]


def test_a_disk_that_fills_during_a_large_record_is_named_as_the_reason(tmp_path):
    """A history of many runs recorded in one transaction (github-action-benchmark's data.js) on a
    disk that filled half way: SQLite had ended the transaction itself, the ROLLBACK after it
    failed, and its "cannot rollback - no transaction is active" was given as the reason."""
    with _tiny_disk(tmp_path, "512k") as full:
        store = full / "history.db"
        _filled_store(store, runs=2)
        entries = [{"commit": {"id": f"{i:040x}", "timestamp": "2024-01-01T00:00:00Z"}, "date": 1.7e12 + i * 3.6e6,
                    "tool": "customSmallerIsBetter",
                    "benches": [{"name": f"b{k}", "unit": "ns", "value": 100 + k} for k in range(40)]}
                   for i in range(2500)]   # past SQLite's 2 MB page cache: it spills, and fails, mid-transaction
        data = tmp_path / "data.js"
        data.write_text("window.BENCHMARK_DATA = " + json.dumps({"entries": {"Suite": entries}}))
        proc = perfgate("ingest", str(data), "--testbed", "ci", store=store)
        err = proc.stderr.decode()
        assert proc.returncode == 2 and "nothing was written: the disk is full" in err, err
        clean(err)
        with SqliteStore(store) as s:
            assert len(s.runs()) == 2
            assert [r[0] for r in s.db.execute("PRAGMA integrity_check")] == ["ok"]


def test_an_export_that_fills_the_disk_says_what_it_wrote_and_a_second_one_finishes(tmp_path, store_path):
    """``sync --export`` onto a disk that filled half way said "nothing was written" (of the one
    file it failed on) with the run files before it in the folder."""
    with _tiny_disk(tmp_path, "64k") as full:
        _filled_store(store_path, runs=30)
        proc = perfgate("sync", "--export", str(full / "data"), store=store_path)
        err = proc.stderr.decode()
        written = len(list((full / "data").rglob("*.json")))
        assert proc.returncode == 2 and "No space left on device" in err and written > 0, err
        assert (f"but the {written} file(s) written to {full / 'data'} before it are whole: run the export again"
                in err), err
        clean(err)
        subprocess.run(["mount", "-o", "remount,size=8m", str(full)], check=True)
        proc = perfgate("sync", "--export", str(full / "data"), "--json", store=store_path)
        assert proc.returncode == 0 and json.loads(proc.stdout)["runs_written"] == 30 - written, proc.stderr


def test_a_notify_ledger_that_cannot_be_made_on_a_full_disk_leaves_no_empty_file(tmp_path, store_path):
    # An audit: notify on a full disk was a clean error, but left a 0-byte notify.db behind.
    _filled_store(store_path, runs=2)
    with _full_disk(tmp_path) as full:
        proc = perfgate("notify", "--channel", "webhook:http://127.0.0.1:9/x", "--ledger", str(full / "notify.db"),
                        store=store_path)
        err = proc.stderr.decode()
        assert proc.returncode == 2 and "cannot open the delivery ledger" in err, err
        clean(err)
        assert not (full / "notify.db").exists()


def test_a_migration_that_runs_out_of_disk_leaves_the_old_store_whole(tmp_path):
    """Migration 6 copies every metric and sample into new tables before dropping the old one; on a
    full disk the copy fails, the store stays at version 4 with every run, and it migrates once
    there is room."""
    from old_schemas import take_back

    with _tiny_disk(tmp_path, "1m") as full:
        store = full / "history.db"
        _filled_store(store, runs=12)
        take_back(store, 4)
        _fill(full)
        _ingest_is_refused_for_a_full_disk(store)
        (full / "filler").unlink()          # room again (a WAL store cannot even be read on a full disk)
        db = sqlite3.connect(store)
        try:
            assert db.execute("PRAGMA user_version").fetchone()[0] == 4
            assert db.execute("SELECT COUNT(*) FROM metric WHERE samples IS NOT NULL").fetchone()[0] == 12 * 20
        finally:
            db.close()
        with SqliteStore(store) as s:
            assert s.schema_version() == len(MIGRATIONS) and len(s.runs()) == 12
            assert [r[0] for r in s.db.execute("PRAGMA integrity_check")] == ["ok"]


def _oldest_and_newest(store: Path) -> list[str]:
    with SqliteStore(store) as s:
        runs = s.runs()
    return ["--base", runs[-1].run_id, "--head", runs[0].run_id]


def test_full_disk_simulated(tmp_path, store_path, monkeypatch, capsys):
    """The same guarantee without root: every write of the output helper fails with ENOSPC."""
    import errno

    from perfgate import outputs

    _filled_store(store_path, runs=3)
    target = tmp_path / "out.csv"
    target.write_text("previous export\n")

    def no_space(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(outputs.os, "fsync", no_space)
    code = main(["export", "--format", "csv", "-o", str(target), "--store", f"sqlite:{store_path}"])
    err = capsys.readouterr().err
    assert code == 2 and "No space left" in err and "nothing was written" in err, err
    assert target.read_text() == "previous export\n"
    # nothing left behind but the history, the lock file its writers take turns by and its filling
    # writer's note that it checked it
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        sorted(["out.csv", store_path.name, store_path.name + ".lock", store_path.name + ".checked"])


# --- smaller: silent data loss ---------------------------------------------------------------------------

def test_duplicate_bmf_keys_are_refused(tmp_path, store_path, capsys):
    text = '{"sort": {"latency": {"value": 1.0}, "latency": {"value": 2.0}}}'
    code = ingest(str(bmf(tmp_path, text)), "--adapter", "bmf", "--branch", "main", "--commit", COMMIT,
                  store=store_path)
    err = capsys.readouterr().err
    assert code == 2 and "'latency' appears twice" in err, err
    assert runs_in(store_path) == 0


def test_a_benchmark_in_two_files_of_one_run_names_both_files(tmp_path, store_path, capsys):
    one = bmf(tmp_path, {"sort": {"latency": {"value": 1.0}}}, "one.json")
    two = bmf(tmp_path, {"scan": {"latency": {"value": 3.0}}, "sort": {"latency": {"value": 2.0}}}, "two.json")
    code = ingest(str(one), str(two), "--adapter", "bmf", "--branch", "main", "--commit", COMMIT, store=store_path)
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and f"in both {one} and {two}" in err and "'sort'" in err, err
    assert runs_in(store_path) == 0


def test_duplicate_keys_in_a_streamed_hyperfine_file_are_refused(tmp_path, store_path, capsys):
    doc = HYPERFINE.read_text().replace('"command":', '"mean": 1.0, "command":', 1)
    code = ingest(str(bmf(tmp_path, doc, "hf.json")), "--adapter", "hyperfine", "--branch", "main",
                  "--commit", COMMIT, store=store_path)
    err = capsys.readouterr().err
    assert code == 2 and "'mean' appears twice" in err and "results[0]" in err, err


def test_go_bench_cut_at_a_line_boundary_is_not_a_complete_run(tmp_path, store_path, capsys):
    lines = GO.read_text().splitlines(keepends=True)
    last_result = max(i for i, line in enumerate(lines) if line.startswith("Benchmark"))
    cut = tmp_path / "cut.txt"
    cut.write_text("".join(lines[:last_result]))  # ends at a line boundary, before PASS / ok
    code = ingest(str(cut), "--adapter", "go-bench", "--branch", "main", "--commit", COMMIT, store=store_path)
    err = capsys.readouterr().err
    assert code == 2 and "cut short" in err, err
    assert runs_in(store_path) == 0


def test_negative_times_refused_in_scaling_tsv_measurement_columns(tmp_path, store_path, capsys):
    text = (FIX / "scaling-tsv" / "synthetic-vo.tsv").read_text().splitlines()
    first = next(i for i, line in enumerate(text) if line and not line.startswith("#"))
    fields = text[first].split("\t")
    fields[-1] = "-" + fields[-1]
    text[first] = "\t".join(fields)
    bad = tmp_path / "neg.tsv"
    bad.write_text("\n".join(text) + "\n")
    code = ingest(str(bad), "--adapter", "scaling-tsv", "--branch", "main", "--commit", COMMIT, store=store_path)
    err = capsys.readouterr().err
    assert code == 2 and "total(ns)" in err and "negative" in err and f"line {first + 1}" in err, err


def test_negative_values_still_allowed_in_delta_columns(tmp_path, store_path, capsys):
    text = "# delta bench\n#\n# values Δtotal(ns)\n1\t-5\n2\t10\n3\t20\n4\t-3\n"
    path = tmp_path / "delta.tsv"
    path.write_text(text)
    code = ingest(str(path), "--adapter", "scaling-tsv", "--branch", "main", "--commit", COMMIT, store=store_path)
    assert code == 0, capsys.readouterr().err


def test_yaml_alias_bomb_in_a_thresholds_file_is_refused(tmp_path, store_path):
    # 409 bytes that expand to 9^9 strings: the code before the fix hung on it (over 60 s).
    levels = ["&a [" + ", ".join(["lol"] * 9) + "]"]
    levels += [f"&{n} [{', '.join(['*' + p] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi")]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("measure:\n  latency:\n    test: [" + ", ".join(levels) + "]\n")
    _filled_store(store_path, runs=2)
    proc = perfgate("detect", "--thresholds", str(bomb), "--no-record", store=store_path, timeout=30)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "aliases" in err and "bomb.yaml:line 3" in err, err


@pytest.mark.parametrize("name, text", [
    ("deep.toml", "[measure]\nx = " + "[" * 50_000 + "1" + "]" * 50_000 + "\n"),
    ("deep.yaml", "x: " + "[" * 50_000 + "]" * 50_000 + "\n"),
])
def test_settings_nested_too_deeply_are_refused_not_an_internal_error(name, text, tmp_path, store_path):
    # tomllib and PyYAML recurse per level: 50,000 '[' (100 KB) was a RecursionError, exit 3 (after
    # 3 minutes of PyYAML's scanner); the 60 s timeout of perfgate() holds the YAML case to it.
    deep = tmp_path / name
    deep.write_text(text)
    _filled_store(store_path, runs=2)
    proc = perfgate("detect", "--thresholds", str(deep), "--no-record", store=store_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and f"{name}:" in err and f"not valid {name[-4:].upper()}: nested too deeply" in err, err
    cx = tmp_path / "complexity.toml"
    cx.write_text(text.replace("[measure]", "[complexity]") if name.endswith(".toml") else "")
    if name.endswith(".toml"):
        proc = perfgate("fit", str(FIX / "scaling-tsv" / "async-deinit-quick-quadratic.tsv"), "-y", "S,T",
                        "--check", str(cx), store=store_path)
        err = proc.stderr.decode()
        assert proc.returncode == 2 and "complexity.toml: invalid TOML: nested too deeply" in err, err


# --- fuzz targets ----------------------------------------------------------------------------------------

FUZZ = settings(max_examples=int(os.environ.get("PERFGATE_FUZZ_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
NASTY = st.sampled_from(["\x1b[2J", "\r", "\x00", "\u202e", "\u2066", "\u2028", "\u2029", "\u200b", "\u00ad",
                         "\ufeff", "[/]", "[bold]", "`",
                         "\n", "..", "/", "@", "|", "<script>", "&#", "\\", "~", "\ud800", " "])
IDENTITY = st.lists(st.one_of(NASTY, st.text(min_size=1, max_size=8)), min_size=1, max_size=6).map("".join)


@FUZZ
@given(branch=IDENTITY, commit=IDENTITY, testbed=IDENTITY, project=st.one_of(st.just("default"), IDENTITY))
def test_fuzz_identity_arguments(branch, commit, testbed, project, tmp_path_factory, capsys):
    store = tmp_path_factory.mktemp("fuzz") / "h.db"
    try:
        code = ingest(str(HYPERFINE), f"--branch={branch}", f"--commit={commit}", f"--testbed={testbed}",
                      f"--project={project}", store=store)
    except SystemExit as e:  # argparse: a value starting with '-' taken for an option
        code = e.code
    out, err = capsys.readouterr()
    assert code in (0, 2), err
    clean(err)
    if code == 0:
        with SqliteStore(store, project) as s:
            [summary] = s.runs()
        assert (summary.branch, summary.commit, summary.testbed) == (branch, commit, testbed)
        assert not any(c in branch + commit + testbed + project for c in UNSAFE)
        code = main(["history", "--store", f"sqlite:{store}", f"--project={project}"])
        out, err = capsys.readouterr()
        assert code == 0 and "\x1b" not in out + err, err
    else:
        assert runs_in(store) == 0


SERIES_TEXT = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**400, 10**400),
                       st.text(max_size=5), st.none(), st.booleans()), max_size=60).map(json.dumps),
    st.lists(st.floats(-1e6, 1e6), min_size=0, max_size=80).map(lambda xs: "\n".join(map(repr, xs))),
    st.lists(st.tuples(st.integers(-5, 50), st.floats(-1e3, 1e3)), max_size=60)
    .map(lambda rows: "index,value\n" + "\n".join(f"{i},{v!r}" for i, v in rows)),
)


@FUZZ
@given(text=SERIES_TEXT, suffix=st.sampled_from([".csv", ".json", ".txt"]))
@example(text="value\n1\r5\n2\n", suffix=".csv")  # found by this target: a lone CR once gave a csv.Error
@example(text="[" * 100_000 + "]" * 100_000, suffix=".json")  # the campaign's deep nesting
@example(text="[" + "9" * 400 + ", 1, 2]", suffix=".json")  # and its 400-digit integer
def test_fuzz_series_files(text, suffix, tmp_path_factory, capsys):
    path = tmp_path_factory.mktemp("series") / f"series{suffix}"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    code = main(["detect", "--series", str(path), "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2), err
    clean(err)
    if code in (0, 1):
        json.loads(out)
    else:
        assert str(path) in err, err


def test_mode_bits_of_outputs_are_readable(tmp_path, store_path):
    """Atomic writes use a private temp file; the result must still be readable like a plain write."""
    _filled_store(store_path, runs=2)
    out = tmp_path / "out.json"
    assert main(["export", "--format", "json", "-o", str(out), "--store", f"sqlite:{store_path}"]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_values_near_the_largest_float_are_detected_listed_and_drawn_without_a_traceback(tmp_path, store_path, capsys):
    """A store series of values near 1.7e308: the threshold test's mean of them raised
    OverflowError from Python's math (`perfgate detect` ended with a traceback), so did the
    run-to-run CV of `perfgate history`, and the pages' sparkline scaled past the largest float."""
    with SqliteStore(store_path) as s:
        s.add_runs([Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric("b", "latency", 1.6e308 + i % 2 * 1e307),
                                                                     Metric("c", "latency", [1e-300, 1.7e308][i % 2])],
                        start_time=1_700_000_000.0 + i) for i in range(40)])
    store = f"--store=sqlite:{store_path}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = main(["detect", store, "--json"])
        out, err = capsys.readouterr()
        assert code == 0 and err == "", err
        assert [s["change_points"] for s in json.loads(out)["series"]] == [[], []]
        assert all(s["threshold"]["alert"] is None for s in json.loads(out)["series"])
        assert main(["history", store]) == 0
        out, err = capsys.readouterr()
        assert err == "" and "b" in out
        assert main(["pages", store, "--out", str(tmp_path / "site")]) == 0
        assert "Traceback" not in capsys.readouterr().err


FINITE = st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                   st.sampled_from([1.7e308, -1.7e308, 1e300, 1e-300, 5e-324, 0.0, 1.0]))


@FUZZ
@given(values=st.lists(FINITE, max_size=60))
@example(values=[1.7e308] * 40)                                     # the threshold test's mean: OverflowError
@example(values=[1e-300] * 6 + [1e308] * 6)                         # the check's MDE: OverflowError
@example(values=[1e-300] * 30 + [1e308] * 30 + [-1e308])            # over 1e308 times its median
def test_fuzz_extreme_magnitudes_are_analysed_without_floating_point_errors(values):
    """Any finite values, from subnormals to the largest float, through change points, every
    threshold test and the A/B comparisons: the median of an even count, sums and squares of such
    values, and the exponential of a log ratio once overflowed — a RuntimeWarning and infinities
    in the analysis, or an OverflowError from Python's math that ended `perfgate detect` with a
    traceback."""
    from perfgate.detect.changepoint import detect_change_points
    from perfgate.detect.compare import compare_rounds
    from perfgate.detect.threshold_tests import evaluate_series
    from perfgate.thresholds import TESTS, ThresholdTest

    half = len(values) // 2
    with warnings.catch_warnings(), np.errstate(over="raise", invalid="raise", divide="raise"):
        warnings.simplefilter("error")
        detect_change_points(values)
        for test in TESTS:
            bounds = (0.99, 0.99) if test in ("z_score", "t_test", "log_normal") else (0.1, 0.1)
            evaluate_series(ThresholdTest(test, lower_boundary=bounds[0], upper_boundary=bounds[1]), values)
        for measure in ("latency", "instructions"):
            compare_samples({("b", measure): values[:half]}, {("b", measure): values[half:]})
            compare_samples({("b", measure): values[:half]}, {("b", measure): values[half:2 * half]}, paired=True)
            rounds = [values[i:i + 3] for i in range(0, 3 * (half // 3), 3)]
            compare_rounds({("b", measure): rounds}, {("b", measure): rounds[::-1]})


@pytest.mark.parametrize("name", ["file:zz.db", ":memory:", "a?b#c.db"])
def test_a_store_path_is_taken_literally(name, tmp_path, cli):
    # An audit: SQLite read "file:zz.db" as a URI (zz.db written, the literal name locked and
    # looked for, so reads said "no perfgate history there") and ":memory:" as no file (runs
    # "recorded" and lost); the notify ledger the same.
    store = f"sqlite:{name}"
    cli("ingest", str(HYPERFINE), "--store", store, "--branch", "main", "--commit", COMMIT, "--testbed", "t",
        cwd=tmp_path, check=True)
    assert (tmp_path / name).is_file()
    listed = cli("history", "--store", store, "--json", cwd=tmp_path, check=True)
    assert len(json.loads(listed.stdout)) == 2
    ledger = cli("notify", "--store", store, "--ledger", name + ".notify", "--channel", "webhook:http://127.0.0.1:9/x",
                 cwd=tmp_path)
    assert ledger.returncode == 0 and (tmp_path / (name + ".notify")).is_file(), ledger.stderr


def test_an_unforeseen_failure_is_one_redacted_line_and_exit_3_not_1(store_path, capsys, monkeypatch):
    """A traceback exited 1, the code CI reads as "regression found" (a MemoryError in detect, an
    httpx error quoting a URL); now one line, redacted, with its own exit code."""
    from perfgate.commands import history
    from perfgate.redact import Secret, register

    register(Secret("s3cr3t-t0ken-value"))
    _filled_store(store_path, runs=1)

    def boom(args):
        raise RuntimeError("failed on http://host/s3cr3t-t0ken-value")

    monkeypatch.setattr(history, "run", boom)
    assert main(["history", "--store", f"sqlite:{store_path}"]) == 3
    err = capsys.readouterr().err
    assert "perfgate history: internal error: RuntimeError: failed on http://host/***" in err, err
    assert "s3cr3t" not in err and "Traceback" not in err

    monkeypatch.setattr(history, "run", lambda args: (_ for _ in ()).throw(MemoryError()))
    assert main(["history", "--store", f"sqlite:{store_path}"]) == 3
    assert "internal error: out of memory" in capsys.readouterr().err


@pytest.mark.parametrize("verb", [["history", "--json"], ["export", "--format", "csv"], ["detect", "--no-record"]])
def test_output_to_a_full_disk_is_an_error_not_an_internal_one(verb, store_path):
    """``perfgate export > out.csv`` on a full disk (here ``/dev/full``) was "internal error ...
    a bug unless out of memory", exit 3."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    _filled_store(store_path, runs=12)
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "perfgate.cli", *verb, "--store", f"sqlite:{store_path}"],
                              stdout=full, stderr=subprocess.PIPE, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err.endswith(f"perfgate {verb[0]}: error: the disk is full (No space left on device): the output was "
                        "cut short\n"), err
    clean(err)


@pytest.mark.parametrize("ref", ["", " ", "c"])
def test_an_empty_or_one_character_alert_id_acknowledges_nothing(ref, store_path, capsys):
    """'' is a prefix of every id: `perfgate alerts --ack "$ID"` with ID unset acknowledged the only
    alert, and the next notify closed its issue as accepted."""
    from perfgate.model import Alert

    with SqliteStore(store_path) as store:
        [alert] = store.record_alerts([Alert("main", "tb", "b", "latency", "c0ffee", "regression", 0.5)])
    assert main(["alerts", "--ack", ref, "--store", f"sqlite:{store_path}"]) == 2
    assert "give an id as listed, at least 4 characters" in capsys.readouterr().err
    with SqliteStore(store_path) as store:
        assert [a.status for a in store.alerts()] == ["active"]
    assert main(["alerts", "--ack", alert.id[:8], "--store", f"sqlite:{store_path}"]) == 0


@pytest.mark.parametrize("name", ["BM_Serialize<Object>", "Parse<Input>", "Sort<A>", "Render<Style, Link>",
                                  "Fill<Form>"])
def test_template_arguments_named_like_html_tags_are_names(name):
    """They were refused as <object>, <input>, <a>: a Google Benchmark file with one lost its run."""
    from perfgate.model import name_problem

    assert name_problem(name) is None
    assert name_problem(f"{name}<script>") is not None


def test_a_compare_with_nothing_in_common_is_no_verdict_not_a_pass(store_path, capsys):
    """A first-time user's compare took main's newest run, a container run on another testbed than
    the pull request's: every row 'missing in …', '0 regression(s) … among 0 comparison(s)', exit 0.
    Then an error (exit 2); now no verdict (exit 4), saying why."""
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", "c1", Bed("docker-cpp"), [Metric("BM_a", "latency", 1.0, samples=(1.0,) * 5)]),
                        Run("default", "my-pr", "c2", Bed("laptop"), [Metric("sort", "latency", 2.0, samples=(2.0,) * 5)])])
    assert main(["compare", "--base-branch", "main", "--head-branch", "my-pr", "--store", f"sqlite:{store_path}"]) == 4
    err = capsys.readouterr().err
    assert "perfgate compare: no verdict: nothing to compare" in err and "testbed docker-cpp" in err and "testbed laptop" in err, err


def test_the_compare_summary_counts_the_rows_not_judged(store_path, capsys):
    """The terminal's last line read '0 regression(s) … among 5 comparison(s)', exit 0, where the
    comment's headline said all 5 were not judged (one sample a side).  Nothing judged is now no
    pass either (no verdict, exit 4), and the summary still counts the row."""
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", b, c, Bed("tb"), [Metric("go", "latency", v, samples=(v,))])
                        for b, c, v in (("main", "c1", 1.0), ("pr", "c2", 1.5))])
    assert main(["compare", "--base-branch", "main", "--head-branch", "pr", "--store", f"sqlite:{store_path}"]) == 4
    assert "0 inconclusive, 1 not judged among 1 comparison(s)" in capsys.readouterr().out


def test_a_compare_from_branches_takes_the_base_run_on_the_heads_testbed(store_path, capsys):
    """The tour recorded main on the host, then a suite in a container (main's newest run), then
    the pull request on the host: the base is main's newest run on the host."""
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", b, c, Bed(tb), [Metric(name, "latency", 1.0, samples=(1.0, 1.1, 0.9, 1.0, 1.05))],
                            start_time=t)
                        for b, c, tb, name, t in (("main", "c1", "laptop", "sort", 1.0), ("main", "c2", "docker", "BM_a", 2.0),
                                                  ("my-pr", "c3", "laptop", "sort", 3.0))])
    assert main(["compare", "--base-branch", "main", "--head-branch", "my-pr", "--store", f"sqlite:{store_path}"]) == 0
    assert "against base main@c1" in capsys.readouterr().out


def test_a_detached_head_is_no_branch_name(tmp_path, monkeypatch, capsys):
    """On a detached HEAD git names the branch 'HEAD', which ingest recorded as a branch."""
    import subprocess

    repo = tmp_path / "r"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    for m in ("a", "b"):
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", m], check=True)
    subprocess.run([*git, "checkout", "-q", "HEAD~1"], check=True)
    monkeypatch.chdir(repo)
    for var in ("GITHUB_HEAD_REF", "GITHUB_REF_NAME"):
        monkeypatch.delenv(var, raising=False)
    assert ingest(str(HYPERFINE), store=tmp_path / "h.db") == 2
    assert "--branch is required outside a git checkout or on a detached HEAD" in capsys.readouterr().err
    assert not (tmp_path / "h.db").exists()


def test_detect_says_when_series_are_too_short_to_judge(tmp_path, store_path, capsys):
    """'8 points, no change point' (4 near 1, 4 near 100) and 'no change points in 29 series' after
    one run each read as a clean bill of health."""
    series = tmp_path / "s.csv"
    series.write_text("value\n" + "\n".join(["1", "1.01", "0.99", "1"] + ["100", "101", "99", "100"]) + "\n")
    assert main(["detect", "--series", str(series)]) == 0
    assert "8 points, no change point (too few to judge: a change needs 5 runs on each side)" in capsys.readouterr().out
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", "c1", Bed("tb"), [Metric("sort", "latency", 1.0)])])
    assert main(["detect", "--store", f"sqlite:{store_path}"]) == 0
    assert "1 of 1 series have fewer than 10 runs: too few for a change point" in capsys.readouterr().err


def test_compare_takes_a_run_id_by_a_unique_prefix(store_path, capsys):
    """Alerts and bisect take an id's prefix; compare said "no run" for one."""
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", b, c, Bed("tb"), [Metric("sort", "latency", v, samples=(v, v * 1.01, v * 0.99, v, v))],
                            start_time=t) for b, c, v, t in (("main", "c1", 1.0, 1.0), ("pr", "c2", 1.0, 2.0))])
        base, head = sorted(store.runs(), key=lambda r: r.start_time)
    assert main(["compare", "--base", base.run_id[:8], "--head", head.run_id[:8], "--store", f"sqlite:{store_path}"]) == 0
    assert "against base main@c1" in capsys.readouterr().out


def test_a_benchmark_name_with_a_typo_gets_the_near_names(store_path, capsys):
    with SqliteStore(store_path) as store:
        store.add_runs([Run("default", "main", "c1", Bed("tb"), [Metric("sort -n big.txt", "latency", 1.0)])])
    assert main(["history", "sort -n big.tx", "--store", f"sqlite:{store_path}"]) == 2
    assert "did you mean 'sort -n big.txt'?" in capsys.readouterr().err


def test_a_text_output_saved_with_a_byte_order_mark_is_read_without_it(tmp_path, store_path, capsys):
    """PowerShell's Out-File writes a BOM first: in an output whose first line is a benchmark
    result, that line was no result line, and its sample was lost without a word."""
    lines = GO.read_text(encoding="utf-8").splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith("Benchmark"))
    path = tmp_path / "bench.txt"
    path.write_text("\ufeff" + "".join(lines[first:]), encoding="utf-8")
    assert ingest(str(path), "--branch", "main", "--commit", COMMIT, store=store_path) == 0, capsys.readouterr().err
    with SqliteStore(store_path) as s:
        names = {k.benchmark: k for k in s.series_keys()}
        assert not any("\ufeff" in n for n in names), names
        # its first line's sample was dropped without a word: "\ufeffBenchmarkConcat-2" is no result line
        concat = s.series(names["BenchmarkConcat-2"])
    assert len(concat[0].samples) == sum(line.startswith("BenchmarkConcat-2") for line in lines) == 5
