"""The ``>>>`` examples of the front-door functions and classes run as tests, so they stay true.

Every module listed here is searched for examples (its docstring and those of everything it
defines); the front doors are the ones a newcomer calls first.
"""

import doctest
import importlib

import pytest

from tests.conftest import ROOT

FRONT_DOORS = {  # module -> the front-door names whose docstrings must carry an example
    "engine.trees.model": ["Tree"],
    "engine.trees.generators": ["generate"],
    "engine.cover.hierarchical": ["optimal_cover"],
    "engine.inference.belief_propagation": ["belief_propagation"],
    "engine.inference.online": ["OnlineModel"],
    "engine.hedge.learner": ["TreeHedge"],
    "engine.forests.ofde": ["OFDE"],
    "engine.forests.chowliu": ["ChowLiu"],
    "engine.multilabel.learner": ["RTAClassifier"],
    "engine.htmm.sp": ["SPBHTMM"],
    "engine.htmm.tf": ["TFBHTMM"],
    "engine.htmm.classifier": ["BHTMMClassifier"],
}
OTHER_MODULES = ["engine.errors", "engine.shapes", "engine.datasets", "engine.jsonio", "engine.limits", "engine.trees.formats",
                 "engine.trees.formats.positional", "engine.inference.potentials", "engine.hedge.potentials",
                 "engine.inference.messages", "engine.svgplot", "engine.runs.execute", "engine.reproduce",
                 "engine.reproduce.report",
                 "engine.practice", "engine.practice.exercise", "engine.practice.score",
                 "engine.classroom.store", "engine.classroom.polls", "engine.db", "engine.forests.validation",
                 "engine.htmm.data"]
SLOW = {"engine.multilabel.learner"}  # compiles and trains RTA


def _params():
    for name in [*FRONT_DOORS, *OTHER_MODULES]:
        yield pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name


@pytest.mark.parametrize("module_name", list(_params()))
def test_examples(module_name, monkeypatch):
    monkeypatch.chdir(ROOT)  # examples may name files of sample_trees/
    module = importlib.import_module(module_name)
    tests = doctest.DocTestFinder(exclude_empty=True).find(module, module_name)
    tests = [t for t in tests if t.examples]
    assert tests, f"{module_name} has no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {module_name}"


def test_every_front_door_has_an_example():
    missing = []
    for module_name, names in FRONT_DOORS.items():
        module = importlib.import_module(module_name)
        for name in names:
            doc = getattr(module, name).__doc__ or ""
            if ">>>" not in doc:
                missing.append(f"{module_name}.{name}")
    assert not missing, missing
