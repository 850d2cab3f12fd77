"""The ``perfgate`` command line.  Each verb is one module in :mod:`perfgate.commands`
defining ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``; they are found
by name, so adding a verb touches nothing here."""

from __future__ import annotations

import argparse
import ast
import errno
import importlib
import importlib.util
import os
import pkgutil
import re
import signal
import sys
import threading
import traceback
from pathlib import Path
from types import ModuleType

from perfgate import __version__, commands
from perfgate.errors import EXIT_INTERNAL, EXIT_USAGE, PerfgateError, Terminated
from perfgate.escape import terminal_plain
from perfgate.store import DEFAULT_STORE

EPILOG = """\
exit codes:
  0  success (for check/compare/detect: no regression)
  1  a regression was found (check, compare, detect, fit --check; publish, and ingest into a Bencher store, with --fail-on-alert)
  2  usage or input error: the message names the file, the place and the reason
  3  a failure perfgate did not foresee (a bug, or out of memory): one line; PERFGATE_DEBUG=1 adds the traceback
  4  no verdict: a check or compare that judged nothing (no benchmark measured on both sides, or
     none of the comparisons could be judged), the reason on stderr; no pass and no regression
     (a check whose every benchmark is new in head passes, exit 0, saying so)
  130, 143  interrupted (Ctrl-C) or terminated (SIGTERM): what was finished before (runs recorded
            or sent) is kept whole, and nothing partial was written

environment:
  PERFGATE_STORE     default for --store (e.g. bencher+https://api.bencher.dev/my-project)
  PERFGATE_PROJECT   default for --project
  BENCHER_API_TOKEN  token for a Bencher store (never printed)

Run 'perfgate VERB --help' for each verb's options and examples."""


class _Parser(argparse.ArgumentParser):
    """argparse quotes bad arguments in its errors: show their escape sequences, never send them."""

    def error(self, message: str):  # type: ignore[override]
        super().error(terminal_plain(message))


def verb_names() -> list[str]:
    """Every verb; a verb's module is named after it (``perfgate fit`` is ``commands/fit.py``)."""
    return [info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_")]


# Where a verb without an ORDER is listed among the others.
DEFAULT_ORDER = 50


def _command_module(name: str) -> ModuleType | None:
    module = importlib.import_module(f"{commands.__name__}.{name}")
    return module if hasattr(module, "NAME") and hasattr(module, "run") else None


def plain_doc(text: str) -> str:
    """A module docstring as ``--help`` shows it: reST markup read by Sphinx is not for a
    terminal (``asv run A..B``, :func:`spread_order`, **Resumable.** were shown as written)."""
    text = re.sub(r":(?:func|mod|meth|class|attr|data|exc):`~?([^`]+)`", lambda m: m.group(1).split(".")[-1], text)
    text = re.sub(r"``([^`]+)``", r"\1", text)
    return re.sub(r"\*\*([^*]+)\*\*", r"\1", text).strip()


def _summaries() -> list[tuple[str, str, int]]:
    """``(NAME, HELP, ORDER)`` of every verb, in order, read from each module's source without
    running it: importing every verb pulls in scipy, statsmodels, docker helpers... (1.7 s of
    start-up for ``perfgate --help``).  A module without its source is imported."""
    found = []
    for name in verb_names():
        spec = importlib.util.find_spec(f"{commands.__name__}.{name}")
        origin = Path(spec.origin) if spec and spec.origin else None
        if origin is None or origin.suffix != ".py":
            module = _command_module(name)
            if module is not None:
                found.append((module.NAME, module.HELP, getattr(module, "ORDER", DEFAULT_ORDER)))
            continue
        tree = ast.parse(origin.read_text(encoding="utf-8"))
        constants = {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                     and isinstance(node.value, ast.Constant) for target in node.targets if isinstance(target, ast.Name)}
        runs = any(isinstance(node, ast.FunctionDef) and node.name == "run" for node in tree.body)
        if runs and "NAME" in constants:
            found.append((constants["NAME"], constants["HELP"], constants.get("ORDER", DEFAULT_ORDER)))
    return sorted(found, key=lambda verb: verb[2])


def _requested_verb(argv: list[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--store", default=os.environ.get("PERFGATE_STORE", DEFAULT_STORE),
                        help="where history lives: sqlite:PATH or bencher+http(s)://HOST[:PORT]/PROJECT "
                             "(default: $PERFGATE_STORE or %(default)s)")
    common.add_argument("--project", default=os.environ.get("PERFGATE_PROJECT", "default"),
                        help="project name inside the store (default: %(default)s)")
    common.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")

    parser = _Parser(
        prog="perfgate",
        description="Continuous performance regression detection: record benchmark runs from real "
                    "harnesses, find change points and complexity changes, and gate pull requests.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"perfgate {__version__}")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")
    parser.verb_parsers = verbs.choices     # name -> the verb's parser, for its own usage in errors
    if verb == LIST_ONLY:
        # Only the list of verbs (for help, or to refuse an unknown one): nothing loaded, nothing run.
        for name, text, _ in _summaries():
            verbs.add_parser(name, help=text)
        return parser
    # A verb named: only its module is loaded; else all of them.
    modules = [_command_module(name) for name in ([verb] if verb in verb_names() else verb_names())]
    for module in sorted((m for m in modules if m is not None), key=lambda m: getattr(m, "ORDER", DEFAULT_ORDER)):
        sub = verbs.add_parser(module.NAME, parents=[common], help=module.HELP,
                               description=plain_doc(module.__doc__ or module.HELP),
                               epilog=getattr(module, "EPILOG", None),
                               formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(handler=module.run)
    return parser


# build_parser(LIST_ONLY): the verbs' names and one-line help only, read without importing them.
LIST_ONLY = ""


def _split_command(argv: list[str], verb: str | None) -> tuple[list[str], list[str] | None]:
    """For a verb that runs a command of the user's (``TAKES_COMMAND``: ``ingest FILE -- COMMAND``),
    everything after the first ``--`` is that command, untouched: argparse would take its options
    (``hyperfine --export-json``) for the verb's own, or its words for more FILEs."""
    if "--" not in argv or verb not in verb_names():
        return argv, None
    module = _command_module(verb)
    if not getattr(module, "TAKES_COMMAND", False):
        return argv, None
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    verb = _requested_verb(argv)
    argv, command = _split_command(argv, verb)
    parser = build_parser(verb if verb in verb_names() else LIST_ONLY)
    args, extra = parser.parse_known_args(argv)
    if command is not None:
        args.command = command
    if extra:
        # said by the verb's own parser, with its usage (the top parser's listed only the verbs)
        own = parser.verb_parsers.get(getattr(args, "verb", None) or "")
        (own or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    if not getattr(args, "handler", None):
        parser.print_help()
        return EXIT_USAGE
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if on_main_thread else None
    try:
        return args.handler(args)
    except PerfgateError as e:
        # The message may quote rejected input: its escape sequences are shown, never sent.
        print(f"perfgate {args.verb}: error: {terminal_plain(e)}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt as e:
        how = "terminated" if isinstance(e, Terminated) else "interrupted"
        # Said as it is: a backfill's earlier commits, a publish's earlier runs are done and kept.
        print(f"perfgate: {how}; what was finished before is kept, nothing partial was written", file=sys.stderr)
        return 143 if isinstance(e, Terminated) else 130
    except Exception as e:     # noqa: BLE001 - anything else: one line, its own exit code
        # A traceback exited 1, which CI reads as "regression found"; and an exception's message
        # can quote what it failed on (httpx quoted a URL): redacted, like every message.
        from perfgate.redact import redact

        if os.environ.get("PERFGATE_DEBUG"):
            print(redact(traceback.format_exc()), file=sys.stderr, end="")
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
            # Stores and output files say so themselves; this is what is printed (``> out.json``
            # on a full disk), which was an "internal error, a bug" (exit 3).
            print(f"perfgate {args.verb}: error: the disk is full ({e.strerror}): the output was cut short",
                  file=sys.stderr)
            return EXIT_USAGE
        what = "out of memory" if isinstance(e, MemoryError) else f"{type(e).__name__}: {terminal_plain(redact(e))}"
        print(f"perfgate {args.verb}: internal error: {what} (a bug unless out of memory; PERFGATE_DEBUG=1 shows "
              f"the traceback)", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if on_main_thread:
            signal.signal(signal.SIGTERM, previous)


def _terminated(signum: int, frame: object) -> None:
    raise Terminated()


if __name__ == "__main__":
    sys.exit(main())
