"""``python -m engine rta``: the JSON keys people script against (documented in
docs/random-spanning-trees.md), and one-line errors."""

import json

import pytest

from tests.conftest import ROOT, engine_cli


def _run(*args):
    return engine_cli("rta", *args, cwd=ROOT)


@pytest.mark.slow
def test_rta_json_on_a_small_arff(tmp_path):
    rng = __import__("numpy").random.default_rng(0)
    lines = ["@relation small"] + [f"@attribute f{j} numeric" for j in range(4)] + \
            [f"@attribute l{j} {{0,1}}" for j in range(3)] + ["@data"]
    for _ in range(40):
        x = rng.normal(size=4)
        y = (x[:3] > 0).astype(int)
        lines.append(",".join([f"{v:.4f}" for v in x] + [str(v) for v in y]))
    p = tmp_path / "small.arff"
    p.write_text("\n".join(lines) + "\n")
    r = _run("--data", str(p), "--labels", "3", "--trees", "2", "--k", "4", "--C", "1", "--folds", "2",
             "--passes", "3", "--seed", "1", "--baseline", "svm", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    for key in ("microlabel_loss", "zero_one_loss", "exact_fraction", "per_fold", "seconds",
                "svm_microlabel_loss", "svm_zero_one_loss"):
        assert key in out
    assert len(out["per_fold"]) == 2 and out["labels"] == 3


@pytest.mark.slow
def test_rta_errors_are_one_line(tmp_path):
    r = _run("--data", str(tmp_path / "missing.arff"), "--labels", "3", "--json")
    assert r.returncode == 2 and r.stderr.startswith("error:") and r.stderr.count("\n") == 1
    assert "missing.arff" in r.stderr
    r = _run("--trees", "0", "--json")
    assert r.returncode == 2 and "n_trees" in r.stderr and r.stderr.count("\n") == 1
