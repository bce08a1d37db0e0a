"""No page waits for a compile. While a server compiles the online model's kernels in other
processes (``engine.jit.defer``), their plain-Python build answers; a model changes to the compiled
build at its first operation after they are ready (``engine.jit.release``). Both builds run the
same source on the same buffers, so a model that changes builds mid-stream answers as one that was
compiled throughout (relative 1e-12: the order of floating-point operations may differ) and as
brute-force enumeration (relative 1e-9, "Online Sum-Product Computation over Trees", Herbster,
Pasteris & Vitale, section 4)."""

import contextlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from engine import jit
from engine import warmup as W
from engine.inference import _online_kernels
from engine.inference.brute_force import brute_force
from engine.inference.online import OnlineModel
from engine.trees.generators import generate
from tests.conftest import ROOT

ONLINE = _online_kernels.__name__
SAME = 1e-12   # two builds of the same kernels
RTOL = 1e-9    # against brute force


@contextlib.contextmanager
def _deferred():
    jit.defer(ONLINE)
    try:
        yield
    finally:
        jit.release(ONLINE)


def test_build_gives_the_plain_python_build_while_deferred_only():
    assert jit.build(_online_kernels) is _online_kernels
    with _deferred():
        assert jit.deferred(ONLINE)
        pure = jit.build(_online_kernels)
        assert pure.__name__ == ONLINE + "_pure" and pure is _online_kernels.pure_module()
        assert not hasattr(pure.update_entry, "compile")   # plain Python: no numba dispatcher
    assert not jit.deferred(ONLINE) and jit.build(_online_kernels) is _online_kernels
    # the server defers exactly the kernels whose stages it compiles after its port opens and that
    # have a slower path: the online walks (their plain-Python build), the readers of large tree
    # files (the careful ones); the first pages' kernels are compiled before the port opens
    assert W.stand_ins(W.stage_names(W.SOON)) == [ONLINE]
    assert W.stand_ins(W.stage_names(W.BEHIND)) == ["engine.trees.formats._kernels"]
    assert W.stand_ins(W.stage_names(W.SERVE)) == []


@pytest.mark.parametrize("seed", range(6))
def test_a_model_that_changes_builds_mid_stream_answers_as_the_compiled_one(seed):
    rng = np.random.default_rng(seed)
    n, k = 8, (2, 3)[seed % 2]
    tree = generate("random", n, seed=seed)
    E = rng.random((n - 1, k, k)) + 0.05
    phi = rng.random((n, k))
    cover = ("optimal", "rake-only")[seed // 2 % 2]
    compiled = OnlineModel(tree, k, E, phi, cover=cover)
    with _deferred():
        model = OnlineModel(tree, k, E, phi, cover=cover)
        for step in range(12):
            if step == 2 + seed:   # the compiled kernels are ready: the next operation uses them
                assert not model.compiled
                jit.release(ONLINE)
                assert model._standing_in
            v = int(rng.integers(n))
            d = rng.random(k)
            d[int(rng.integers(k))] = 0.0
            for m in (model, compiled):
                m.update(v, d)
            assert model._standing_in == (step < 2 + seed)
            assert model.last_op.work == compiled.last_op.work
            np.testing.assert_array_equal(model.last_op.touched, compiled.last_op.touched)
            w = int(rng.integers(n))
            np.testing.assert_allclose(model.marginal(w), compiled.marginal(w), rtol=SAME, atol=0)
            u = int(rng.integers(1, n))
            M = rng.random((k, k)) + 0.05
            for m in (model, compiled):
                m.set_edge_potential(int(tree.parent[u]), u, M)
            vs = rng.integers(n, size=3)
            X = rng.random((3, k)) + 0.05
            np.testing.assert_allclose(model.marginal_update_many(vs, X), compiled.marginal_update_many(vs, X),
                                       rtol=SAME, atol=0)
            assert model.log_partition() == pytest.approx(compiled.log_partition(), rel=SAME)
    assert model.compiled
    # the compiled entry points themselves, not the stand-in's wrappers, answer the hot verbs now
    assert getattr(model._update_entry, "__self__", None) is not model
    assert getattr(model._marginal_entry, "__self__", None) is not model
    ref = brute_force(tree, model.node_data, model.edge_potentials(), k=k)
    np.testing.assert_allclose(model.marginals(), ref.marginals, rtol=RTOL)
    assert model.log_partition() == pytest.approx(ref.log_partition, rel=RTOL)


def test_a_model_built_while_deferred_stands_in_until_released():
    tree = generate("random", 30, seed=4)
    with _deferred():
        model = OnlineModel(tree, 2, [[2.0, 1.0], [1.0, 2.0]])
        model.update(3, [1.0, 0.0])
        first = model.marginal(7)
        assert not model.compiled and model._standing_in
    second = model.marginal(7)
    assert model.compiled and not model._standing_in
    np.testing.assert_allclose(second, first, rtol=SAME, atol=0)
    assert not OnlineModel(tree, 2, [[2.0, 1.0], [1.0, 2.0]], backend="python").compiled
    assert not OnlineModel(generate("random", 2, seed=0), 2, [[2.0, 1.0], [1.0, 2.0]]).compiled   # no kernel


_COLD = """
import json, sys, threading
import numpy as np
from engine import warmup as W
from engine.inference.belief_propagation import belief_propagation
from engine.inference.session import OnlineSession
from engine.trees.generators import generate
from workbench import serve

later = W.stage_names(W.SOON)
assert not W.is_warm(later), "the online kernels are in the cache already"
serve.warm_up(pages=False, say=lambda line: None)   # as the server before its port opens: defers them
compiling = threading.Thread(target=serve._compile_online, args=(later,))
compiling.start()                                   # as the server once it serves
tree = generate("random", 50, seed=2)
s = OnlineSession(tree, 2, [[2.0, 1.0], [1.0, 2.0]])
s.observe(3, 1)
first = s.query(7)
out = {"first_compiled": s.model.compiled, "compiling_then": compiling.is_alive()}
compiling.join(900)
s.observe(11, 0)
second = s.query(7)
E = s.model.edge_potentials()
ref = belief_propagation(tree, s.model.node_data, E, k=2).marginals[7]
out.update(compiled_after=s.model.compiled, first=first.tolist(), second=second.tolist(), ref=ref.tolist(),
           warm_after=W.is_warm(later))
print(json.dumps(out))
"""


@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
def test_a_cold_cache_process_answers_before_its_walks_compile_then_switches(tmp_path):
    """A process whose cache lacks the online model's kernels (a fresh install, the first pages'
    kernels compiled) answers a marginal from the plain-Python build while the server's own
    routine compiles the walks beside it, then answers from the compiled walks."""
    from tests.test_stop import _ONLINE, cache_copy

    cache = cache_copy(tmp_path / "cache", without=_ONLINE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("TREE_WORKBENCH_TREE", None)
    out = subprocess.run([sys.executable, "-c", _COLD], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=1200)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    # the first answer came from the stand-in while the walks were still compiling
    assert got["first_compiled"] is False and got["compiling_then"] is True, got
    assert got["compiled_after"] is True and got["warm_after"] is True, got
    np.testing.assert_allclose(got["second"], got["ref"], rtol=RTOL)
    assert sum(got["first"]) == pytest.approx(1.0, rel=1e-12)


def test_large_tree_files_are_read_and_written_carefully_while_their_kernels_compile(monkeypatch):
    """While the run workers compile the readers of large tree files (the server defers them), the
    careful readers and writers answer, with the same tree and the same text, and no compiled one is
    called (here: each would raise)."""
    from engine.trees.formats import _kernels as FK
    from engine.trees.formats import format_tree_text, newick, parse_tree_text, positional

    assert W.stand_ins(["tree-files"]) == [FK.__name__]
    tree = generate("random", 20_000, seed=5)
    texts = {fmt: format_tree_text(tree, fmt) for fmt in ("newick", "jsonl")}
    assert len(texts["newick"]) >= newick.FAST_FROM and len(texts["jsonl"]) >= positional.FAST_READ_FROM
    assert tree.n >= max(positional.FAST_FROM, newick.FAST_FROM // 10)
    read = {fmt: parse_tree_text(text, fmt) for fmt, text in texts.items()}

    def refuse(*args, **kwargs):
        raise AssertionError("a compiled reader or writer was called while deferred")

    for name in ("scan_newick", "newick_tokens", "child_slots", "json_int_rows", "json_object_spans",
                 "json_plain_strings", "int_rows_json"):
        monkeypatch.setattr(FK, name, refuse)
    jit.defer(FK.__name__)
    try:
        for fmt, text in texts.items():
            assert format_tree_text(tree, fmt) == text
            back = parse_tree_text(text, fmt)
            assert back.names == read[fmt].names
            np.testing.assert_array_equal(back.parent, read[fmt].parent)
    finally:
        jit.release(FK.__name__)
    with pytest.raises(AssertionError, match="while deferred"):   # the compiled path again
        parse_tree_text(texts["newick"], "newick")


def test_a_copy_of_a_model_built_while_deferred_switches_on_its_own():
    """A copy made while the plain-Python build stands in calls its own entry points (not the
    original's) and changes to the compiled build once released, as the original does."""
    tree = generate("random", 30, seed=4)
    with _deferred():
        model = OnlineModel(tree, 2, [[2.0, 1.0], [1.0, 2.0]])
        copy = model.copy()
        copy.update(3, [1.0, 0.0])
        first = copy.marginal(7)
        assert not copy.compiled and copy._standing_in
        np.testing.assert_allclose(model.marginal(7), [0.5, 0.5], rtol=SAME)   # the original has no evidence
    second = copy.marginal(7)
    assert copy.compiled and not copy._standing_in
    np.testing.assert_allclose(second, first, rtol=SAME, atol=0)
    np.testing.assert_allclose(model.marginal(7), [0.5, 0.5], rtol=SAME)
