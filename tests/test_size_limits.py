"""Every number that sizes an allocation passes through ``engine.limits``, wherever it comes from:
run-config settings, generator specs, synthetic data, command-line flags.

The walks below find every integer setting of every built-in run family and every integer flag of
every command; each is either declared with its limit (``limited``, ``limits.flag``) or declared as
sizing nothing, and a value past its limit is refused in one line before anything is allocated
(traced with ``tracemalloc``: NumPy's arrays are traced too).
"""

import argparse
import dataclasses
import tracemalloc

import pytest

from engine import limits
from engine.cli import build_parser, main
from engine.cli.bench import build_bench_parser
from engine.errors import EngineError
from engine.runs.registry import config_class

FAMILIES = ("hedge", "ofde", "chowliu", "rta", "bhtmm")

#: integer flags that size nothing: a seed, a tree's index in a file (lines are skipped, not kept),
#: a number of history rows to list, a run id, BHTMM's bounds on positions (only compared)
UNSIZED_FLAGS = {"--seed", "--index", "--limit", "id", "--lmin", "--lmax"}


def refused(build, *words) -> str:
    """The one-line refusal ``build()`` raises, checked to name ``words`` and to come before anything
    sizeable was allocated (under 1 MiB traced)."""
    tracemalloc.start()
    try:
        with pytest.raises(EngineError) as info:
            build()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    msg = str(info.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    assert peak < 2**20, f"{peak:,} bytes allocated before the refusal {msg!r}"
    return msg


# ----------------------------------------------------------------------------------- run configs

def _integer_settings(cls):
    return [f.name for f in dataclasses.fields(cls) if "int" in str(f.type)]   # annotations are strings


@pytest.mark.parametrize("name", FAMILIES)
def test_every_integer_setting_is_limited_or_declared_unsized(name):
    cls = config_class(name)
    for field in _integer_settings(cls):
        assert (field in cls.limited) != (field in cls.unsized), \
            f"{name}.{field}: declare it in {cls.__name__}.limited (with its limit) or in .unsized"
    assert set(cls.limited.values()) <= set(limits.LIMITS)


@pytest.mark.parametrize("name", FAMILIES)
def test_a_setting_past_its_limit_is_refused_before_anything_is_allocated(name):
    cls = config_class(name)
    for field, key in cls.limited.items():
        refused(lambda: cls.from_dict({field: limits.value(key) + 1}), field, f"limit '{key}'")


# generator specs and synthetic sources: the sizes they imply, refused before anything is drawn
SPECS = [
    ("hedge", {"tree": {"generate": "random", "n": 2_000_001}}, ("n: 2000001", "limit 'generate'")),
    ("hedge", {"tree": {"generate": "star-of-paths", "n": 5, "k": 2000, "m": 2000}}, ("a star of 2000 paths",)),
    ("hedge", {"trials": 1_000_000, "states": 100}, ("trials x 100 actions", "limit 'data_cells'")),
    ("rta", {"data": "synthetic", "labels": 100_000}, ("labels", "limit 'labels'")),          # probe 2
    ("rta", {"data": "synthetic", "labels": "100000"}, ("labels", "limit 'labels'")),
    ("rta", {"data": {"synthetic": {"n_labels": 10_001}}}, ("labels", "limit 'labels'")),
    ("rta", {"data": {"synthetic": {"n_examples": 10**6, "n_features": 1000}}}, ("features", "data_cells")),
    ("rta", {"data": {"synthetic": {"n_examples": 10**5, "n_labels": 1000}}}, ("labels =", "data_cells")),
    ("rta", {"data": {"synthetic": {"n_rows": 5}}}, ("unknown key",)),
    ("chowliu", {"n_vars": 100_000, "n_train": 100, "n_test": 10}, ("n_vars", "limit 'columns'")),  # probe 3
    ("chowliu", {"n_vars": 2000, "n_train": 30_000}, ("n_train", "data_cells")),
    ("ofde", {"n_vars": 1000, "n_test": 60_000}, ("n_test", "data_cells")),
    ("bhtmm", {"synthetic_trees": 20_000}, ("synthetic_trees", "limit 'vertices'")),
]


@pytest.mark.parametrize("name, patch, words", SPECS)
def test_generator_specs_and_synthetic_sizes_are_refused_before_anything_is_drawn(name, patch, words):
    refused(lambda: config_class(name).from_dict(patch), *words)


def test_the_generators_themselves_check_their_sizes():
    from engine.forests.data import synthetic_split
    from engine.htmm.data import synthetic_trees
    from engine.multilabel.data import synthetic_multilabel
    from engine.trees import generate

    refused(lambda: generate("star-of-paths", 5, k=2_000_000, m=2_000_000), "k*m + 1")
    refused(lambda: synthetic_multilabel(n_labels=100_000), "limit 'labels'")
    refused(lambda: synthetic_split(n_vars=100_000), "n_vars", "limit 'columns'")
    refused(lambda: synthetic_trees(10**6), "limit 'vertices'")


def test_belief_propagation_checks_its_state_tables():
    import numpy as np

    from engine.inference.belief_propagation import belief_propagation
    from engine.trees import generate

    tree, potts = generate("path", 100_000), np.eye(4096)
    belief_propagation(generate("path", 3), None, np.eye(2))   # (the kernels loaded: not counted below)
    refused(lambda: belief_propagation(tree, None, potts, k=4096), "vertices x 4096 states", "limit 'table_cells'")


# ----------------------------------------------------------------------------------- command line

def _integer_flags():
    """``(command words, option, type)`` of every integer flag of every command (``bench`` too)."""
    def walk(words, parser):
        for a in parser._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    if words == [] and name == "bench":
                        yield from walk(["bench"], build_bench_parser())
                    else:
                        yield from walk(words + [name], sub)
            elif a.type is int or hasattr(a.type, "limit"):   # (rta --labels: a count or an XML file)
                yield words, (a.option_strings or [a.dest])[0], a.type

    return list(walk([], build_parser()))


INTEGER_FLAGS = _integer_flags()


def test_every_integer_flag_is_limited_or_declared_unsized():
    assert len(INTEGER_FLAGS) > 20
    for words, opt, kind in INTEGER_FLAGS:
        assert hasattr(kind, "limit") or opt in UNSIZED_FLAGS, \
            f"{' '.join(words)} {opt}: give it type=limits.flag(<limit>) or list it as sizing nothing"


@pytest.mark.parametrize("words, opt, key", [(w, o, t.limit) for w, o, t in INTEGER_FLAGS if hasattr(t, "limit")],
                         ids=lambda x: " ".join(x) if isinstance(x, list) else str(x))
def test_a_flag_past_its_limit_is_refused_as_it_is_parsed(capsys, words, opt, key):
    with pytest.raises(SystemExit) as info:
        main([*words, opt, str(limits.value(key) + 1)])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"error: argument {opt}: ") and f"limit '{key}'" in err, err


@pytest.mark.parametrize("argv, words", [
    (["hedge", "--tree", "random:2000001", "--trials", "10"], "limit 'generate'"),
    (["hedge", "--tree", '{"generate": "star-of-paths", "n": 5, "k": 3000, "m": 3000}', "--trials", "10"], "k*m + 1"),
    (["hedge", "--tree", "path:5", "--trials", "1000000", "--states", "100"], "limit 'data_cells'"),
])
def test_sizes_inside_string_flags_are_refused_in_one_line(capsys, argv, words):
    import engine.hedge.run  # noqa: F401 - the command's modules loaded first: their import is not counted

    tracemalloc.start()
    try:
        code = main(argv)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("[")]   # (progress lines)
    assert code == 2 and len(lines) == 1 and words in lines[0], err
    assert peak < 8 * 2**20, f"{peak:,} bytes allocated before the refusal"
