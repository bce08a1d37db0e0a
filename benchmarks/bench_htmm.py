"""Target runs for "Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models"
(Castellana & Bacciu): TF-BHTMM and SP-BHTMM on symm (labelling) and inex05 (classification).

    python benchmarks/bench_htmm.py                      # symm labelling, 5 seeds, both models
    python benchmarks/bench_htmm.py --inex05 --states 6  # inex05 classification, C = 6
    python benchmarks/bench_htmm.py --sampler prior      # the paper's state sampler, to compare
    python benchmarks/bench_htmm.py --models sp --sp-authors-code --seeds 20
                                                         # SP-BHTMM as the authors' code (published numbers)

Prints one table row per (data, model, sampler): mean (standard deviation over seeds) of the
metrics next to the published numbers (Castellana & Bacciu 2019, Tables I and III), and the mean
wall-clock seconds per run. Data are read from ../shared/data/trees (or TREE_WORKBENCH_DATA).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.datasets import data_home  # noqa: E402
from engine.htmm.run import BhtmmConfig, run  # noqa: E402
from engine.reproduce.bhtmm import PUBLISHED  # noqa: E402

DATA = data_home("trees")

PAPER = PUBLISHED  # (data, model, C): (accuracy, std, entropy, std), Tables I and III


def ms(xs):
    xs = np.asarray(xs, float)
    return f"{xs.mean():6.2f} ({xs.std(ddof=1) if len(xs) > 1 else 0:5.2f})"


def _k(k):
    if isinstance(k, dict):  # one size vector per class model: show the important positions
        return "; ".join(f"{c}: " + ",".join(f"{l + 1}:{v}" for l, v in enumerate(ks) if v > 1) for c, ks in k.items())
    return k if k is not None else "-"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inex05", action="store_true", help="classification on inex05 instead of symm labelling")
    ap.add_argument("--models", default="tf,sp")
    ap.add_argument("--states", type=int, default=None, help="default 10 (symm) or 6 (inex05)")
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--sampler", default="exact", choices=("exact", "prior"))
    ap.add_argument("--init", default="sp", choices=("sp", "prior"),
                    help="TF starting point (prior: as the paper)")
    ap.add_argument("--estep", default="exact", choices=("exact", "paper"),
                    help="SP E-step (paper: the authors' published code)")
    ap.add_argument("--bottom-leaves", action="store_true", help="SP: a leaf may take the bottom state (authors' code)")
    ap.add_argument("--cumulative-counts", action="store_true", help="SP: counts summed over iterations (authors' code)")
    ap.add_argument("--pseudocount", type=float, default=0.01, help="SP M-step pseudo-count (authors' code: 2.2e-16)")
    ap.add_argument("--sp-authors-code", action="store_true", help="SP exactly as the authors' code (all of the above)")
    args = ap.parse_args(argv)
    if args.sp_authors_code:
        from engine.htmm.sp import AUTHORS_CODE

        for k, v in AUTHORS_CODE.items():
            setattr(args, k, v)
    data = "inex05" if args.inex05 else "symm"
    C = args.states or (6 if args.inex05 else 10)
    task = "classify" if args.inex05 else "label"
    lmax = 5 if args.inex05 else 3
    print(f"# {data} {task}, C = {C}, {args.iterations} iterations, {args.seeds} seeds, "
          f"TF sampler {args.sampler}, init {args.init}; mean (std) over seeds; timings on a shared, loaded machine")
    head = "| data | model | accuracy % | generated % | entropy % | confusion entropy % | paper acc. % | paper entropy % | s/run |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for model in args.models.split(","):
        rows = []
        for seed in range(args.seeds):
            cfg = BhtmmConfig(train=str(DATA / f"{data}.train.jsonl.gz"), test=str(DATA / f"{data}.test.jsonl.gz"),
                              model=model, task=task, states=C, iterations=args.iterations, lmin=1,
                              lmax=lmax, phi=2.0, sampler=args.sampler, init=args.init, estep=args.estep,
                              bottom_leaves=args.bottom_leaves, cumulative_counts=args.cumulative_counts,
                              pseudocount=args.pseudocount, seed=seed)
            m = run(cfg).metrics
            rows.append(m)
            print(f"#   {model} seed {seed}: accuracy {100 * m['accuracy']:.2f}"
                  + (f", generated {100 * m['generated_accuracy']:.2f}" if task == "label" else "")
                  + f", entropy {m['entropy']:.2f}, confusion entropy {m['confusion_entropy']:.2f}, "
                  f"k {_k(m.get('k'))}, {m['seconds']:.1f} s", flush=True)
        acc = [100 * r["accuracy"] for r in rows]
        gen = ms([100 * r["generated_accuracy"] for r in rows]) if task == "label" else "-"
        p = PAPER.get((data, model, C))
        pa = f"{p[0]:.2f} ({p[1]:.2f})" if p else "-"
        pe = f"{p[2]:.2f} ({p[3]:.2f})" if p else "-"
        name = (f"TF-BHTMM ({args.sampler} states, {args.init} init)") if model == "tf" else (
            "SP-BHTMM (authors' code)" if args.sp_authors_code else
            f"SP-BHTMM ({args.estep} E-step{', ⊥ leaves' if args.bottom_leaves else ''}"
            f"{', cumulative counts' if args.cumulative_counts else ''}, pseudo-count {args.pseudocount:g})")
        print(f"| {data} | {name} | {ms(acc)} | {gen} | {ms([r['entropy'] for r in rows])} | "
              f"{ms([r['confusion_entropy'] for r in rows])} | {pa} | {pe} | "
              f"{np.mean([r['seconds'] for r in rows]):.1f} |", flush=True)
        if task == "label":
            per = np.array([[100 * (v or 0) for v in r["generated_per_label_accuracy"].values()] for r in rows])
            print("#   generated accuracy per label (labels 1..4 = 0..3 children): "
                  + ", ".join(ms(per[:, i]) for i in range(per.shape[1])), flush=True)


if __name__ == "__main__":
    main()
