"""``python -m engine bhtmm``: train TF-BHTMM or SP-BHTMM and evaluate on a test set."""

from __future__ import annotations

from engine import limits
from engine.cli import print_json


def register(sub) -> None:
    p = sub.add_parser("bhtmm", help="bottom-up hidden tree Markov models (TF-BHTMM, SP-BHTMM): "
                       "tree classification or node labelling",
                       description="TF-BHTMM and SP-BHTMM of \"Bayesian Tensor Factorisation for Bottom-up Hidden "
                       "Tree Markov Models\" (Castellana & Bacciu): tree classification or node labelling.")
    p.add_argument("--train", required=True, help="training trees: .jsonl[.gz], XML file or directory, "
                   "or 'synthetic'")
    p.add_argument("--test", required=True, help="test trees (same formats)")
    p.add_argument("--model", choices=("tf", "sp"), default="tf")
    p.add_argument("--task", choices=("classify", "label"), default="label")
    p.add_argument("--states", type=limits.flag("states"), required=True, help="number of hidden states C")
    p.add_argument("--iterations", type=limits.flag("iterations"), default=100)
    p.add_argument("--lmin", type=int, default=1, help="TF: the fewest important child positions, 0..lmax (default 1)")
    p.add_argument("--lmax", type=int, default=None, help="default: min(L, 5), as the paper")
    p.add_argument("--phi", type=float, default=2.0)
    p.add_argument("--sampler", choices=("exact", "prior"), default="exact",
                   help="TF hidden-state step: exact joint draw, or the paper's Algorithm 1")
    p.add_argument("--init", choices=("sp", "prior"), default="sp",
                   help="TF starting point: states from a short SP-BHTMM run, or the priors (the paper)")
    p.add_argument("--estep", choices=("exact", "paper"), default="exact",
                   help="SP E-step: exact posteriors, or the authors' published code")
    p.add_argument("--bottom-leaves", action="store_true",
                   help="SP: let a leaf take the bottom state, as the authors' code does")
    p.add_argument("--cumulative-counts", action="store_true",
                   help="SP: M-steps on the counts summed over all iterations, as the authors' code does")
    p.add_argument("--pseudocount", type=float, default=0.01,
                   help="SP: Dirichlet pseudo-count added in the M-step (the authors' code: 2.2e-16)")
    p.add_argument("--sp-authors-code", action="store_true",
                   help="SP: run SP-BHTMM exactly as the authors' published code (their E-step, bottom-state "
                        "leaves, cumulative counts, pseudo-count 2.2e-16); overrides the four options above")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_bhtmm)


def _bhtmm(args) -> int:
    from engine.htmm.run import BhtmmConfig, run
    from engine.htmm.sp import AUTHORS_CODE

    if args.sp_authors_code:
        for k, v in AUTHORS_CODE.items():
            setattr(args, k, v)
    cfg = BhtmmConfig(train=args.train, test=args.test, model=args.model, task=args.task,
                      states=args.states, iterations=args.iterations, lmin=args.lmin, lmax=args.lmax,
                      phi=args.phi, sampler=args.sampler, init=args.init, estep=args.estep,
                      bottom_leaves=args.bottom_leaves, cumulative_counts=args.cumulative_counts,
                      pseudocount=args.pseudocount,
                      seed=args.seed)
    m = run(cfg).metrics
    if args.json:
        print_json(m)
    else:
        for k in ("model", "task", "states", "accuracy", "generated_accuracy", "entropy",
                  "confusion_entropy", "seconds"):
            if k in m:
                v = m[k]
                print(f"{k:>18}: {v:.4f}" if isinstance(v, float) else f"{k:>18}: {v}")
        print(f"{'per_label_accuracy':>18}: " + ", ".join(
            f"{a}={'-' if v is None else f'{v:.3f}'}" for a, v in m["per_label_accuracy"].items()))
    return 0
