"""RTA against the paper's Table 1 and the LinearSVC baseline, on emotions, yeast and scene.

    python benchmarks/bench_rta.py [--datasets emotions yeast scene] [--trees 10] [--k 32]
                                   [--folds 5] [--passes 30] [--jobs 2] [--json out.json]
    python benchmarks/bench_rta.py --timing [--datasets yeast medical-like]   # protocol time only
    python benchmarks/bench_rta.py --growth [--svg docs/img]                  # cost against m x l
    python benchmarks/bench_rta.py --kbest [--against 0b24665]                # K-best kernels, µs a call

``medical-like`` is a synthetic stand-in for Mulan's ``medical`` (not shipped with the benchmark
data): the same shape and sparsity, 978 examples, 1,449 binary word features with about 16 words
an example, 45 labels with about 1.25 labels an example, words drawn from each label's own
vocabulary (:func:`medical_like`). It measures cost at medical's scale, not the paper's losses.

For every data set: the paper's protocol (5-fold CV, C from {100, 50, 10, 1, 0.5, 0.1, 0.01} by
inner validation on a third of the training set, K <= 32) with 10 trees, beside one-vs-rest LinearSVC (C per label by inner
CV) on the same folds; then the certified-exact fraction at K = l with 5 trees (Figure 1 of the
paper) at the median C chosen above; then the time of the RTA protocol alone on emotions. Reads
``../shared/data/multilabel`` (or TREE_WORKBENCH_DATA). Prints tables; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.plots import line_plot, write_svg  # noqa: E402
from benchmarks.timing import load_average  # noqa: E402
from engine.datasets import data_home  # noqa: E402
from engine.multilabel.data import MultilabelData, read_arff  # noqa: E402
from engine.multilabel.evaluation import PAPER_RESULTS, cross_validate  # noqa: E402
from engine.multilabel.learner import SPARSE_DENSITY, RTAClassifier  # noqa: E402
from engine.multilabel.run import RtaConfig, run  # noqa: E402

DATA = data_home("multilabel")


def medical_like(m: int = 978, d: int = 1449, l: int = 45, words: int = 16, cardinality: float = 1.245,
                 seed: int = 0) -> MultilabelData:
    """Synthetic data of the shape and sparsity of Mulan's medical (see the module docstring)."""
    rng = np.random.default_rng(seed)
    freq = rng.zipf(1.6, size=l).astype(float)
    freq /= freq.sum()
    vocab = [rng.choice(d, size=30, replace=False) for _ in range(l)]
    X = np.zeros((m, d))
    Y = np.zeros((m, l), np.uint8)
    for i in range(m):
        labs = rng.choice(l, size=min(1 + rng.poisson(cardinality - 1), l), replace=False, p=freq)
        Y[i, labs] = 1
        for lab in labs:
            X[i, rng.choice(vocab[lab], size=words // 2)] = 1
        X[i, rng.integers(0, d, size=words - words // 2)] = 1
    return MultilabelData(X, Y, tuple(f"w{j}" for j in range(d)), tuple(f"label {j}" for j in range(l)),
                          "medical-like (synthetic)")


def load(name: str) -> MultilabelData:
    return medical_like() if name == "medical-like" else read_arff(DATA / f"{name}.arff.gz")


def timing(names, args) -> None:
    """The paper's protocol (C by inner validation, no baseline), wall and CPU seconds."""
    print(f"RTA protocol ({args.folds}-fold, {args.trees} trees, K <= {args.k}, {args.passes} passes, "
          f"jobs {args.jobs}); load average before each row")
    print("| data | m | d | l | solver | load (1/5/15 min) | wall s | CPU s | micro % | 0/1 % | C per fold |")
    print("|---|---:|---:|---:|---|---|---:|---:|---:|---:|---|")
    for name in names:
        d = load(name)
        load0 = load_average()
        t0, c0 = time.perf_counter(), time.process_time()
        folds = cross_validate(d.X, d.Y, n_trees=args.trees, max_k=args.k, folds=args.folds, seed=args.seed,
                               max_passes=args.passes, n_jobs=args.jobs)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        solver = "sparse" if np.count_nonzero(d.X) <= SPARSE_DENSITY * d.X.size else "dense"
        print(f"| {name} | {d.X.shape[0]} | {d.X.shape[1]} | {d.n_labels} | {solver} | {load0} | {wall:.0f} | "
              f"{cpu:.0f} | {np.mean([f.microlabel_loss for f in folds]):.2f} | "
              f"{np.mean([f.zero_one_loss for f in folds]):.2f} | {', '.join(f'{f.C:g}' for f in folds)} |", flush=True)


def growth(args) -> None:
    """Cost of training against examples x labels: one fit (C = 1, fixed passes) on growing slices."""
    rows = []
    sets = [("yeast", read_arff(DATA / "yeast.arff.gz")), ("medical-like", medical_like())]
    print(f"One RTA fit ({args.trees} trees, K <= {args.k}, C = 1, {args.growth_passes} passes): "
          "cost against examples m and labels l")
    print("| data | m | l | m x l | load | seconds | us per example-pass | mean K |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    RTAClassifier(n_trees=2, max_k=4, max_passes=1).fit(sets[0][1].X[:40], sets[0][1].Y[:40])  # compile
    for name, d in sets:
        L = d.n_labels
        for l in sorted({max(2, L // 3), max(2, 2 * L // 3), L}):
            keep = np.flatnonzero(d.Y[:, :l].any(axis=0))  # labels seen at all
            for m in (d.X.shape[0] // 4, d.X.shape[0] // 2, d.X.shape[0]):
                model = RTAClassifier(C=1.0, n_trees=args.trees, max_k=args.k, max_passes=args.growth_passes,
                                      tol=0.0, random_state=args.seed)
                load0 = load_average()
                t0 = time.process_time()
                model.fit(d.X[:m], d.Y[:m][:, keep])
                t = time.process_time() - t0
                rows.append((name, m, len(keep), t, model.history_[-1]["mean_k"]))
                print(f"| {name} | {m} | {len(keep)} | {m * len(keep)} | {load0} | {t:.2f} | "
                      f"{1e6 * t / (m * model.n_passes_):.0f} | {model.history_[-1]['mean_k']:.1f} |", flush=True)
    if args.svg:
        series = {}
        for name, m, l, t, _ in rows:
            series.setdefault(f"{name}, l = {l}", ([], []))
            series[f"{name}, l = {l}"][0].append(m * l)
            series[f"{name}, l = {l}"][1].append(t)
        path = write_svg(Path(args.svg) / "rta_growth.svg",
                         line_plot(series, title="RTA: one fit against examples x labels", xlabel="examples x labels",
                                   ylabel="CPU seconds", logx=True, logy=True))
        print(f"\nplot: {path}")


def kbest(args) -> None:
    """Algorithm 1 on the ensemble (``_ensemble``, called from compiled code as training does): the
    kernels of git revision ``--against`` (by default 0b24665, the kernels the RTA numbers were
    pinned with) against the current ones, which return the same labellings bit for bit."""
    from numba import njit

    from engine.multilabel import kbest as current
    from engine.multilabel.spanning_trees import random_spanning_trees

    pinned = _kbest_at(args.against)

    def timer(mod):
        ens = mod._ensemble

        @njit
        def run(S, parent, post, ptr, idx, K, ex, ws, reps):
            acc = 0.0
            for _ in range(reps):
                cand, cs, b, v, th = ens(S, parent, post, ptr, idx, K, ex, True, ws)
                acc += cs[b]
            return acc
        return run

    l, n = 14, args.trees  # yeast's labels
    rng = np.random.default_rng(args.seed)
    trees = random_spanning_trees(l, n, seed=rng)
    draws = {"generic": rng.normal(size=(n, l, 4)), "ties": np.round(rng.normal(size=(n, l, 4)) * 2) / 2}
    ex = np.zeros(l, np.uint8)
    print(f"K-best inference over {n} random spanning trees of {l} labels, µs a call (CPU, from compiled code; "
          f"load {load_average()}); pinned: engine/multilabel/kbest.py at {args.against}")
    print("| K | scores | pinned kernels | current | speed-up |")
    print("|---:|---|---:|---:|---:|")
    runs = {name: timer(mod) for name, mod in (("pinned", pinned), ("current", current))}
    for K in (2, 4, 8, 16, 32):
        for label, S in draws.items():
            us = {}
            for name, mod in (("pinned", pinned), ("current", current)):
                a = (S, trees.parent, trees.post, trees.child_ptr, trees.child_idx, K, ex, mod._workspace(l, args.k))
                runs[name](*a, 1)  # compile
                reps = max(1, 20_000 // K)
                c0 = time.process_time()
                runs[name](*a, reps)
                us[name] = 1e6 * (time.process_time() - c0) / reps
            print(f"| {K} | {label} | {us['pinned']:.1f} | {us['current']:.1f} | {us['pinned'] / us['current']:.2f}× |",
                  flush=True)


def _kbest_at(rev: str):
    """``engine/multilabel/kbest.py`` as it was at git revision ``rev``, imported as a module."""
    import importlib.util
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parent.parent
    got = subprocess.run(["git", "-C", str(root), "show", f"{rev}:engine/multilabel/kbest.py"],
                         capture_output=True, text=True)
    if got.returncode:
        raise SystemExit(f"bench_rta: cannot read engine/multilabel/kbest.py at {rev} "
                         f"({got.stderr.strip() or 'git failed'}); a clone with its history is needed")
    path = Path(tempfile.mkdtemp(prefix="kbest_at_")) / f"kbest_{rev}.py"
    path.write_text(got.stdout)
    spec = importlib.util.spec_from_file_location(f"kbest_{rev}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["emotions", "yeast", "scene"])
    ap.add_argument("--trees", type=int, default=10)
    ap.add_argument("--k", type=int, default=32)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-exactness", action="store_true")
    ap.add_argument("--exact-passes", type=int, default=60,
                    help="passes for the 5-tree exactness study (certification needs a converged model)")
    ap.add_argument("--exact-C", type=float, default=None, help="C of the exactness study (default: median chosen C)")
    ap.add_argument("--only-exactness", action="store_true", help="skip the main table (needs --exact-C)")
    ap.add_argument("--brute-force-check", type=int, default=0, metavar="N",
                    help="also compare N yeast test predictions (10 trees, C = 0.5, fold 1) with the brute-force argmax")
    ap.add_argument("--json", default=None, help="also write all results to this JSON file")
    ap.add_argument("--jobs", type=int, default=2, help="outer folds at once (threads; same results)")
    ap.add_argument("--timing", action="store_true", help="only time the protocol (no baseline, no exactness)")
    ap.add_argument("--growth", action="store_true", help="only print the growth table (cost against m x l)")
    ap.add_argument("--growth-passes", type=int, default=5)
    ap.add_argument("--kbest", action="store_true", help="only time the K-best kernels (pinned against current)")
    ap.add_argument("--against", default="0b24665", metavar="REV",
                    help="with --kbest: the git revision whose kernels are timed as 'pinned'")
    ap.add_argument("--svg", default=None, metavar="DIR", help="write the growth plot into this folder")
    args = ap.parse_args(argv)
    if args.kbest:
        return kbest(args)
    if args.growth:
        return growth(args)
    if args.timing:
        return timing(args.datasets, args)

    rows, exact_rows, out = [], [], {}
    for name in args.datasets:
        path = DATA / f"{name}.arff.gz"
        if args.only_exactness:
            m = {"C": [args.exact_C]}
        cfg = RtaConfig(data=str(path), n_trees=args.trees, max_k=args.k, folds=args.folds,
                        max_passes=args.passes, baseline="svm", seed=args.seed, jobs=args.jobs)
        t0 = time.perf_counter()
        res = None if args.only_exactness else run(cfg, lambda f, msg: print(f"\r  {name}: {100 * f:5.1f}% {msg:<50}", end="", file=sys.stderr, flush=True))
        if res is not None:
            print(file=sys.stderr)
            m = res.metrics
            p = PAPER_RESULTS[name]["RTA"]
            rows.append((name, m["microlabel_loss"], m["zero_one_loss"], m["svm_microlabel_loss"], m["svm_zero_one_loss"],
                         p[0], p[1], m["exact_fraction"], m["C"], time.perf_counter() - t0))
            out[name] = {"main": m, "curves": res.curves}
            print(f"  {name}: RTA {m['microlabel_loss']:.1f} / {m['zero_one_loss']:.1f}  SVM {m['svm_microlabel_loss']:.1f} / "
                  f"{m['svm_zero_one_loss']:.1f}  C {m['C']}", file=sys.stderr)

        if not args.skip_exactness:
            d = read_arff(path)
            l = d.n_labels
            C = args.exact_C if args.exact_C is not None else float(np.median(m["C"]))
            acc = []

            def hook(f, model, Xte, Yte):
                acc.append((len(Xte), model.exact_fraction(Xte, [l, 2 * l])))

            folds = cross_validate(d.X, d.Y, n_trees=5, max_k=l, C=C, folds=args.folds, seed=args.seed,
                                   max_passes=args.exact_passes, model_hook=hook)
            n = sum(a for a, _ in acc)
            frac = sum(a * e for a, e in acc) / n
            exact_rows.append((name, l, C, frac[0], frac[1], np.mean([f.zero_one_loss for f in folds])))
            out.setdefault(name, {})["exactness_5_trees"] = {"K": [l, 2 * l], "fraction": frac.tolist(), "C": C}

    print()
    if rows:
        print(f"RTA ({args.trees} trees, K <= {args.k}, {args.folds}-fold CV, C by inner validation) vs LinearSVC, "
              "same folds; losses in %")
    if rows:
        print("| data | RTA micro | RTA 0/1 | SVM micro | SVM 0/1 | paper RTA micro | paper RTA 0/1 | certified exact | C per fold | seconds |")
        print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]:.1f} | {r[2]:.1f} | {r[3]:.1f} | {r[4]:.1f} | {r[5]:.1f} | {r[6]:.1f} | "
              f"{100 * r[7]:.1f} % | {', '.join(f'{c:g}' for c in r[8])} | {r[9]:.0f} |")
    if exact_rows:
        print()
        print(f"Certified-exact inference on the test folds, 5 trees, {args.exact_passes} passes (Lemma 7)")
        print("| data | l | C | exact at K = l | exact at K = 2l | 0/1 % (5 trees) |")
        print("|---|---|---|---|---|---|")
        for r in exact_rows:
            print(f"| {r[0]} | {r[1]} | {r[2]:g} | {100 * r[3]:.1f} % | {100 * r[4]:.1f} % | {r[5]:.1f} |")
    if "emotions" in args.datasets and not args.only_exactness:
        t0 = time.perf_counter()
        run(RtaConfig(data=str(DATA / "emotions.arff.gz"), n_trees=args.trees, max_k=args.k, folds=args.folds,
                      max_passes=args.passes, seed=args.seed, jobs=args.jobs))
        t = time.perf_counter() - t0
        out["emotions_rta_only_seconds"] = t
        print()
        print(f"emotions, RTA protocol alone ({args.folds}-fold, 7 inner fits + 1 per fold): {t:.1f} s")
    if args.brute_force_check:
        brute_force_check(args.brute_force_check, args.trees, args.passes, args.seed)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, default=float))


def brute_force_check(n_examples: int, n_trees: int, passes: int, seed: int) -> None:
    """Are uncertified predictions exact anyway? Enumerate all 2^14 labellings of yeast."""
    from sklearn.model_selection import KFold

    from engine.multilabel.kbest import brute_force_scores
    from engine.multilabel.learner import RTAClassifier

    d = read_arff(DATA / "yeast.arff.gz")
    tr, te = next(iter(KFold(5, shuffle=True, random_state=seed).split(d.X)))
    model = RTAClassifier(C=0.5, n_trees=n_trees, max_passes=passes, random_state=seed).fit(d.X[tr], d.Y[tr])
    te = te[:n_examples]
    _, cert, _, score = model.infer(d.X[te])
    S = model.edge_scores(d.X[te])
    exact = np.array([score[i] >= brute_force_scores(S[i], model.trees_)[1].max() * (1 - 1e-12) - 1e-12
                      for i in range(len(te))])
    print()
    print(f"yeast, {n_trees} trees, fold 1, {len(te)} test examples: certified {cert.sum()}, "
          f"equal to the brute-force argmax {exact.sum()} (uncertified yet exact: {(exact & ~cert).sum()})")


if __name__ == "__main__":
    main()
