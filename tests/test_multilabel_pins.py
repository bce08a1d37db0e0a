"""RTA gives the same numbers after the speed work: pins of small cases.

``tests/data/rta_pins.json`` was written by the implementation before the compiled passes were
reorganised (transposed weights, deduplicated candidate scoring, folds in parallel): the dual,
primal and gap of every pass (as ``float.hex``) with its violators and mean K, the predictions, and
the cross-validated losses, chosen C and inner tables of a synthetic set and of a slice of emotions.

What is counted or decided must match exactly, on any CPU: the number of passes, the violators of
each pass, the mean K (a mean of integers), the predicted label sets, the chosen C, the certified
fraction and every loss (100 times a count of mistakes over a count of labels: the same correctly
rounded divisions everywhere). The dual, primal and gap are sums of floating-point products whose
last bits depend on the CPU: the RBF Gram matrix is scikit-learn's ``rbf_kernel``, a BLAS product
(OpenBLAS picks its kernels for the CPU: SkylakeX here, Zen's, which are Haswell's, on an AMD EPYC)
and NumPy's ``exp`` (AVX-512 loops where the CPU has them). An EPYC gave ``0x1.9974dc6218419p+6``
for the first dual of the RBF case where the pin has ``0x1.9974dc6218417p+6``; this machine gives
the EPYC's value with ``OPENBLAS_CORETYPE=Haswell``.

So they are checked within a relative :data:`REL`. Measured on this machine: the largest relative
difference from the pins is 1.1e-14 (OpenBLAS's Haswell kernels and NumPy without its AVX-512
loops); multiplying every feature and every Gram entry by 1 + eps * N(0, 1) moves them by at most
50 eps at eps = 2^-52 and 5 eps from eps = 1e-13 to 1e-9, and leaves every count and decision above
unchanged even at eps = 1e-9: no decision here sits on a near-tie (and the synthetic labels are at
least 1e-4 from their threshold). ``tests/test_generic_cpu.py`` runs this file with numba, NumPy and
OpenBLAS on their baseline code paths.
"""

import json
from pathlib import Path

import pytest

from engine.multilabel.data import synthetic_multilabel
from engine.multilabel.evaluation import cross_validate
from engine.multilabel.learner import RTAClassifier

PINS = json.loads((Path(__file__).parent / "data" / "rta_pins.json").read_text())
REL = 1e-9  # relative, on the dual, primal and gap: see the module docstring


def _folds(folds):
    return [[f.C, f.microlabel_loss, f.zero_one_loss, f.exact_fraction, f.mean_k, f.passes,
             [list(r) for r in f.inner]] for f in folds]


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_training_history_and_predictions_are_pinned(kernel):
    d = synthetic_multilabel(150, 12, 6, seed=3)
    m = RTAClassifier(C=0.5, n_trees=4, max_k=8, kernel=kernel, max_passes=12, random_state=1).fit(d.X[:100], d.Y[:100])
    pins = PINS[kernel]["history"]
    assert len(m.history_) == len(pins)
    for h, (dual, primal, gap, violators, mean_k) in zip(m.history_, pins):
        assert (h["violators"], h["mean_k"]) == (violators, mean_k), h["pass"]   # counts: exact
        got, want = (h["dual"], h["primal"], h["gap"]), tuple(map(float.fromhex, (dual, primal, gap)))
        assert got == pytest.approx(want, rel=REL), h["pass"]
    assert m.predict(d.X[100:]).tolist() == PINS[kernel]["predict"]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_cross_validation_is_pinned(n_jobs):
    d = synthetic_multilabel(150, 12, 6, seed=3)
    folds = cross_validate(d.X, d.Y, n_trees=3, max_k=8, grid=(0.1, 1.0, 10.0), folds=3, seed=2, max_passes=8,
                           n_jobs=n_jobs)
    assert _folds(folds) == PINS["cv"]   # grid values, counts and percentages of counts: exact


def test_protocol_on_a_slice_of_emotions_is_pinned(data_dir):
    from engine.multilabel.data import read_arff

    e = read_arff(data_dir / "multilabel" / "emotions.arff.gz")
    folds = cross_validate(e.X[:200], e.Y[:200], n_trees=5, max_k=16, grid=(0.1, 1.0), folds=3, seed=0,
                           max_passes=10)
    assert _folds(folds) == PINS["emotions200"]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_progress_callback_that_raises_stops_every_fold(n_jobs):
    class Stop(Exception):
        pass

    calls = []

    def progress(fraction, message):
        calls.append(fraction)
        if len(calls) == 4:
            raise Stop("cancelled")

    d = synthetic_multilabel(120, 8, 4, seed=1)
    with pytest.raises(Stop):
        cross_validate(d.X, d.Y, n_trees=2, max_k=4, grid=(0.1, 1.0), folds=4, max_passes=30, tol=0.0,
                       n_jobs=n_jobs, progress=progress)
    assert len(calls) == 4  # nothing reported after the stop
    assert calls == sorted(calls)  # the overall fraction never goes back


@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
def test_cli_jobs_give_the_same_json_and_bad_jobs_is_one_line():
    import subprocess
    import sys

    def run(*extra):
        return subprocess.run([sys.executable, "-m", "engine", "rta", "--trees", "2", "--k", "4", "--C", "1",
                               "--folds", "2", "--passes", "2", "--json", *extra],
                              capture_output=True, text=True, timeout=600)

    a, b = run("--jobs", "1"), run("--jobs", "2")
    assert a.returncode == 0 and b.returncode == 0
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    for j in (ja, jb):
        j.pop("seconds")
        for f in j["per_fold"]:
            f.pop("seconds")
    assert ja == jb
    bad = run("--jobs", "-1")
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "jobs" in bad.stderr
