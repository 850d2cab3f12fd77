"""The command line as a whole: verbs found by module name, help, exit codes."""

from __future__ import annotations

import importlib

import pytest

from perfgate.cli import build_parser, main, verb_names


def test_every_verb_module_is_named_after_its_verb():
    for name in verb_names():
        module = importlib.import_module(f"perfgate.commands.{name}")
        assert module.NAME == name and module.HELP and callable(module.run)


def test_help_lists_every_verb_and_the_exit_codes(capsys):
    build_parser().print_help()
    text = capsys.readouterr().out
    for name in verb_names():
        assert f"    {name} " in text
    assert "2  usage or input error" in text


def test_unknown_verb_and_missing_verb_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as e:
        main(["no-such-verb"])
    assert e.value.code == 2 and "invalid choice" in capsys.readouterr().err
    assert main([]) == 2
