"""Forest density estimation commands: ``chowliu`` and ``ofde``
("Online Forest Density Estimation", Koriche, section 6)."""

from __future__ import annotations

from engine import limits
from engine.cli import print_json


def register(sub) -> None:
    p = sub.add_parser("chowliu", help="fit a Chow-Liu tree (or thresholded CL forest) and score a test file",
                       description="The batch baselines of \"Online Forest Density Estimation\" (Koriche): the "
                       "Chow-Liu tree and the thresholded Chow-Liu forest, scored on a test file.")
    _data_arguments(p, train="training samples (.data, .data.gz or CSV of small integer codes)",
                    valid="validation samples (needed by --threshold)")
    p.add_argument("--threshold", action="store_true",
                   help="thresholded CL (CLT): drop edges with mutual information below N^-eps, eps in {1/4,1/2,3/4} chosen on --valid")
    p.add_argument("--pseudocount", type=float, default=0.25, help="pseudo-count per cell of every pairwise table (default 0.25)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_chowliu)

    p = sub.add_parser("ofde", help="online forest density estimation (OFDE) over a training stream, scored on a test file",
                       description="Algorithm 1 of \"Online Forest Density Estimation\" (Koriche) over a "
                       "training stream, scored on a test file against the Chow-Liu tree.")
    _data_arguments(p, train="training samples, revealed one at a time in file order",
                    valid="validation samples (for the CLT reference level)")
    p.add_argument("--model", choices=("trees", "forests"), default="trees", help="class of experts (default trees)")
    p.add_argument("--mixture-size", type=limits.flag("mixture"), default=0, help="k, components kept (default round(ln n))")
    p.add_argument("--rounds", type=limits.flag("rounds"), default=0, help="rounds (default one pass; more cycles through the file)")
    p.add_argument("--perturbation-scale", type=float, default=1.0,
                   help="multiplies the paper's perturbation range 1/beta_t (default 1, the paper)")
    p.add_argument("--eval-points", type=limits.flag("eval_points"), default=40, help="log-spaced rounds at which the test set is scored")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_ofde)


def _data_arguments(p, *, train: str, valid: str) -> None:
    p.add_argument("--train", required=True, help=train)
    p.add_argument("--test", required=True, help="test samples, same columns")
    p.add_argument("--valid", help=valid)


def _chowliu(args) -> int:
    from engine.forests.run import ChowLiuConfig, run

    res = run(ChowLiuConfig(train=args.train, test=args.test, valid=args.valid or "",
                            threshold=args.threshold, pseudocount=args.pseudocount))
    m = res.metrics
    if args.json:
        print_json(m)
    else:
        kind = f"thresholded Chow-Liu (epsilon {m['epsilon']})" if m["threshold"] else "Chow-Liu tree"
        print(f"{kind}: {len(m['edges'])} edges over {m['n_vars']} variables, fit in {m['fit_seconds'] * 1e3:.1f} ms")
        print(f"average test log-likelihood: {m['test_loglik']:.4f} nats")
    return 0


def _ofde(args) -> int:
    from engine.forests.run import OfdeConfig, run

    res = run(OfdeConfig(train=args.train, test=args.test, valid=args.valid or "", model=args.model,
                         mixture_size=args.mixture_size, rounds=args.rounds,
                         perturbation_scale=args.perturbation_scale, eval_points=args.eval_points, seed=args.seed))
    m = res.metrics
    if args.json:
        print_json(m)
    else:
        print(f"OFDE over {m['model']}, k={m['mixture_size']}, {m['rounds']:,} rounds, "
              f"median {m['per_round_ms_median']:.3f} ms per round")
        print(f"final average test log-likelihood: {m['final_test_loglik']:.4f} nats "
              f"(Chow-Liu {m['chowliu_test_loglik']:.4f}, gap {m['gap_to_chowliu']:.4f})")
    return 0
