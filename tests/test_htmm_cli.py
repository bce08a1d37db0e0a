"""``python -m engine bhtmm`` and the run protocol of the HTMM family."""

import json

import pytest

from engine.errors import InvalidParameterError
from engine.htmm.run import BhtmmConfig, run
from engine.runs.protocol import RunCancelled
from tests.conftest import ROOT, engine_cli


def cli(*args):
    return engine_cli("bhtmm", *args, cwd=ROOT)


def test_cli_label_json():
    r = cli("--train", "synthetic", "--test", "synthetic", "--model", "tf", "--task", "label",
            "--states", "4", "--iterations", "3", "--lmax", "2", "--seed", "1", "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    for key in ("accuracy", "generated_accuracy", "entropy", "per_label_accuracy", "confusion", "seconds"):
        assert key in m
    assert 0 <= m["accuracy"] <= 1 and len(m["confusion"]) == 4
    assert sum(map(sum, m["confusion"])) == sum(map(sum, m["generated_confusion"]))


def test_cli_classify_sp_on_data_slice(tmp_path, data_dir):
    import gzip

    rows = gzip.open(data_dir / "trees" / "inex05.train.jsonl.gz", "rt").read().splitlines()
    by_class = {}
    for line in rows:
        by_class.setdefault(json.loads(line)["y"], []).append(line)
    train = tmp_path / "train.jsonl"
    test = tmp_path / "test.jsonl"
    pick = [c for c in sorted(by_class)][:3]
    train.write_text("\n".join(l for c in pick for l in by_class[c][:20]) + "\n")
    test.write_text("\n".join(l for c in pick for l in by_class[c][20:30]) + "\n")
    r = cli("--train", str(train), "--test", str(test), "--model", "sp", "--task", "classify",
            "--states", "2", "--iterations", "3", "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert m["classes"] == pick and len(m["confusion"]) == 3
    assert sum(map(sum, m["confusion"])) == 30
    assert "generated_accuracy" not in m


@pytest.mark.parametrize("args,msg", [
    (["--train", "nope.jsonl", "--test", "synthetic", "--states", "3"], "nope.jsonl: no such file"),
    (["--train", "synthetic", "--test", "synthetic", "--states", "0"], "states = 0: expected an integer in [1, 64]"),
    (["--train", "synthetic", "--test", "synthetic", "--states", "3", "--lmin", "4"], "lmin=4"),
    (["--train", "synthetic", "--test", "synthetic", "--states", "3", "--model", "xx"], "invalid choice"),
    (["--train", "synthetic", "--test", "synthetic", "--states", "3", "--model", "sp", "--pseudocount", "-1"],
     "pseudocount = -1.0: expected a number in [0, 1000]"),
])
def test_cli_errors_are_one_line(args, msg):
    r = cli(*args, "--iterations", "1")
    assert r.returncode == 2
    assert r.stderr.startswith("error:") and r.stderr.count("\n") == 1 and msg in r.stderr, r.stderr


@pytest.mark.parametrize("flags, words", [
    (["--lmin", "99"], "lmin=99 is out of range: lmin must be in 0..3 (at most lmax, by default min(L, 5) = 3 for "
                       "the L = 3 child positions of the data)"),
    (["--lmin", "4", "--lmax", "8"], "lmin=4 is out of range: lmin must be in 0..3 (at most the L = 3 child "
                                     "positions of the data)"),
])
def test_an_impossible_lmin_is_refused_the_same_way_by_both_models(flags, words):
    """TF-BHTMM refused ``--lmin 99``; SP-BHTMM (which does not read it) warned and ran. Both refuse
    it in one line naming the setting and its range (the synthetic trees have L = 3 child positions)."""
    said = []
    for model in ("tf", "sp"):
        r = cli("--train", "synthetic", "--test", "synthetic", "--model", model, "--states", "2",
                "--iterations", "1", *flags, "--json")
        assert r.returncode == 2 and r.stdout == "", (model, r.stdout, r.stderr)
        said.append(r.stderr)
    assert said[0] == said[1] == f"error: {words}\n", said
    for model in ("tf", "sp"):   # the same refusal through the run protocol (the app, python -m engine run)
        args = dict(zip((f.lstrip("-") for f in flags[::2]), map(int, flags[1::2])))
        with pytest.raises(InvalidParameterError) as info:
            run(BhtmmConfig(model=model, states=2, iterations=1, synthetic_trees=2, **args))
        assert str(info.value) == words


def test_cli_bad_file_names_line(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"labels": [1], "children": [[-1]]}\n{"labels": [1], "children": [[2]]}\n')
    r = cli("--train", str(p), "--test", str(p), "--states", "2", "--iterations", "1")
    assert r.returncode == 2 and f"{p}:2: node 1, slot 1: child 2 is not a node 1..1 or -1" in r.stderr


def test_run_protocol_round_trip_and_curves():
    cfg = BhtmmConfig(model="tf", task="label", states=3, iterations=4, synthetic_trees=5, seed=2)
    assert BhtmmConfig.from_json(cfg.to_json()) == cfg
    seen = []
    res = run(cfg, lambda f, msg: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    assert [x for x, _ in res.curves["loglik"]] == [1, 2, 3, 4]
    assert {"k[1]", "k[2]", "k[3]"} <= set(res.curves)
    assert len(res.artefacts["predicted"]) == sum(map(sum, res.metrics["confusion"]))


def test_run_classify_synthetic_and_cancel():
    cfg = BhtmmConfig(model="tf", task="classify", states=2, iterations=2, synthetic_trees=4)
    res = run(cfg)
    assert res.metrics["classes"] == [1, 2, 3] and len(res.artefacts["predicted_class"]) == 3 * 1

    def stop(f, msg):
        if f > 0.1:
            raise RunCancelled("stop")

    with pytest.raises(RunCancelled):
        run(cfg, stop)


def test_cli_classify_xml_directories(tmp_path):
    docs = {"news": ["<doc><title/><p/><p/></doc>", "<doc><title/><p/></doc>", "<doc><title/><p/><p/><p/></doc>"],
            "recipe": ["<doc><list><item/><item/></list></doc>", "<doc><list><item/></list><p/></doc>",
                       "<doc><list><item/><item/><item/></list></doc>"]}
    for part, pick in (("train", slice(0, 2)), ("test", slice(2, 3))):
        for cls, texts in docs.items():
            (tmp_path / part / cls).mkdir(parents=True)
            for i, t in enumerate(texts[pick]):
                (tmp_path / part / cls / f"d{i}.xml").write_text(t)
    r = cli("--train", str(tmp_path / "train"), "--test", str(tmp_path / "test"), "--task", "classify",
            "--model", "sp", "--states", "2", "--iterations", "10", "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert m["classes"] == [1, 2] and sum(map(sum, m["confusion"])) == 2


def test_cli_zero_iterations_prints_valid_json():
    """No sweep: the acceptance rate of the k moves is undefined and printed as null."""
    r = cli("--train", "synthetic", "--test", "synthetic", "--states", "2", "--iterations", "0", "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert m["accept_k"] is None and m["train_loglik"] is None


def test_cli_sp_authors_code_reproduces_the_published_numbers(data_dir):
    """On symm (C = 10, 100 iterations) the exact SP-BHTMM generates 80 % of the labels right and
    every leaf's label 0; run as the authors' code (their E-step, ⊥ as a leaf state, counts summed
    over iterations) it lands where the paper's Table III does (53.08 ± 4.83 %; label 0 at 55 %)."""
    tr, te = (str(data_dir / "trees" / f"symm.{s}.jsonl.gz") for s in ("train", "test"))
    exact = run(BhtmmConfig(train=tr, test=te, model="sp", states=10, iterations=100, seed=1)).metrics
    assert exact["generated_accuracy"] > 0.75 and exact["generated_per_label_accuracy"]["1"] > 0.99
    r = cli("--train", tr, "--test", te, "--model", "sp", "--task", "label", "--states", "10",
            "--sp-authors-code", "--seed", "1", "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert m["bottom_leaves"] is True and m["cumulative_counts"] is True and m["estep"] == "paper"
    assert 0.40 < m["generated_accuracy"] < 0.62, m["generated_accuracy"]
    assert m["generated_per_label_accuracy"]["1"] < 0.8
