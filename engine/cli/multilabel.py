"""RTA command: ``python -m engine rta --data F --labels L ... --json``."""

from __future__ import annotations

from engine import limits
from engine.cli import jobs, print_json


def register(sub) -> None:
    p = sub.add_parser("rta", help="RTA multilabel learning on random spanning trees: the paper's cross-validation",
                       description="RTA of \"Multilabel Structured Output Learning with Random Spanning Trees of "
                       "Max-Margin Markov Networks\" (Marchand, Su, Morvant, Rousu & Shawe-Taylor), with the "
                       "paper's cross-validation protocol.")
    p.add_argument("--data", default="synthetic", help="ARFF file (dense or sparse, .gz ok) or 'synthetic' (default)")
    p.add_argument("--labels", default=None, type=_labels,
                   help="number of label attributes (last in the file), or a Mulan XML file; default: the XML "
                        "beside the data file, else a MEKA '-C n' header")
    p.add_argument("--trees", type=limits.flag("spanning_trees"), default=10, help="number of random spanning trees (default 10)")
    p.add_argument("--k", type=limits.flag("kbest"), default=32, help="largest K of the K-best lists (default 32)")
    p.add_argument("--C", type=float, default=None, help="margin slack; default: chosen per fold by inner validation "
                                                         "from {100, 50, 10, 1, 0.5, 0.1, 0.01}")
    p.add_argument("--folds", type=limits.flag("folds"), default=5)
    p.add_argument("--inner-folds", type=limits.flag("folds"), default=3, help="inner validation: training set split in this many folds")
    p.add_argument("--inner-splits", type=limits.flag("folds"), default=1, help="how many of the inner folds validate C (default 1)")
    p.add_argument("--passes", type=limits.flag("iterations"), default=30, help="passes over the training set (default 30)")
    p.add_argument("--kernel", choices=("linear", "rbf"), default="linear")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=jobs, default=None,
                   help="outer folds trained at once (default and 0: one per core, at most the folds); "
                        "the results do not depend on it")
    p.add_argument("--baseline", choices=("svm",), default=None, help="also score one-vs-rest LinearSVC")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_rta)


_COUNT = limits.flag("labels")


def _labels(text: str):
    """A label count, checked against the ``labels`` limit as it is parsed (before the learning
    modules are imported), or the name of a Mulan XML file."""
    return _COUNT(text) if text.strip().lstrip("-").isdigit() else text


_labels.limit = "labels"   # (a count past the limit is refused like any sized flag's)
_labels.__name__ = "int"


def _rta(args) -> int:
    import os

    from engine.multilabel.run import RtaConfig, run

    config = RtaConfig(data=args.data, labels=args.labels, n_trees=args.trees, max_k=args.k, C=args.C,
                       folds=args.folds, inner_folds=args.inner_folds, inner_splits=args.inner_splits, max_passes=args.passes,
                       kernel=args.kernel, baseline=args.baseline, seed=args.seed,
                       jobs=args.jobs if args.jobs is not None else max(1, min(os.cpu_count() or 1, args.folds)))

    from engine.cli.runs import _StderrProgress

    progress = _StderrProgress(quiet=args.json)  # a tty line rewritten in place, else a line a second
    try:
        res = run(config, progress)
    finally:
        progress.done()  # an error line then starts on a clean line
    m = res.metrics
    if args.json:
        print_json(m)
        return 0
    print(f"{m['dataset']}: {m['examples']} examples, {m['features']} features, {m['labels']} labels; "
          f"{m['n_trees']} trees, K <= {m['max_k']}, {m['folds']}-fold CV")
    print(f"{'':14}{'microlabel %':>14}{'0/1 %':>10}")
    print(f"{'RTA':14}{m['microlabel_loss']:14.1f}{m['zero_one_loss']:10.1f}")
    if "svm_microlabel_loss" in m:
        print(f"{'LinearSVC':14}{m['svm_microlabel_loss']:14.1f}{m['svm_zero_one_loss']:10.1f}")
    for name, v in m.get("paper", {}).items():
        print(f"{'paper ' + name:14}{v['microlabel_loss']:14.1f}{v['zero_one_loss']:10.1f}")
    print(f"certified exact: {100 * m['exact_fraction']:.1f} %   C per fold: {m['C']}   {m['seconds']:.1f} s")
    return 0
