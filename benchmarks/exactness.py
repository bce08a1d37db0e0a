"""Exactness at any magnitude: the inference code against an independent log-space reference.

Random pairwise tree models whose entries are 10^U(-300, 300), with zeros and hard evidence, on
five families (two-vertex trees, paths, stars, random Prüfer trees, and a family with one
subnormal entry that must be refused), k = 2..5. For each model:

- ``online``: the online model (compiled) is built, then a few operations (soft and hard evidence,
  edge potentials) are applied; after building and after every operation all marginals and
  log Z are compared with the reference;
- ``bp_numba``, ``bp_numpy``: one belief-propagation pass of each kind on the initial model;
- ``max_product``: max-sum on the logs of the initial model (value, and the labelling's score);
- ``comparator``: the TREE-HEDGE bound's best comparator (min-sum) for random trial losses.

A model counts once per engine, in the first column it falls into along its stream: ``wrong``
(a marginal off by more than 1e-9, or log Z by more than relative 1e-9), ``imprecise`` (stricter
than the 1e-9 above: a marginal entry above 1e-300, however small, off by more than relative
1e-9), ``nan`` (a non-finite
answer), ``false_refusal`` (an error on a consistent, representable model), ``missed_refusal``
(an answer where the reference says the mass is zero, or for an input outside the exact range),
``crash`` (an exception that is not an engine error), ``correct_refusal``, ``correct``.

The reference is ``tests/logspace_reference.py`` (log-sum-exp sum-product and max-sum, itself
checked against exact rational enumeration in the test suite).

    python -m benchmarks.exactness [--models 10000] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

import numpy as np

from engine.errors import EngineError, NumericalRangeError
from engine.trees.generators import path_tree, prufer_to_parent, star_tree
from engine.trees.model import Tree
from tests.logspace_reference import labelling_log_score, log_max_sum, log_sum_product

FAMILIES = ("two-vertex", "path", "star", "random", "subnormal")
ENGINES = ("online", "bp_numba", "bp_numpy", "max_product", "comparator")
COLUMNS = ("models", "correct", "wrong", "imprecise", "nan", "false_refusal", "missed_refusal",
           "crash", "correct_refusal")
#: Worst first: a model is counted in the first of these its stream reaches.
SEVERITY = ("crash", "wrong", "nan", "missed_refusal", "false_refusal", "imprecise",
            "correct_refusal", "correct")
BAD = ("wrong", "imprecise", "nan", "false_refusal", "missed_refusal", "crash")
RTOL_LOGZ = 1e-9
ATOL_MARGINAL = 1e-9
#: Stricter than ATOL_MARGINAL: a marginal entry above 1e-300, however tiny, off by more than this
#: relative error counts as "imprecise".
RTOL_ENTRY = 1e-9


def _tree(family, rng):
    if family == "two-vertex":
        t = path_tree(2)
    elif family == "path":
        t = path_tree(int(rng.integers(3, 41)))
    elif family == "star":
        t = star_tree(int(rng.choice([5, 20, 100])))
    else:
        n = int(rng.integers(3, 61))
        t = Tree.from_parent(prufer_to_parent(rng.integers(0, n, n - 2), n))
    if rng.random() < 0.5:
        t = t.rerooted(int(rng.integers(t.n)))
    return t


def _entries(rng, shape, zeros=0.08):
    a = 10.0 ** rng.uniform(-300, 300, shape)
    a[rng.random(shape) < zeros] = 0.0
    return a


def _hard(rng, row):
    """Hard evidence: one label kept (or, rarely, several)."""
    out = np.zeros_like(row)
    keep = rng.random(row.shape[0]) < 0.2
    keep[int(rng.integers(row.shape[0]))] = True
    out[keep] = 10.0 ** rng.uniform(-300, 300, int(keep.sum()))
    return out


def make_model(family, seed):
    """(tree, k, phi, E, ops); ops are ("update", v, row) and ("edge", i, matrix)."""
    rng = np.random.default_rng(seed)
    t = _tree(family, rng)
    k = int(rng.integers(2, 6))
    n = t.n
    phi = _entries(rng, (n, k))
    for v in np.flatnonzero(rng.random(n) < 0.1):
        phi[v] = _hard(rng, phi[v])
    E = _entries(rng, (n - 1, k, k))
    if family == "subnormal":
        where = rng.integers(2)
        tiny = float(rng.uniform(1, 4000)) * 5e-324
        if where == 0:
            phi[int(rng.integers(n)), int(rng.integers(k))] = tiny
        else:
            E[int(rng.integers(n - 1)), int(rng.integers(k)), int(rng.integers(k))] = tiny
    ops = []
    for _ in range(int(rng.integers(1, 5)) if family != "subnormal" else 0):
        if rng.random() < 0.7:
            v = int(rng.integers(n))
            row = _entries(rng, k) if rng.random() < 0.5 else _hard(rng, np.ones(k))
            ops.append(("update", v, row))
        else:
            ops.append(("edge", int(rng.integers(n - 1)), _entries(rng, (k, k))))
    return t, k, phi, E, ops


def _compare(ref, got_logz, got_marg):
    lz, marg = ref
    if not (np.isfinite(got_logz) and np.all(np.isfinite(got_marg))):
        return "nan"
    if marg is None:
        return "answered"          # the reference says the mass is zero
    if abs(got_logz - lz) > RTOL_LOGZ * max(1.0, abs(lz)):
        return "wrong"
    got_marg = np.asarray(got_marg)
    if np.abs(got_marg - marg).max() > ATOL_MARGINAL:
        return "wrong"
    if (np.abs(got_marg - marg) > RTOL_ENTRY * marg + 1e-300).any():
        return "imprecise"
    return "correct"


def _outcome(fn, out_of_range, *, inconsistent):
    """Run ``fn`` (returns an outcome or raises) and classify. ``out_of_range``: the input holds an
    entry outside the exact range, which must be refused with NumericalRangeError."""
    try:
        out = fn()
    except NumericalRangeError:
        return "correct_refusal" if out_of_range else "false_refusal"
    except EngineError:
        return "correct_refusal" if inconsistent else "false_refusal"
    except Exception:  # noqa: BLE001 - anything else is a crash, counted
        return "crash"
    if out_of_range or (inconsistent and out != "nan"):
        return "missed_refusal"
    return out


def _worst(outcomes):
    return min(outcomes, key=SEVERITY.index)


def check_online(tree, k, phi, E, ops, out_of_range, ref0):
    from engine.inference.online import OnlineModel

    E_now = E.copy()
    phi_now = phi.copy()
    results = []
    model = None

    def build():
        nonlocal model
        model = OnlineModel(tree, k, E_now, phi_now)
        return _answer(ref0)

    def _answer(ref):
        m = np.array([model.marginal(v) for v in range(tree.n)])
        return _compare(ref, model.log_partition(), m)
    results.append(_outcome(build, out_of_range, inconsistent=ref0[1] is None))
    if model is None:
        return results[0]
    for kind, i, val in ops:
        old_phi, old_E = phi_now.copy(), E_now.copy()
        if kind == "update":
            phi_now[i] = val
        else:
            E_now[i] = val
        ref = log_sum_product(tree, phi_now, E_now)

        def op():
            if kind == "update":
                model.update(i, val)
            else:
                p, c = tree.edges[i]
                model.set_edge_potential(int(p), int(c), val)
            return _answer(ref)

        r = _outcome(op, False, inconsistent=ref[1] is None)
        results.append(r)
        if r in ("correct_refusal", "false_refusal"):
            phi_now, E_now = old_phi, old_E   # a refused operation leaves the model as it was
        if r == "crash":
            break
    return _worst(results)


def check_bp(tree, k, phi, E, method, out_of_range, ref):
    from engine.inference.belief_propagation import belief_propagation

    def run():
        r = belief_propagation(tree, phi, E if tree.n > 1 else np.ones((k, k)), k=k, method=method)
        return _compare(ref, r.log_partition, r.marginals)

    return _outcome(run, out_of_range, inconsistent=ref[1] is None)


def _logs(a):
    with np.errstate(divide="ignore"):
        return np.log(a)


def check_max_product(tree, k, phi, E, out_of_range):
    from engine.inference.belief_propagation import max_product

    lphi, lE = _logs(phi), _logs(E) if tree.n > 1 else np.zeros((k, k))
    best = log_max_sum(tree, lphi, lE)

    def run():
        labels, value = max_product(tree, lphi, lE)
        score = labelling_log_score(tree, lphi, lE, labels)
        if not np.isfinite(value):
            return "nan"
        tol = RTOL_LOGZ * max(1.0, abs(best))
        if abs(value - best) > tol or abs(score - best) > tol:
            return "wrong"
        return "correct"

    return _outcome(run, out_of_range, inconsistent=best == -np.inf)


def check_comparator(tree, k, phi, E, seed, out_of_range, ref):
    from engine.hedge.bound import theorem9_bound, task_losses

    rng = np.random.default_rng(seed + 1)
    T = int(rng.integers(1, 3 * tree.n + 2))
    verts = rng.integers(tree.n, size=T)
    losses = rng.random((T, k))
    eta = float(rng.uniform(0.05, 3.0))
    lz = ref[0]
    L = task_losses(tree.n, verts, losses)
    lphi, lE = _logs(phi), _logs(E)
    tilted = lphi - eta * L
    best = log_max_sum(tree, tilted, lE)   # max over mu of ln p(mu) Z - eta L(mu)

    def run():
        b = theorem9_bound(tree, k, eta=eta, vertices=verts, losses=losses, theta=E, data=phi)
        mu = np.asarray(b.comparator)
        if not (np.isfinite(b.bound) and np.isfinite(b.log_prior)):
            return "nan"
        prior = labelling_log_score(tree, lphi, lE, mu) - lz
        score = labelling_log_score(tree, tilted, lE, mu)
        if abs(b.log_prior - prior) > RTOL_LOGZ * max(1.0, abs(prior)):
            return "wrong"
        if abs(score - best) > RTOL_LOGZ * max(1.0, abs(best)):
            return "wrong"
        if abs(b.comparator_loss - float(L[np.arange(tree.n), mu].sum())) > 1e-9 * max(1.0, T):
            return "wrong"
        return "correct"

    return _outcome(run, out_of_range, inconsistent=lz == -np.inf)


def run(models: int, seed: int, progress=None):
    """Counts[(family, engine)] -> Counter of outcomes."""
    counts = {(f, e): Counter() for f in FAMILIES for e in ENGINES}
    per_family = [models // len(FAMILIES)] * len(FAMILIES)
    for i in range(models - sum(per_family)):
        per_family[i] += 1
    done = 0
    for fam, count in zip(FAMILIES, per_family):
        for j in range(count):
            s = seed * 1_000_003 + FAMILIES.index(fam) * 100_000 + j
            tree, k, phi, E, ops = make_model(fam, s)
            oor = fam == "subnormal"
            with np.errstate(all="ignore"):
                ref = log_sum_product(tree, phi, E)
                res = {
                    "online": check_online(tree, k, phi, E, ops, oor, ref),
                    "bp_numba": check_bp(tree, k, phi, E, "numba", oor, ref),
                    "bp_numpy": check_bp(tree, k, phi, E, "numpy", oor, ref),
                    # max-product takes logs: a subnormal potential is an ordinary log (-744)
                    "max_product": check_max_product(tree, k, phi, E, False),
                    "comparator": check_comparator(tree, k, phi, E, s, oor, ref),
                }
            for e, r in res.items():
                counts[(fam, e)][r] += 1
                counts[(fam, e)]["models"] += 1
            done += 1
            if progress and done % 500 == 0:
                progress(done, models)
    return counts


def table(counts) -> str:
    head = "| family | engine | " + " | ".join(COLUMNS) + " |"
    lines = [head, "|" + "---|" * (len(COLUMNS) + 2)]
    tot = {e: Counter() for e in ENGINES}
    for (f, e), c in counts.items():
        lines.append(f"| {f} | {e} | " + " | ".join(str(c[col]) for col in COLUMNS) + " |")
        tot[e].update(c)
    for e in ENGINES:
        lines.append(f"| **all** | {e} | " + " | ".join(str(tot[e][col]) for col in COLUMNS) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    a = ap.parse_args(argv)
    if a.models < 1:
        ap.error("--models must be >= 1")
    t0 = time.perf_counter()

    def progress(done, total):
        print(f"  {done}/{total} models, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)

    counts = run(a.models, a.seed, progress)
    if a.json:
        print(json.dumps({f"{f}/{e}": dict(c) for (f, e), c in counts.items()}))
    else:
        print(table(counts))
    bad = sum(c[x] for c in counts.values() for x in BAD)
    print(f"\n{a.models} models in {time.perf_counter() - t0:.0f} s; "
          f"{' + '.join(BAD)} = {bad}", file=sys.stderr)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
