"""``--jobs`` means the same in every command that has it (``run``, ``runs resume``, ``reproduce``,
``rta``): N workers at once, ``0`` one per core (as ``xz -T0``), and a negative or fractional number
is one error line naming the flag and what it takes, as the flag is parsed."""

import argparse
import json
import os

import pytest

from engine.cli import build_parser, main

#: every command with a --jobs flag, with the arguments it needs to parse
COMMANDS = {"run": ["run", "sweep.json"], "runs resume": ["runs", "resume", "sw-1"],
            "reproduce": ["reproduce", "hedge", "--quick"], "rta": ["rta"]}


def _jobs_flags():
    """``{command words: the --jobs action}`` of the whole command line."""
    found = {}

    def walk(words, parser):
        for a in parser._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    walk(words + [name], sub)
            elif "--jobs" in a.option_strings:
                found[" ".join(words)] = a

    walk([], build_parser())
    return found


def test_every_jobs_flag_is_one_flag_whose_help_says_what_0_means():
    flags = _jobs_flags()
    assert set(flags) == set(COMMANDS)
    assert len({a.type for a in flags.values()}) == 1, "every --jobs is read by one parser"
    for words, a in flags.items():
        assert "0: one per core" in a.help, (words, a.help)


@pytest.fixture
def sweep_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sweep.json").write_text(json.dumps({"algorithm": "hedge", "tree": "path:5", "trials": 20,
                                                     "sweep": [{"seed": 0}, {"seed": 1}]}))
    return tmp_path


def _n_jobs_given(monkeypatch, capsys, argv) -> dict:
    """Run ``argv`` with the sweep (or RTA's folds) stopped where it would start: what it was given."""
    import engine.multilabel.run as mrun
    import engine.runs.execute as ex
    from engine.errors import InvalidParameterError

    seen = {}

    def stop_sweep(spec, progress, store, *, n_jobs=None, **kw):
        seen["n_jobs"] = n_jobs
        raise InvalidParameterError("stopped before the sweep ran")

    def stop_rta(config, progress=None):
        seen["jobs"] = config.jobs
        raise InvalidParameterError("stopped before the folds ran")

    monkeypatch.setattr(ex, "execute_sweep", stop_sweep)
    monkeypatch.setattr(ex, "resume_sweep", lambda sweep, progress, store, *, n_jobs=None, **kw:
                        stop_sweep(None, progress, store, n_jobs=n_jobs))
    monkeypatch.setattr(mrun, "run", stop_rta)
    assert main([*argv, "--quiet", "--db", "runs.sqlite"] if argv[0] != "rta" else argv) == 2
    assert "stopped before" in capsys.readouterr().err
    return seen


@pytest.mark.parametrize("command", COMMANDS)
def test_jobs_0_is_one_per_core_in_every_command(command, sweep_file, monkeypatch, capsys):
    """``--jobs 0`` is accepted and runs what each command's "one per core" runs: a sweep's
    ``n_jobs=None`` (engine.runs.execute.execute_sweep: one per core), RTA's default (one per
    processor, at most the folds)."""
    given = _n_jobs_given(monkeypatch, capsys, [*COMMANDS[command], "--jobs", "0"])
    if command == "rta":
        assert given == {"jobs": max(1, min(os.cpu_count() or 1, 5))}
    else:
        assert given == {"n_jobs": None}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("value", ["-1", "-3", "1.5", "two"])
def test_a_bad_jobs_value_is_one_line_in_every_command(command, value, sweep_file, capsys):
    with pytest.raises(SystemExit) as info:
        main([*COMMANDS[command], "--jobs", value])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1, err
    assert err == f"error: argument --jobs: expected a whole number >= 0 (0: one per core), got {value!r}\n"
