"""The validation contract of the run configs: every family checks its settings when the config is
built, so ``execute`` and ``execute_sweep`` refuse an invalid config before anything is recorded."""

import pytest

from engine.errors import InvalidParameterError
from engine.runs.execute import execute, execute_sweep
from engine.runs.protocol import RunConfig, is_int, is_number, need
from engine.runs.registry import FAMILIES, config_class, config_from_dict
from engine.runs.store import RunStore

# one bad setting per family and the words its message must contain
BAD = [
    ("hedge", {"trials": 0}, "trials"),
    ("hedge", {"states": 1}, "states"),
    ("hedge", {"eta": -1}, "eta"),
    ("hedge", {"coupling": 1.5}, "coupling"),
    ("hedge", {"environment": "chaos"}, "environment"),
    ("hedge", {"environment": "file"}, "loss file"),
    ("hedge", {"backend": "gpu"}, "backend"),
    ("hedge", {"low": 0.7, "high": 0.6}, "low"),
    ("hedge", {"snapshots": 1}, "snapshots"),
    ("ofde", {"rounds": -1}, "rounds"),
    ("ofde", {"eval_points": 1}, "eval_points"),
    ("ofde", {"model": "jungle"}, "model"),
    ("ofde", {"prior": 0}, "prior"),
    ("ofde", {"perturbation_scale": float("nan")}, "perturbation_scale = nan: expected a number >= 0"),
    ("ofde", {"n_vars": 1}, "n_vars = 1: expected an integer >= 2"),
    ("ofde", {"test": "t.data"}, "training file"),
    ("ofde", {"train": "t.data"}, "test file"),
    ("chowliu", {"threshold": True, "n_valid": 0}, "validation"),
    ("chowliu", {"pseudocount": -0.5}, "pseudocount"),
    ("rta", {"n_trees": 0}, "n_trees"),
    ("rta", {"max_k": 1}, "max_k"),
    ("rta", {"C": 0}, "C = 0: expected a number > 0 or None"),
    ("rta", {"grid": ["x"]}, "grid"),
    ("rta", {"kernel": "poly"}, "kernel"),
    ("bhtmm", {"states": 0}, "states"),
    ("bhtmm", {"states": "ten"}, "states"),
    ("bhtmm", {"model": "hmm"}, "model"),
    ("bhtmm", {"lmin": 3, "lmax": 2}, "lmin"),
    ("bhtmm", {"sampler": "gibbs"}, "sampler"),
    ("bhtmm", {"pseudocount": -1}, "pseudocount"),
    ("bhtmm", {"m0": 0}, "m0"),
    ("hedge", {"seed": -1}, "seed"),
    ("rta", {"seed": "zero"}, "seed"),
    ("reproduce", {"paper": "nope"}, "paper = 'nope': expected 'cover', 'hedge', 'rta', 'ofde' or 'bhtmm'"),
    ("reproduce", {"quick": "yes"}, "quick = 'yes': expected true or false"),
    ("reproduce", {"seeds": -1}, r"seeds = -1: expected an integer in \[0, 100\]"),
]


@pytest.fixture
def store(tmp_path):
    with RunStore(tmp_path / "runs.sqlite") as s:
        yield s


def test_every_builtin_family_defaults_are_valid():
    for name in ("hedge", "ofde", "chowliu", "rta", "bhtmm", "reproduce"):
        cls = config_class(name)
        cfg = cls()
        cfg.validate()
        assert config_from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize("algorithm, bad, words", BAD)
def test_invalid_config_is_refused_in_one_line_before_anything_is_recorded(store, algorithm, bad, words):
    spec = {"algorithm": algorithm, **bad}
    with pytest.raises(InvalidParameterError, match=words) as info:
        execute(spec, None, store)
    assert "\n" not in str(info.value)
    with pytest.raises(InvalidParameterError, match="sweep point"):
        execute_sweep({"algorithm": algorithm, "sweep": [{}, bad]}, None, store, n_jobs=1)
    with pytest.raises(InvalidParameterError, match=words):
        config_class(algorithm)(**bad)  # the config object cannot even be built
    assert store.list() == []


def test_all_families_are_covered():
    assert {a for a, _, _ in BAD} == set(FAMILIES) - {"treeflip"}


def test_adding_a_check_is_one_need_line():
    from dataclasses import dataclass
    from typing import ClassVar

    @dataclass(frozen=True)
    class Toy(RunConfig):
        algorithm: ClassVar[str] = "toy"
        trials: int = 10
        seed: int = 0

        def validate(self) -> None:
            super().validate()
            need(is_int(self.trials) and self.trials <= 100, f"trials must be at most 100, got {self.trials!r}")

    assert Toy(trials=100).trials == 100
    with pytest.raises(InvalidParameterError, match="trials must be at most 100, got 101"):
        Toy(trials=101)
    with pytest.raises(InvalidParameterError, match=r"seed must be an integer in 0..2\^63-1, got -3"):
        Toy(seed=-3)


def test_predicates():
    import numpy as np

    assert is_int(3) and is_int(np.int64(3)) and not is_int(True) and not is_int(3.0) and not is_int("3")
    assert is_number(0.5) and is_number(np.float32(2)) and is_number(7)
    assert not is_number(float("inf")) and not is_number(float("nan")) and not is_number(False)
    assert not is_number("1")
