"""The command line as a whole: verbs found by module name, help, exit codes."""

from __future__ import annotations

import importlib

import pytest

from perfgate.cli import build_parser, main, verb_names


def test_every_verb_module_is_named_after_its_verb():
    for name in verb_names():
        module = importlib.import_module(f"perfgate.commands.{name}")
        assert module.NAME == name and module.HELP and callable(module.run)


def test_the_verb_list_read_from_sources_is_what_the_modules_say():
    """``perfgate --help`` reads each verb's NAME, HELP and ORDER from its source (importing every
    verb takes seconds): the same as importing them gives, in the same order."""
    from perfgate import cli

    imported = [cli._command_module(name) for name in verb_names()]
    expected = sorted(((m.NAME, m.HELP, getattr(m, "ORDER", 50)) for m in imported if m is not None),
                      key=lambda verb: verb[2])
    assert cli._summaries() == expected and len(expected) == len(verb_names())


def test_help_loads_no_verb(tmp_path):
    import subprocess
    import sys

    probe = ("import sys; from perfgate.cli import main\n"
             "try: main(['--help'])\nexcept SystemExit: pass\n"
             "print(sorted(m for m in sys.modules if m.startswith(('perfgate.commands.', 'scipy', 'statsmodels'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


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


def test_an_unknown_option_after_a_verb_is_named_with_that_verbs_usage(capsys):
    # it was said with the top-level usage, which lists only the verbs
    with pytest.raises(SystemExit) as e:
        main(["history", "--bogus"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.startswith("usage: perfgate history") and "unrecognized arguments: --bogus" in err
    with pytest.raises(SystemExit) as e:
        main(["--bogus"])
    assert e.value.code == 2 and "usage: perfgate [-h]" in capsys.readouterr().err


def test_a_direction_given_to_detect_without_a_series_file_is_refused(tmp_path, capsys):
    # it was silently ignored: a stored series takes its measure's direction
    assert main(["detect", "--higher-is-better", "--store", f"sqlite:{tmp_path / 'h.db'}"]) == 2
    assert "--higher-is-better applies to --series only" in capsys.readouterr().err
    assert not (tmp_path / "h.db").exists()


@pytest.mark.parametrize("verb", verb_names())
def test_a_verbs_help_shows_no_markup_meant_for_sphinx(verb, capsys):
    # A first-time user read ``asv run A..B``, :func:`spread_order` and **Resumable.** in --help.
    with pytest.raises(SystemExit):
        main([verb, "--help"])
    text = capsys.readouterr().out
    assert "``" not in text and ":func:`" not in text and ":mod:`" not in text and "**" not in text, text


def test_python_dash_m_perfgate_is_the_command_with_its_exit_codes(tmp_path):
    """``python -m perfgate`` said "No module named perfgate.__main__"."""
    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-m", "perfgate", "--help"], capture_output=True, text=True)
    assert shown.returncode == 0 and "exit codes:" in shown.stdout
    missing = subprocess.run([sys.executable, "-m", "perfgate", "history", "--store", f"sqlite:{tmp_path / 'none.db'}"],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "error" in missing.stderr and not (tmp_path / "none.db").exists()
