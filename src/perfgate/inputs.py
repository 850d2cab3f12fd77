"""Reading an input file, bounded: every file a user names goes through here.

Only regular files are read, or ``-`` for stdin.  The size limit is checked on the bytes actually
read, never on ``st_size``: a device (``/dev/zero``, or a symlink to one) reports 0 and never
ends, and a FIFO would block the open itself until a writer came.  So the file is opened
non-blocking, its kind is checked on the open descriptor (no race with a swapped path), and at
most ``limit + 1`` bytes are read.
"""

from __future__ import annotations

import errno
import math
import os
import stat
import sys
import tomllib
from pathlib import Path
from typing import Any

from perfgate.errors import InputError

MAX_INPUT_BYTES = 256 * 1024 * 1024
STDIN = "-"
_CHUNK = 1 << 20


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _read_capped(fd: int, source: str, limit: int) -> bytes:
    parts, total = [], 0
    while True:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        total += len(chunk)
        if total > limit:
            raise InputError(source, "", f"input is over the {limit}-byte limit")


def read_bytes(path: str | Path, max_bytes: int | None = None, *, follow_links: bool = True) -> bytes:
    """The content of the regular file ``path`` (or of stdin for ``-``), at most ``max_bytes``;
    with ``follow_links=False``, a ``path`` that is a symbolic link is refused (a file someone
    else made, such as a pull request's artifact, could link to any file of the runner)."""
    limit = MAX_INPUT_BYTES if max_bytes is None else max_bytes
    source = str(path)
    if source == STDIN:
        if sys.stdin is None:
            raise InputError("<stdin>", "", "there is no standard input to read")
        return _read_capped(sys.stdin.buffer.fileno(), "<stdin>", limit)
    try:
        no_follow = 0 if follow_links else os.O_NOFOLLOW
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | no_follow)
    except FileNotFoundError:
        raise InputError(source, "", "cannot read: no such file") from None
    except OSError as e:
        if e.errno == errno.ELOOP and not follow_links:
            raise InputError(source, "", "is a symbolic link; this file is read only as itself, never through a link") \
                from None
        raise InputError(source, "", f"cannot read: {e.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(source, "", f"is {_kind(mode)}; perfgate reads regular files (or - for stdin)")
        os.set_blocking(fd, True)
        try:
            return _read_capped(fd, source, limit)
        except OSError as e:
            raise InputError(source, "", f"cannot read: {e.strerror}") from None
    finally:
        os.close(fd)


def decode_utf8(data: bytes, source: str) -> str:
    """``data`` as text; a leading byte-order mark is the file's encoding mark, not its text
    (PowerShell's ``Out-File`` and Excel's "CSV UTF-8" write one): a go-bench output saved that
    way lost its first result line (U+FEFF, then "BenchmarkX-2 …") without a word."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(source, f"byte {e.start} (line {line})", "not valid UTF-8") from None


def read_text(path: str | Path, max_bytes: int | None = None) -> str:
    """``read_bytes`` decoded as UTF-8, refusing invalid UTF-8 by position."""
    return decode_utf8(read_bytes(path, max_bytes), str(path))


def parse_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads``, deep nesting refused as any bad TOML is (a ``TOMLDecodeError``): tomllib
    recurses per level, and 50,000 '[' ended a settings file's read as an internal error."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("nested too deeply") from None


def finite_number(text: str, source: str, place: str, described: str) -> float:
    """A text cell as a finite float, or an error naming the file, the place and the cell as
    ``described`` (how the caller quotes it, e.g. "column 'T': 'x'")."""
    try:
        value = float(text)
    except ValueError:
        raise InputError(source, place, f"{described} is not a number") from None
    if not math.isfinite(value):
        raise InputError(source, place, f"{described} is not finite")
    return value


def finite_float(value: object) -> float | None:
    """A JSON value as a finite float, or None: a bool, not a number, not finite, or an integer
    too large for a float (JSON has no limit on digits)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        x = float(value)
    except OverflowError:
        return None
    return x if math.isfinite(x) else None


_JSON_KINDS = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
               float: "a number", type(None): "null"}


def json_kind(kind: type | tuple[type, ...]) -> str:
    """A Python type (or types) as the JSON a user wrote: "expected a number, got null", not
    "expected (<class 'int'>, <class 'float'>), got NoneType"."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(dict.fromkeys(_JSON_KINDS.get(k, k.__name__) for k in kinds))
