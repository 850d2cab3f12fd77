"""``perfgate ingest FILE... -- COMMAND``: run the harness, then read what it wrote.

A harness the user runs before ``ingest`` leaves a run with no load recorded, so ``detect``
cannot hold a wall-time streak measured on a loaded machine (:mod:`perfgate.detect.load_hold`).
Run by ingest, the command's start, end and load (:mod:`perfgate.host_load`) are the run's.

The command runs as given (no shell), with this process's stdin, stdout, stderr and environment:
the harness's progress shows as it would without perfgate (on stderr with --json).  What is recorded of it is its
command line with what looks secret masked (:func:`command_line`); never the environment.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import stat
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from perfgate import host_load
from perfgate.errors import InputError, PerfgateError, Terminated
from perfgate.redact import MASK, MIN_PIECE, redact
from perfgate.tempdirs import held_signals

# How long an interrupted command has to stop on the signal it was passed before it is killed.
GRACE = 3.0

# Names of environment variables whose value is a secret (``API_KEY``); of options and headers
# also ``auth`` (``--auth``, ``Authorization:``), which the environment's names are not for:
# SSH_AUTH_SOCK, XAUTHORITY are paths.
_SECRET_WORDS = r"token|secret|passw|credential|api[_-]?key|access[_-]?key|private[_-]?key"
_SECRET_VARIABLE = re.compile(f"(?i){_SECRET_WORDS}")
_SECRET_NAME = re.compile(f"(?i){_SECRET_WORDS}|auth")
_NAMED_VALUE = re.compile(r"\A(-*[\w.-]+)(=|:\s*)(.+)\Z", re.DOTALL)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@")
# Inside one word that is a script (`sh -c '...'`, the README's form for a shell command): a
# secret-named option's value after '=', ': ' or (for a dashed option) a space, and in any word a
# URL query parameter named like a secret (`?access_token=X`).
_IN_SCRIPT = re.compile(rf"(?i)((?:\B-{{1,2}}|\b)[\w.-]*(?:{_SECRET_WORDS}|auth)[\w.-]*)(=|:[ \t]*|(?<=[\w.-])[ \t]+(?=\S))"
                        r"([\"']?)([^\s\"'&;|]+)")
_IN_QUERY = re.compile(rf"(?i)([?&][\w.-]*(?:{_SECRET_WORDS}|auth)[\w.-]*=)([^&#\s\"']+)")


@dataclass
class Ran:
    start: float              # epoch seconds
    end: float
    context: dict[str, Any]   # ``command`` and, where it can be read, ``host_load``


def check(command: list[str], files: list[str]) -> None:
    """What a command cannot be given, before it runs."""
    if not command:
        raise InputError("--", "", "names no command: give the harness to run after it, e.g. "
                         "`-- hyperfine --export-json out.json 'sort big.txt'` (nothing was recorded)")
    if "-" in files:
        # The command inherits stdin, and its stdout goes to the terminal: '-' would read neither.
        raise InputError("<stdin>", "", "is not the command's output (its stdout is shown, not read): have the "
                         "harness write a FILE and name that (nothing was recorded)")


def snapshot(files: list[str]) -> dict[str, object]:
    """Each FILE's state before the command runs, to tell afterwards which ones it wrote."""
    return {path: _state(path) for path in files}


def run(command: list[str], stdout_to_stderr: bool = False) -> Ran:
    """Run ``command`` to its end; raise (nothing recorded) when it cannot start or fails, and pass
    Ctrl-C or SIGTERM on to it, stopping it before perfgate unwinds.  ``stdout_to_stderr``: with
    --json, perfgate's stdout is the JSON alone (the action's stdout-file, a script's pipe)."""
    shown = command_line(command)
    start = time.time()
    before = host_load.reading()
    proc = None
    try:
        # a signal while the command starts acts once perfgate holds its process: raised inside
        # Popen, after the fork, it left the command running, orphaned, with perfgate's stderr open
        with held_signals():
            try:
                proc = subprocess.Popen(command, stdout=2 if stdout_to_stderr else None)
            except OSError as e:
                raise PerfgateError(f"the command `{shown}` could not be started: {e.strerror or e} "
                                    "(nothing was recorded)") from None
        code = proc.wait()
    except KeyboardInterrupt as e:
        if proc is not None:
            _stop(proc, signal.SIGTERM if isinstance(e, Terminated) else signal.SIGINT)
        raise
    load = host_load.during(before)
    end = time.time()
    if code != 0:
        how = f"was killed by {signal.Signals(-code).name}" if code < 0 and -code in _SIGNALS else f"exited {code}"
        raise PerfgateError(f"the command `{shown}` {how}: nothing was recorded (its output is above)")
    return Ran(start, end, {"command": shown, **load})


_SIGNALS = {s.value for s in signal.Signals}


def refuse_stale(before: dict[str, object], shown: str) -> None:
    """Refuse a FILE the command did not write or update: an earlier run's output read as this
    one's would carry this command's load and times, and ``detect`` would judge it by them."""
    for path, was in before.items():
        now = _state(path)
        if now is None:
            raise InputError(path, "", f"the command `{shown}` did not write it (it is not there): is the path the "
                             "one the harness writes? (nothing was recorded)")
        if now == was:
            raise InputError(path, "", f"the command `{shown}` did not write or update it (unchanged since before "
                             "it ran: an earlier run's output?); name the file the harness writes (nothing was "
                             "recorded)")


def _state(path: str) -> object:
    """What changes when a file is written: its identity, size and modification time; for a folder
    (criterion's), those of every file in it.  Compared, not read against the clock: a file's time
    is the kernel's coarse clock (or a file server's), which can lag ``time.time()``."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    found = set()
    for folder, _, names in os.walk(path):
        for name in names:
            try:
                f = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            found.add((os.path.join(folder, name), f.st_ino, f.st_size, f.st_mtime_ns))
    return frozenset(found)


def _stop(proc: subprocess.Popen, sig: int) -> None:
    """Pass the signal perfgate got on to the command; kill it if it has not ended after GRACE
    (and at once on a second interrupt)."""
    try:
        if proc.poll() is None:
            proc.send_signal(sig)
            proc.wait(GRACE)
    except subprocess.TimeoutExpired:
        pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _masked_in_script(m: re.Match) -> str:
    """A secret-named option's value in a script masked; a space-separated value only after a
    dashed option (``--token X``), not after a word of prose (``token is``)."""
    name, sep, quote = m.group(1), m.group(2), m.group(3)
    if sep.strip() == "" and not name.startswith("-"):
        return m.group(0)
    return name + sep + quote + MASK


def command_line(command: list[str]) -> str:
    """The command as recorded in the run's context and named in messages: its words, with the
    value of an option or assignment named like a secret (``--token X``, ``--password=X``,
    ``API_KEY=X``, ``Authorization: X``), a URL's user and password, any Bearer/Basic credential
    and the value of any environment variable named like one masked.  An argument can hold a
    secret no name gives away: the README says to pass those in the environment, never recorded."""
    words, secret_next = [], False
    for word in command:
        if secret_next:
            words.append(MASK)
            secret_next = False
            continue
        named = _NAMED_VALUE.match(word)
        if named and _SECRET_NAME.search(named.group(1)):
            word = named.group(1) + named.group(2) + MASK
        elif word.startswith("-") and _SECRET_NAME.search(word):
            secret_next = True          # its value is the next word
        if any(c.isspace() for c in word):
            word = _IN_SCRIPT.sub(_masked_in_script, word)
        word = _IN_QUERY.sub(lambda m: m.group(1) + MASK, word)
        words.append(_USERINFO.sub(lambda m: m.group(1) + MASK + "@", word))
    # Only values long enough to be secrets: a short one would mask every place it occurs.
    values = [v for name, v in os.environ.items() if _SECRET_VARIABLE.search(name) and len(v) >= MIN_PIECE]
    return redact(shlex.join(words).replace(f"'{MASK}'", MASK), *values)
