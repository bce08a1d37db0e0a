"""Benchmarks of the forests family ("Online Forest Density Estimation", Koriche): Chow-Liu against
the reference values of the data's README and pgmpy,
OFDE against Chow-Liu with the paper's settings, time per round, the perturbation-scale trade-off.

    python benchmarks/bench_forests.py            # everything (about 15 min on a quiet 2-core machine)
    python benchmarks/bench_forests.py --quick    # a smoke run (fewer seeds, kdd cut to 30,000 rounds)
    python benchmarks/bench_forests.py --only cl  # one part: cl, pgmpy, ofde, scale, inherent, seeds
    python benchmarks/bench_forests.py --only seeds --seeds 100  # the one-pass gap over 100 seeds

Prints Markdown tables (the README's "OFDE and Chow-Liu" section shows them). Data: the density
benchmarks in ../shared/data/density (or $TREE_WORKBENCH_DATA/density).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.timing import best_time  # noqa: E402
from engine.datasets import data_home  # noqa: E402
from engine.forests.chowliu import ChowLiu, thresholded_chow_liu  # noqa: E402
from engine.forests.estimators import (PairCounts, consistent_tables, forest_loglik,  # noqa: E402
                                       log_bayes_factor)
from engine.forests.fpl import paper_beta  # noqa: E402
from engine.forests.data import read_data  # noqa: E402
from engine.forests.evaluation import evaluate_online  # noqa: E402
from engine.forests.ofde import OFDE  # noqa: E402
from engine.forests.structure import greedy_structure, warm_up  # noqa: E402
from engine.reproduce.ofde import CHOW_LIU_REFERENCE  # noqa: E402

REFERENCE = CHOW_LIU_REFERENCE  # the data README's Chow-Liu test log-likelihoods
PUBLIC_GAP = {"nltcs": 0.11, "kdd": 0.09}  # a public Python OFDE, one pass, trees (its reported numbers)
# The same public implementation (github.com/Fadwaid2/Tree-distributions-learning, OFDEFast, commit
# 545b0c8) run on this machine over seeds 0..N-1 (np.random.seed), its final tree scored with the
# same normalised likelihood as ours: (seeds, mean gap, s.e., median, share within 0.15 nats).
# Measured with a harness outside this repository (its code is not ours to ship); seed 0 gives
# 0.1098 on nltcs -- its reported "0.11".
PUBLIC_MEASURED = {"nltcs": (100, 0.1253, 0.0050, 0.1217, 0.68), "kdd": (10, 0.0847, 0.0060, 0.0898, 1.00)}


def data_dir() -> Path:
    return data_home("density")


_CACHE: dict = {}


def load(name: str):
    if name not in _CACHE:
        d = data_dir()
        _CACHE[name] = tuple(read_data(d / f"{name}.{s}.data.gz").X for s in ("ts", "valid", "test"))
    return _CACHE[name]


def bench_chowliu() -> None:
    print("\n**Chow-Liu and thresholded Chow-Liu (pseudo-count 0.25 per cell, as the README references)**\n")
    print("| data | n | train | CL test LL | reference | difference | CLT test LL (eps) | CL fit, ms |")
    print("|---|---|---|---|---|---|---|---|")
    for name in REFERENCE:
        tr, va, te = load(name)
        cl = ChowLiu().fit(tr)
        clt = thresholded_chow_liu(tr, va)
        fit = best_time(lambda: ChowLiu().fit(tr), 5)
        ll = cl.score(te)
        print(f"| {name} | {tr.shape[1]} | {len(tr):,} | {ll:.4f} | {REFERENCE[name]:.3f} | {ll - REFERENCE[name]:+.4f} "
              f"| {clt.score(te):.4f} ({clt.epsilon:g}) | {fit * 1e3:.1f} |")


def bench_pgmpy(rows: int | None) -> None:
    import pandas as pd
    from pgmpy.estimators import TreeSearch

    tr = load("kdd")[0]
    X = tr if rows is None else tr[:rows]
    what = f"all {len(X):,} rows" if rows is None else f"first {len(X):,} of {len(tr):,} rows"
    print(f"\n**Chow-Liu fit on kdd ({what}, 64 variables): this engine vs pgmpy TreeSearch**\n")
    df = pd.DataFrame(X, columns=[f"X{i}" for i in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        dag = TreeSearch(df, root_node="X0", n_jobs=1).estimate(show_progress=False)
        pg = time.perf_counter() - t
    ours = best_time(lambda: ChowLiu().fit(X), 5)
    ours_full = best_time(lambda: ChowLiu().fit(tr), 5)
    mine = {tuple(sorted(e)) for e in ChowLiu().fit(X).edges_.tolist()}
    theirs = {tuple(sorted(int(v[1:]) for v in e)) for e in dag.edges()}
    print("| fit | seconds | speed-up vs pgmpy |")
    print("|---|---|---|")
    print(f"| pgmpy TreeSearch (chow-liu, n_jobs=1), {what} | {pg:.2f} | 1 |")
    print(f"| this engine, same rows | {ours:.4f} | {pg / ours:,.0f}x |")
    print(f"| this engine, all {len(tr):,} rows | {ours_full:.4f} | {pg / ours_full:,.0f}x (against pgmpy on the subsample) |")
    print(f"\nEdges in common with pgmpy's tree on the same rows: {len(mine & theirs)} of {len(mine)}.")


def run_ofde(name: str, model: str, seed: int, scale: float = 1.0, rounds: int | None = None, points: int = 30):
    tr, _, te = load(name)
    cl = ChowLiu().fit(tr)
    o = OFDE(tr.shape[1], model=model, perturbation_scale=scale, seed=seed)
    trace = evaluate_online(o, tr, te, rounds=rounds, points=points, reference_edges=cl.tree_edges_)
    return cl.score(te), trace


def bench_ofde(quick: bool) -> None:
    warm_up()
    print("\n**OFDE, paper's settings (k = round(ln n), alpha_t = 1/(4 sqrt(2t)), beta_t = sqrt(2/t)/n), one pass**\n")
    print("| data | model | seeds | rounds | final test LL (mean ± sd) | CL | gap to CL (mean, min..max) "
          "| public Python OFDE gap | median ms / round | SHD to CL |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    plan = [("nltcs", "trees", 3 if quick else 10, None), ("nltcs", "forests", 2 if quick else 5, None),
            ("kdd", "trees", 1 if quick else 3, 30000 if quick else None),
            ("kdd", "forests", 1, 30000 if quick else None),
            ("msnbc", "trees", 1, 30000 if quick else None), ("plants", "trees", 1 if quick else 3, None)]
    for name, model, seeds, rounds in plan:
        finals, ms, shd, T = [], [], [], 0
        for s in range(seeds):
            cl, tr = run_ofde(name, model, s, rounds=rounds)
            finals.append(tr.test_loglik[-1])
            ms.append(np.median(tr.round_seconds) * 1e3)
            shd.append(tr.shd[-1])
            T = len(tr.round_seconds)
        f = np.array(finals)
        gaps = cl - f
        pub = PUBLIC_GAP.get(name) if model == "trees" else None
        print(f"| {name} | {model} | {seeds} | {T:,} | {f.mean():.4f} ± {f.std():.4f} | {cl:.4f} "
              f"| {gaps.mean():.3f} ({gaps.min():.3f}..{gaps.max():.3f}) | {'' if pub is None else f'{pub:.2f}'} "
              f"| {np.median(ms):.3f} | {np.mean(shd):.1f} |")
        sys.stdout.flush()


def bench_scale(quick: bool) -> None:
    warm_up()
    scales = (1.0, 0.3, 0.1, 0.03, 0.01)
    seeds = 2 if quick else 5
    for name in ("nltcs",) + (() if quick else ("plants",)):
        print(f"\n**Perturbation scale trade-off on {name} (trees, one pass, {seeds} seeds)**\n")
        print("| scale | gap to CL after 100 rounds | after 1,000 | after one pass | SHD to CL at the end "
              "| first round within 0.05 nats of CL |")
        print("|---|---|---|---|---|---|")
        for sc in scales:
            g100, g1k, gend, shd, first = [], [], [], [], []
            for s in range(seeds):
                cl, tr = run_ofde(name, "trees", s, scale=sc, points=60)
                gap = cl - tr.test_loglik
                r = tr.rounds
                g100.append(np.interp(100, r, gap))
                g1k.append(np.interp(1000, r, gap))
                gend.append(gap[-1])
                shd.append(tr.shd[-1])
                ok = np.flatnonzero(gap <= 0.05)
                first.append(r[ok[0]] if len(ok) else np.nan)
            fr = np.array(first, dtype=float)
            fs = f"{np.nanmedian(fr):,.0f}" if np.isfinite(fr).any() else "never"
            fs += "" if np.isfinite(fr).all() else f" ({np.isnan(fr).sum()} of {seeds} never)"
            print(f"| {sc:g}{' (paper)' if sc == 1 else ''} | {np.mean(g100):.3f} | {np.mean(g1k):.3f} | "
                  f"{np.mean(gend):.3f} | {np.mean(shd):.1f} | {fs} |")
            sys.stdout.flush()


def bench_inherent(quick: bool) -> None:
    """The gap that Algorithm 1 itself leaves at the end of one pass, apart from any implementation.

    After round T the mixture is ``(1 - alpha_T)`` times the round-T perturbed leader plus
    ``alpha_T`` (0.0014 on nltcs) of older ones, so its test log-likelihood is, to about 0.002 nats,
    that of one draw ``argmin <W_T + r, f>``, ``W_T = -log BF`` from the final counts,
    ``r ~ U[0, n sqrt(T/2)]^E``. Its expectation is estimated here by Monte Carlo over ``r`` with
    the tables OFDE scores with (Jeffreys pair tables, their marginals as node tables).
    """
    warm_up()
    draws = 40 if quick else 200
    print(f"\n**What the paper's algorithm itself leaves: one FPL draw at the end of the pass ({draws} draws)**\n")
    print("| data | n | T | range n sqrt(T/2) / T | median MI of CL edges | CL | CL tree, OFDE's tables "
          "| leader without perturbation (edges shared with CL) | expected gap of the round-T leader (± s.e.; sd per run) "
          "| runs within 0.15 nats |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in ("nltcs", "kdd", "msnbc", "plants"):
        tr, _, te = load(name)
        T, n = tr.shape
        cl = ChowLiu().fit(tr)
        ll_cl = cl.score(te)
        tab = consistent_tables(PairCounts.from_data(tr), 0.5)
        W = -log_bayes_factor(PairCounts.from_data(tr), 0.5)
        lead = greedy_structure(W, n, "trees")
        shared = len(set(lead.tolist()) & set(cl.tree_ids_.tolist()))
        R = 1.0 / paper_beta(T, n)
        rng = np.random.default_rng(0)
        lls = np.array([forest_loglik(te, greedy_structure(W + rng.random(len(W)) * R, n, "trees"), tab).mean()
                        for _ in range(draws)])
        gap = ll_cl - lls
        print(f"| {name} | {n} | {T:,} | {R / T:.3f} | {np.median(cl.mi_[cl.tree_ids_]):.4f} | {ll_cl:.4f} "
              f"| {forest_loglik(te, cl.tree_edges_, tab).mean():.4f} | {forest_loglik(te, lead, tab).mean():.4f} "
              f"({shared} of {n - 1}) | {gap.mean():.3f} ± {gap.std() / np.sqrt(draws):.3f}; {gap.std():.3f} "
              f"| {np.mean(gap <= 0.15):.0%} |")
        sys.stdout.flush()


def bench_seeds(n_seeds: int) -> None:
    """The one-pass gap as a distribution over seeds, beside the public implementation's.

    With the paper's perturbation the final leader is one random draw (see ``inherent``), so a
    single run says little: this prints the mean (± standard error), median and spread over
    ``n_seeds`` seeds, and the share of runs within 0.15 nats and within the public figure.
    """
    warm_up()
    print("\n**OFDE over trees, one pass, paper's settings: the gap to Chow-Liu over seeds**\n")
    print("| data | implementation | seeds | mean gap ± s.e. | median | sd | min..max | within 0.15 | "
          "within its reported figure | median ms / round |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, seeds in (("nltcs", n_seeds), ("kdd", max(2, n_seeds // 10))):
        gaps, ms = [], []
        for s in range(seeds):
            cl, tr = run_ofde(name, "trees", s, points=3)
            gaps.append(cl - tr.test_loglik[-1])
            ms.append(np.median(tr.round_seconds) * 1e3)
        g = np.array(gaps)
        pub = PUBLIC_GAP[name]
        print(f"| {name} | this engine | {seeds} | {g.mean():.3f} ± {g.std(ddof=1) / np.sqrt(seeds):.3f} "
              f"| {np.median(g):.3f} | {g.std(ddof=1):.3f} | {g.min():.3f}..{g.max():.3f} | {np.mean(g <= 0.15):.0%} "
              f"| {np.mean(g <= pub):.0%} (≤ {pub}) | {np.median(ms):.3f} |")
        if name in PUBLIC_MEASURED:
            n, mean, se, med, within = PUBLIC_MEASURED[name]
            print(f"| {name} | public Python OFDE, measured here | {n} | {mean:.3f} ± {se:.3f} | {med:.3f} "
                  f"| | | {within:.0%} | | |")
        sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=("cl", "pgmpy", "ofde", "scale", "inherent", "seeds"))
    ap.add_argument("--seeds", type=int, default=100, help="seeds on nltcs for --only seeds (kdd: a tenth)")
    ap.add_argument("--pgmpy-rows", type=int, default=20000, help="kdd rows given to pgmpy (0: all; about 70 s)")
    args = ap.parse_args()
    if not data_dir().is_dir():
        sys.exit(f"error: benchmark data not found at {data_dir()}")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    if args.only in (None, "cl"):
        bench_chowliu()
    if args.only in (None, "pgmpy"):
        bench_pgmpy(args.pgmpy_rows or None)
    if args.only in (None, "ofde"):
        bench_ofde(args.quick)
    if args.only in (None, "scale"):
        bench_scale(args.quick)
    if args.only in (None, "inherent"):
        bench_inherent(args.quick)
    if args.only == "seeds":
        bench_seeds(args.seeds)


if __name__ == "__main__":
    main()
