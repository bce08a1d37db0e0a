"""The TREE-HEDGE run protocol and the ``hedge`` command: keys, trace, errors, cancellation."""

import json

import numpy as np
import pytest

from engine.errors import InvalidParameterError
from engine.hedge.run import HedgeConfig, run
from engine.runs.protocol import RunCancelled
from tests.conftest import ROOT, engine_cli

KEYS = {"tree_hedge_loss", "independent_hedge_loss", "shared_hedge_loss", "best_comparator_loss", "bound"}
SMALL = {"generate": "random", "n": 8, "seed": 1}


def cli(*args):
    return engine_cli("hedge", *args, cwd=ROOT)


def test_run_metrics_curves_and_artefacts():
    c = HedgeConfig(tree=SMALL, states=2, trials=400, backend="brute", snapshots=10)
    r = run(c)
    assert KEYS <= set(r.metrics)
    m = r.metrics
    assert m["tree_hedge_loss"] <= m["bound"] and m["bound_holds"]
    for name in ("tree_hedge_loss", "independent_hedge_loss", "shared_hedge_loss"):
        xs, ys = zip(*r.curves[name])
        assert xs[-1] == 400 and ys[-1] == pytest.approx(m[name], rel=1e-12)
        assert all(b >= a for a, b in zip(ys, ys[1:]))
    bt, bv = zip(*r.curves["bound"])
    assert bt[-1] == 400 and bv[-1] == pytest.approx(m["bound"], rel=1e-12)
    a = r.artefacts
    assert a["snapshot_trials"][0] == 0 and a["snapshot_trials"][-1] == 400
    assert len(a["favourite"]["tree_hedge"]) == len(a["snapshot_trials"])
    assert len(a["favourite"]["tree_hedge"][0]) == 8
    json.dumps(a)  # JSON-able
    # per-task losses add up to the totals
    assert sum(a["task_loss"]["tree_hedge"][-1]) == pytest.approx(m["tree_hedge_loss"], rel=1e-9)


def test_config_round_trip_and_checks():
    c = HedgeConfig(tree=SMALL, states=3, trials=50, coupling=0.8, backend="brute")
    assert HedgeConfig.from_json(c.to_json()) == c
    with pytest.raises(InvalidParameterError, match="environment"):
        run(HedgeConfig(tree=SMALL, environment="chaos", backend="brute"))
    with pytest.raises(InvalidParameterError, match="loss file"):
        run(HedgeConfig(tree=SMALL, environment="file", backend="brute"))


def test_cancel_from_progress():
    seen = []

    def progress(f, msg):
        seen.append(f)
        if f > 0.3:
            raise RunCancelled("stop")

    with pytest.raises(RunCancelled):
        run(HedgeConfig(tree=SMALL, states=2, trials=2000, backend="brute"), progress)
    assert 0.3 < max(seen) < 0.5


def test_cli_json_keys_and_trace(tmp_path):
    out = tmp_path / "t.jsonl"
    r = cli("--tree", "random:8:1", "--states", "2", "--trials", "150", "--eta", "0.7", "--coupling", "0.9",
            "--environment", "switching", "--switches", "2", "--seed", "3", "--backend", "brute",
            "--trace", str(out), "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert KEYS <= set(m) and m["trials"] == 150 and m["environment"] == "switching"
    lines = [json.loads(s) for s in out.read_text().splitlines()]
    assert len(lines) == 150 and set(lines[0]) == {"t", "vertex", "prediction", "loss"}
    assert [x["t"] for x in lines] == list(range(1, 151))
    total = sum(np.dot(x["prediction"], x["loss"]) for x in lines)
    assert total == pytest.approx(m["tree_hedge_loss"], rel=1e-12)
    # same config through the run protocol: the same numbers
    res = run(HedgeConfig(tree={"generate": "random", "n": 8, "seed": 1}, states=2, trials=150, eta=0.7,
                          coupling=0.9, environment="switching", switches=2, seed=3, backend="brute"))
    for k in KEYS:
        assert res.metrics[k] == pytest.approx(m[k], rel=1e-12)


def test_cli_loss_file(tmp_path):
    tree = tmp_path / "t.csv"
    tree.write_text("a,b\nb,c\n")
    losses = tmp_path / "l.csv"
    losses.write_text("a,0,1\nc,1,0\nb,0.5,0.5\n")
    r = cli("--tree", str(tree), "--states", "2", "--losses", str(losses), "--backend", "brute", "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert m["trials"] == 3 and m["environment"] == "file"


@pytest.mark.parametrize("args,message", [
    (["--tree", "random:8", "--coupling", "1.5"], "coupling = 1.5: expected a number in [0, 1]"),
    (["--tree", "random:8", "--eta", "-1"], "eta = -1.0: expected a number in (0, 1e6]"),
    (["--tree", "random:8", "--eta", "1e308"], "eta = 1e+308: expected a number in (0, 1e6]"),
    (["--tree", "random:8", "--trace", "."], "is a directory"),
    (["--tree", "random:8", "--switches", "8"], "switches must be an integer in 0..7"),
    (["--tree", "random:8", "--states", "1"], "integer >= 2"),
    (["--tree", "random:8", "--trials", "0"], "trials = 0: expected an integer >= 1"),
    (["--tree", "no_such_tree.csv"], "no_such_tree.csv"),
    (["--tree", "random:8", "--environment", "chaos"], "invalid choice"),
])
def test_cli_errors_are_one_line(args, message, capsys):
    """In process (the same ``main`` as ``python -m engine``; one subprocess test above)."""
    from engine.cli import main

    try:
        rc = main(["hedge", *args, "--backend", "brute", "--json"])
    except SystemExit as exc:  # argparse errors
        rc = exc.code
    out = capsys.readouterr()
    assert rc == 2
    assert out.err.startswith("error:") and out.err.count("\n") == 1 and message in out.err, out.err
    assert out.out == ""


def test_cli_bad_loss_file_is_one_line(tmp_path):
    losses = tmp_path / "l.csv"
    losses.write_text("0,0,1\n99,1,0\n")
    r = cli("--tree", "path:3", "--states", "2", "--losses", str(losses), "--backend", "brute")
    assert r.returncode == 2 and r.stderr == "error: l.csv line 2: task '99' is not a vertex of the tree\n"
