"""Each algorithm parameter is declared once (engine.params) and checked by one validator; every
page setting that feeds a declared field agrees with the declaration.

What is guaranteed: the validator refuses each bad value (out of range, NaN, infinity, wrong type,
a bool for an int) in one line naming the parameter, the value and the accepted range; every run
config checks every declared field through it; the estimators that share a parameter with a config
share its declaration (the same object, the same default); and every page setting with a ``field``
offers only values its algorithm accepts, repeating nothing the declaration says.
"""

from __future__ import annotations

import dataclasses
import inspect
import math

import numpy as np
import pytest

from engine.errors import EngineError, InvalidParameterError
from engine.forests.run import ChowLiuConfig, OfdeConfig
from engine.hedge import environments, potentials
from engine.hedge.run import HedgeConfig
from engine.htmm.config import BhtmmConfig
from engine.htmm.sp import SPBHTMM
from engine.htmm.tf import TFBHTMM
from engine.inference.models import PairwiseConfig
from engine.multilabel.config import RtaConfig
from engine.multilabel.learner import RTAClassifier
from engine.params import Param, declared, validate_params
from engine.reproduce import ReproduceConfig
from engine.trees import generate
from workbench.declarations.page_spec import PageSpec
from workbench.declarations.page_table import PAGES
from workbench.declarations.settings import CHOICE, FLOAT, INT, SLIDER, Setting

CONFIGS = (HedgeConfig, OfdeConfig, ChowLiuConfig, RtaConfig, BhtmmConfig, ReproduceConfig, PairwiseConfig)
ETA = Param(float, 1.0, "the learning rate", lo=0, hi=1e6, closed="right")


# ---------------------------------------------------------------------- the validator

@pytest.mark.parametrize("value, message", [
    (0, "eta = 0: expected a number in (0, 1e6]"),
    (-1.5, "eta = -1.5: expected a number in (0, 1e6]"),
    (2e6, "eta = 2000000.0: expected a number in (0, 1e6]"),
    (float("nan"), "eta = nan: expected a number in (0, 1e6]"),
    (float("inf"), "eta = inf: expected a number in (0, 1e6]"),
    ("0.5", "eta = '0.5': expected a number in (0, 1e6]"),
    (True, "eta = True: expected a number in (0, 1e6]"),
    (None, "eta = None: expected a number in (0, 1e6]"),
    ([1.0], "eta = [1.0]: expected a number in (0, 1e6]"),
])
def test_a_bad_value_is_one_line_naming_it(value, message):
    with pytest.raises(InvalidParameterError) as info:
        ETA.check(value, "eta")
    assert str(info.value) == message and "\n" not in str(info.value)


def test_good_values_come_back_as_their_python_type():
    assert ETA.check(1e6, "eta") == 1e6 and ETA.check(3, "eta") == 3.0 and type(ETA.check(3, "eta")) is float
    n = Param(int, 3, "k", lo=2)
    assert n.check(np.int64(7), "k") == 7 and type(n.check(np.int64(7), "k")) is int
    flag = Param(bool, False, "a flag")
    assert flag.check(np.bool_(True), "flag") is True


@pytest.mark.parametrize("param, value, message", [
    (Param(int, 3, "k", lo=2), True, "k = True: expected an integer >= 2"),
    (Param(int, 3, "k", lo=2), 3.0, "k = 3.0: expected an integer >= 2"),
    (Param(int, 3, "k", lo=2), 1, "k = 1: expected an integer >= 2"),
    (Param(int, 3, "k", lo=1, hi=64), 65, "k = 65: expected an integer in [1, 64]"),
    (Param(float, 0.5, "p", lo=0, hi=1, closed="neither"), 1, "p = 1: expected a number in (0, 1)"),
    (Param(float, 0.5, "p", lo=0, hi=1, closed="left"), 1.0, "p = 1.0: expected a number in [0, 1)"),
    (Param(float, -1.0, "x", hi=0, closed="neither"), 0.0, "x = 0.0: expected a number < 0"),
    (Param(bool, False, "on"), 1, "on = 1: expected true or false"),
    (Param(bool, False, "on"), "yes", "on = 'yes': expected true or false"),
    (Param(str, "a", "mode", choices=("a", "b", "c")), "d", "mode = 'd': expected 'a', 'b' or 'c'"),
    (Param(str, "a", "mode", choices=("a",)), None, "mode = None: expected 'a'"),
    (Param(str, None, "file", none=True), "  ", "file = '  ': expected a text or None"),
    (Param(float, None, "C", lo=0, closed="neither", none=True), 0, "C = 0: expected a number > 0 or None"),
])
def test_each_kind_of_violation(param, value, message):
    assert not param.accepts(value)
    with pytest.raises(InvalidParameterError) as info:
        param.check(value, message.split(" = ")[0])
    assert str(info.value) == message


def test_a_long_value_is_cut_in_the_message():
    with pytest.raises(InvalidParameterError) as info:
        ETA.check("x" * 500, "eta")
    assert len(str(info.value)) < 100


def test_a_declaration_is_checked_when_it_is_written():
    with pytest.raises(InvalidParameterError, match=r"^the default = 0.0: expected a number in \(0, 1\]$"):
        Param(float, 0.0, "the learning rate", lo=0, hi=1, closed="right")
    with pytest.raises(TypeError):
        Param(list, [], "a list")
    with pytest.raises(ValueError, match="closed"):
        Param(float, 0.5, "p", lo=0, hi=1, closed="open")
    with pytest.raises(ValueError, match="only a str parameter has choices"):
        Param(int, 1, "k", choices=(1, 2))


# ---------------------------------------------------------------------- every config, one validator

def _bad_values(p: Param) -> list:
    """Values ``p`` must refuse: past each end, NaN, infinity, the wrong type, a bool for a number."""
    if p.kind is bool:
        return [1, "yes", None]
    if p.kind is str:
        return [3, "not a choice"] if p.choices else [3]
    bad = [True, "1", math.nan, math.inf] + ([None] if not p.none else [])
    lo, hi = p.bounds()
    if math.isfinite(lo):
        bad.append(lo - 1 if p.closed in ("both", "left") else lo)
    if math.isfinite(hi):
        bad.append(hi + 1 if p.closed in ("both", "right") else hi)
    if p.kind is int:
        bad.append(2.5)
    return bad


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.__name__)
def test_every_declared_field_of_every_config_is_checked_by_the_validator(config):
    params = declared(config)
    assert params, f"{config.__name__} declares no parameter"
    config()   # its defaults are accepted
    for name, p in params.items():
        field = next(f for f in dataclasses.fields(config) if f.name == name)
        assert field.default == p.default or (p.default is None and field.default is None)
        for bad in _bad_values(p):
            with pytest.raises(EngineError) as info:
                config(**{name: bad})
            message = str(info.value)
            # a size past its limit (infinity) is refused by the limit first, which names it too
            by_limit = name in getattr(config, "limited", {}) and message.startswith(f"{name}: ")
            assert "\n" not in message and (message.startswith(f"{name} = ") or by_limit), (name, bad, message)


def test_a_config_built_past_its_validation_is_still_caught_by_validate_params():
    c = HedgeConfig()
    object.__setattr__(c, "eta", 0.0)
    with pytest.raises(InvalidParameterError, match=r"^eta = 0.0: expected a number in \(0, 1e6\]$"):
        validate_params(c)


# ---------------------------------------------------------------------- estimators share the declarations

@pytest.mark.parametrize("estimator, config, names", [
    (RTAClassifier, RtaConfig, {"n_trees": "n_trees", "max_k": "max_k", "kernel": "kernel", "max_passes": "max_passes"}),
    (TFBHTMM, BhtmmConfig, {"n_states": None, "n_iter": "iterations", "phi": "phi", "t0": "t0", "m0": "m0",
                            "init": "init", "sampler": "sampler"}),
    (SPBHTMM, BhtmmConfig, {"n_states": None, "n_iter": "iterations", "pseudocount": "pseudocount",
                            "estep": "estep", "bottom_leaves": "bottom_leaves",
                            "cumulative_counts": "cumulative_counts"}),
])
def test_an_estimator_and_its_config_share_one_declaration(estimator, config, names):
    signature = inspect.signature(estimator.__init__).parameters
    for own, theirs in names.items():
        p = estimator.parameters[own]
        assert signature[own].default == p.default, own   # the estimator's default is the declaration's
        if theirs is not None:
            assert declared(config)[theirs] is p, own
    # a bad value is refused by the estimator in the same words as by the config
    with pytest.raises(InvalidParameterError, match=r"^n_iter = -1: expected an integer >= 0$") if \
            "n_iter" in names else pytest.raises(InvalidParameterError, match=r"^max_k = 1: expected an integer >= 2$"):
        bad = estimator(**({"n_iter": -1} if "n_iter" in names else {"max_k": 1}))
        validate_params(bad, bad.parameters)


def test_the_forest_learners_check_the_declarations_their_configs_use():
    from engine.forests import estimators, fpl, structure
    from engine.forests.chowliu import ChowLiu
    from engine.forests.ofde import OFDE

    ofde = declared(OfdeConfig)
    assert (ofde["model"], ofde["perturbation_scale"], ofde["prior"]) == (structure.MODEL, fpl.SCALE,
                                                                         estimators.PSEUDOCOUNT)
    assert declared(ChowLiuConfig)["pseudocount"] == dataclasses.replace(
        estimators.PSEUDOCOUNT, default=0.25, doc="the pseudo-count of every pair table")
    assert inspect.signature(ChowLiu).parameters["pseudocount"].default == 0.25
    X = np.random.default_rng(0).integers(0, 2, (40, 4))
    for estimator, message in ((OFDE(prior=0), "prior = 0: expected a number > 0"),
                               (OFDE(model="bush"), "model = 'bush': expected 'trees' or 'forests'"),
                               (OFDE(perturbation_scale=-1), "perturbation_scale = -1: expected a number >= 0"),
                               (ChowLiu(pseudocount=0.0), "pseudocount = 0.0: expected a number > 0")):
        with pytest.raises(InvalidParameterError) as info:
            estimator.fit(X)
        assert str(info.value) == message


def test_bhtmm_states_is_the_models_declaration_with_the_runs_cap():
    run, model = declared(BhtmmConfig)["states"], TFBHTMM.parameters["n_states"]
    assert dataclasses.replace(model, hi=64) == run and model is SPBHTMM.parameters["n_states"]


def test_the_learning_rate_is_one_declaration_from_the_config_to_the_learners():
    assert declared(HedgeConfig)["eta"] is potentials.ETA
    assert declared(HedgeConfig)["coupling"] is potentials.COUPLING
    for name, param in (("trials", environments.TRIALS), ("low", environments.LOW), ("high", environments.HIGH)):
        assert declared(HedgeConfig)[name] is param, name
    with pytest.raises(InvalidParameterError, match=r"^low = 1.5: expected a number in \[0, 1\]$"):
        environments.iid_environment(generate("path", 4), 2, 10, low=1.5, high=0.6)
    with pytest.raises(InvalidParameterError, match=r"^eta = 0: expected a number in \(0, 1e6\]$"):
        potentials.check_eta(0)
    with pytest.raises(InvalidParameterError, match=r"^coupling = 2: expected a number in \[0, 1\]$"):
        potentials.potts_transition(3, 2)


# ---------------------------------------------------------------------- the pages agree with the algorithms

def _own_tokens(s: Setting) -> bool:
    return bool(s.options) or s.to_config is not None


def disagreements(page: PageSpec) -> list[str]:
    """Every way a setting of ``page`` that feeds a declared field of its config offers a value the
    algorithm refuses, or repeats what the declaration says."""
    out = []
    params = declared(page.config) if page.config is not None else {}
    names = {f.name for f in dataclasses.fields(page.config)} if page.config is not None else set()
    for s in page.settings:
        if not s.field:
            continue
        where = f"/{page.url_path} {s.name} -> {getattr(page.config, '__name__', None)}.{s.field}"
        if s.field not in names:
            out.append(f"{where}: no such field")
            continue
        p = params.get(s.field)
        if p is None:
            continue
        if _own_tokens(s):
            tokens = s.choices or (range(int(s.lo), int(s.hi) + 1) if s.kind == INT else (True, False))
            out += [f"{where}: token {t!r} gives {s.config_value(t)!r}, refused ({p.describe()})"
                    for t in tokens if not p.accepts(s.config_value(t))]
            if s.default is not None and not p.accepts(s.config_value(s.default)):
                out.append(f"{where}: default {s.default!r} refused ({p.describe()})")
            if "help" not in s.derived and s.help == p.doc:
                out.append(f"{where}: help repeats the declaration")
            continue
        if s.kind in (INT, FLOAT):
            out += [f"{where}: {end} = {getattr(s, end)!r} outside {p.describe()}"
                    for end in ("lo", "hi") if not p.accepts(getattr(s, end))]
            if s.kind == FLOAT and p.kind is not float or s.kind == INT and p.kind is not int:
                out.append(f"{where}: kind {s.kind} for a {p.kind.__name__} parameter")
        if s.kind == CHOICE:
            out += [f"{where}: choice {c!r} refused ({p.describe()})" for c in s.choices if not p.accepts(c)]
        if not p.accepts(s.default):
            out.append(f"{where}: default {s.default!r} refused ({p.describe()})")
        declared_as = {"help": p.doc, "default": p.default, "lo": p.lo, "hi": p.hi, "choices": p.choices}
        out += [f"{where}: {attr} = {getattr(s, attr)!r} repeats the declaration; leave it out"
                for attr, value in declared_as.items()
                if attr not in s.derived and value not in (None, ()) and getattr(s, attr) == value]
    return out


def test_every_page_setting_agrees_with_its_algorithms_declaration():
    pages = [p for p in PAGES.values() if p.config is not None]
    assert {p.config for p in pages} >= {HedgeConfig, OfdeConfig, RtaConfig, BhtmmConfig, ReproduceConfig,
                                         PairwiseConfig}
    assert sum(1 for p in pages for s in p.settings if s.field in declared(p.config)) >= 36
    assert [d for p in pages for d in disagreements(p)] == []


def test_a_page_that_offers_what_the_algorithm_refuses_or_repeats_it_is_caught():
    wide = PageSpec("t", "T", "Learning", ":material/bolt:", (
        Setting("eta", lo=0.0, hi=4.0, label="η", widget=SLIDER, field="eta"),       # eta = 0 is refused
        Setting("k", default=1, hi=5, label="k", widget=SLIDER, field="states"),      # k = 1 is refused
        Setting("coupling", help="the Potts coupling P (P on the diagonal)", field="coupling"),   # repeated
        Setting("env", choices=("piecewise", "storm"), field="environment"),          # no such environment
        Setting("trials", lo=1, hi=100, field="trials"),                              # lo repeats the declaration
    ), config=HedgeConfig)
    found = disagreements(wide)
    assert any("eta: lo = 0.0 outside" in d for d in found), found
    assert any("k -> HedgeConfig.states: default 1 refused" in d for d in found), found
    assert any("coupling: help" in d and "repeats" in d for d in found), found
    assert any("choice 'storm' refused" in d for d in found), found
    assert any("trials: lo = 1 repeats" in d for d in found), found


def test_a_setting_takes_what_the_page_leaves_out_from_the_declaration():
    eta = PAGES["tree_hedge"].setting("eta")
    assert (eta.kind, eta.help, eta.default, eta.lo, eta.hi) == (FLOAT, potentials.ETA.doc, 1.0, 0.05, 4.0)
    assert eta.describe() == "a number in 0.05..4"     # the link's range: the slider's, inside (0, 1e6]
    coupling = PAGES["tree_hedge"].setting("coupling")
    assert (coupling.lo, coupling.hi, type(coupling.lo)) == (0.0, 1.0, float)
    assert PAGES["bhtmm"].setting("task").choices == declared(BhtmmConfig)["task"].choices
    with pytest.raises(ValueError, match=r"accepts a number in \(0, 1e6\]; a link's range is closed, so give lo="):
        PageSpec("t", "T", "Learning", ":material/bolt:", (Setting("eta", field="eta"),), config=HedgeConfig)
    with pytest.raises(ValueError, match="kind int, but HedgeConfig.eta is declared float"):
        PageSpec("t", "T", "Learning", ":material/bolt:", (Setting("eta", INT, lo=1, hi=2, field="eta"),),
                 config=HedgeConfig)
    with pytest.raises(ValueError, match="give its kind"):
        PageSpec("t", "T", "Learning", ":material/bolt:", (Setting("start", field="tree"),), config=HedgeConfig)


# ---------------------------------------------------------------------- the command line

@pytest.mark.parametrize("command, config", [("hedge", HedgeConfig), ("ofde", OfdeConfig), ("chowliu", ChowLiuConfig),
                                             ("rta", RtaConfig), ("bhtmm", BhtmmConfig)])
def test_the_command_lines_defaults_and_choices_are_the_declarations(command, config):
    """The command line builds its parser without importing the algorithms (``tests/test_cli_start.py``),
    so its flags write defaults and choices of their own; they must be the declarations'."""
    import argparse

    from engine.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    params = declared(config)
    flags = [a for a in sub._actions if a.dest in params]
    assert len(flags) >= 2, command
    for flag in flags:
        p = params[flag.dest]
        if flag.default is not None:
            assert flag.default == p.default and p.accepts(flag.default), (command, flag.dest, flag.default)
        if flag.choices is not None and not isinstance(flag.choices, range):
            assert set(flag.choices) <= set(p.choices), (command, flag.dest, flag.choices)
