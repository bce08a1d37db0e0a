"""Forest data loaders, the run protocol and the ``chowliu`` / ``ofde`` commands."""

import gzip
import json
import math

import numpy as np
import pytest

from engine.errors import DataFormatError, InvalidParameterError
from engine.forests.chowliu import ChowLiu
from engine.forests.data import parse_data, read_data, synthetic_split
from engine.forests.estimators import PairCounts
from engine.forests.ofde import OFDE
from engine.forests.run import ChowLiuConfig, OfdeConfig, run
from engine.runs.protocol import RunCancelled
from tests.conftest import ROOT, engine_cli, one_line_error


# ----------------------------------------------------------------------------- loaders

def test_reads_plain_gz_and_header(tmp_path):
    p = tmp_path / "a.data"
    p.write_text("0,1,1\n1,0,1\n\n1,1,0\n")
    d = read_data(p)
    assert d.X.tolist() == [[0, 1, 1], [1, 0, 1], [1, 1, 0]] and d.m == 2 and d.names == ("X0", "X1", "X2")
    g = tmp_path / "a.data.gz"
    g.write_bytes(gzip.compress(p.read_bytes()))
    assert np.array_equal(read_data(g).X, d.X)
    h = tmp_path / "h.csv"
    h.write_text("rain,sprinkler,grass\n0,2,1\n1,0,2\n")
    d = read_data(h)
    assert d.names == ("rain", "sprinkler", "grass") and d.m == 3 and d.X.tolist() == [[0, 2, 1], [1, 0, 2]]
    b = tmp_path / "excel.csv"  # a spreadsheet export: byte-order mark, CRLF line ends
    b.write_bytes(b"\xef\xbb\xbfrain,sprinkler,grass\r\n0,2,1\r\n1,0,2\r\n")
    e = read_data(b)
    assert e.names == d.names and e.X.tolist() == d.X.tolist()


@pytest.mark.parametrize("text, fragment", [
    ("0,1\n1,0,1\n", "line 2: 3 values, expected 2"),
    ("0,1\n1,x\n", "line 2, column 2: 'x' is not an integer"),
    ("0,1\n1,-1\n", "line 2, column 2: value -1 is negative"),
    ("0,1\n\n1,99\n", "line 3, column 2: value 99 exceeds"),
    ("", "no samples"),
    ("a,b\n", "no samples after the header"),
    ("a,a\n0,1\n", "column name 'a' appears twice"),
    ("0,1.5\n", "column 2: '1.5' is not an integer"),
])
def test_loader_errors_name_file_line_and_column(tmp_path, text, fragment):
    one_line_error(DataFormatError, read_data, tmp_path / "bad.csv", str(tmp_path / "bad.csv"), fragment, text=text)


def test_loader_missing_file_and_bad_gzip(tmp_path):
    with pytest.raises(DataFormatError, match="no such file"):
        read_data(tmp_path / "nope.data")
    g = tmp_path / "x.data.gz"
    g.write_bytes(b"\x1f\x8bnot really gzip")
    with pytest.raises(DataFormatError, match="gzip"):
        read_data(g)


def test_declared_alphabet_too_small():
    with pytest.raises(DataFormatError, match="outside the alphabet 0..1"):
        parse_data("0,2\n", source="s", m=2)


def test_synthetic_source_is_reproducible():
    a = synthetic_split(8, 100, 50, 20, seed=4)
    b = synthetic_split(8, 100, 50, 20, seed=4)
    assert np.array_equal(a[0].X, b[0].X) and np.array_equal(a[3].edges, b[3].edges)
    assert a[0].X.shape == (100, 8) and a[1].X.shape == (20, 8) and a[2].X.shape == (50, 8)
    assert len(a[3].edges) == 7


# ----------------------------------------------------------------------------- real data (slices)

def test_chow_liu_reference_on_nltcs(data_dir):
    d = data_dir / "density"
    tr, te = read_data(d / "nltcs.ts.data.gz"), read_data(d / "nltcs.test.data.gz")
    assert tr.X.shape == (16181, 16)
    assert abs(ChowLiu().fit(tr.X).score(te.X) - (-6.759)) < 0.02  # README reference


def test_ofde_counts_on_a_slice_of_kdd(data_dir):
    tr = read_data(data_dir / "density" / "kdd.test.data.gz").head(300)
    o = OFDE(tr.n_vars, seed=0)
    o.learn_many(tr.X)
    assert np.array_equal(o.counts_.pair, PairCounts.from_data(tr.X).pair)
    assert len(o.current_forest()) == 63 and np.isfinite(o.score(tr.X[:50]))


# ----------------------------------------------------------------------------- run protocol

def test_run_ofde_metrics_and_curves():
    cfg = OfdeConfig(n_vars=6, n_train=300, n_test=100, n_valid=100, eval_points=10, seed=1)
    res = run(cfg)
    m = res.metrics
    for key in ("final_test_loglik", "per_round_ms_median", "curve", "chowliu_test_loglik", "clt_test_loglik",
                "shd_to_chowliu", "edges", "mixture_size"):
        assert key in m
    assert m["rounds"] == 300 and m["curve"][-1][0] == 300 and m["curve"][-1][1] == m["final_test_loglik"]
    assert res.curves["test_loglik"] == m["curve"]
    assert len(res.curves["round_ms"]) == len(m["curve"])
    assert OfdeConfig.from_json(cfg.to_json()) == cfg
    assert run(cfg).metrics["final_test_loglik"] == m["final_test_loglik"]  # seeded


def test_run_chowliu_and_errors():
    res = run(ChowLiuConfig(n_vars=6, n_train=500, n_test=100, threshold=True))
    assert res.metrics["epsilon"] in (0.25, 0.5, 0.75) and res.metrics["threshold"] is True
    with pytest.raises(InvalidParameterError, match="validation"):
        run(ChowLiuConfig(n_vars=6, n_valid=0, threshold=True))
    with pytest.raises(InvalidParameterError, match="test file"):
        run(ChowLiuConfig(train="x.data"))
    with pytest.raises(InvalidParameterError, match="OfdeConfig or ChowLiuConfig"):
        run(object())


def test_run_is_cancellable():
    def cancel(fraction, message):
        if fraction > 0.3:
            raise RunCancelled("stop")
    with pytest.raises(RunCancelled):
        run(OfdeConfig(n_vars=5, n_train=400, n_test=50), cancel)


def test_mismatched_columns(tmp_path):
    a, b = tmp_path / "a.data", tmp_path / "b.data"
    a.write_text("0,1,1\n1,0,1\n")
    b.write_text("0,1\n")
    with pytest.raises(DataFormatError, match="2 columns, but the training file"):
        run(ChowLiuConfig(train=str(a), test=str(b)))


def test_one_and_two_variables(tmp_path):
    one, two = tmp_path / "one.data", tmp_path / "two.data"
    one.write_text("0\n1\n1\n")
    two.write_text("0,0\n1,1\n1,1\n0,1\n")
    for cfg in (ChowLiuConfig(train=str(one), test=str(one)), OfdeConfig(train=str(one), test=str(one))):
        with pytest.raises(DataFormatError, match=r"one.data: 1 column; .*need at least 2 columns"):
            run(cfg)
    assert run(ChowLiuConfig(train=str(two), test=str(two))).metrics["edges"] == [[0, 1]]
    m = run(OfdeConfig(train=str(two), test=str(two))).metrics
    assert m["rounds"] == 4 and m["edges"] == [[0, 1]] and m["final_test_loglik"] == m["curve"][-1][1]


# ----------------------------------------------------------------------------- CLI

def _cli(*args):
    return engine_cli(*args, cwd=ROOT)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("forests")
    tr, va, te, _ = synthetic_split(7, 400, 200, 200, seed=2)
    out = {}
    for name, ds in (("train", tr), ("valid", va), ("test", te)):
        p = d / f"{name}.data"
        np.savetxt(p, ds.X, fmt="%d", delimiter=",")
        out[name] = str(p)
    return out


def test_cli_chowliu_json(files):
    r = _cli("chowliu", "--train", files["train"], "--test", files["test"], "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert len(m["edges"]) == 6 and math.isfinite(m["test_loglik"])
    r = _cli("chowliu", "--train", files["train"], "--test", files["test"], "--valid", files["valid"],
             "--threshold", "--json")
    assert json.loads(r.stdout)["epsilon"] in (0.25, 0.5, 0.75)


def test_cli_ofde_json(files):
    r = _cli("ofde", "--train", files["train"], "--test", files["test"], "--model", "forests",
             "--mixture-size", "2", "--rounds", "250", "--seed", "3", "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert m["rounds"] == 250 and m["mixture_size"] == 2 and m["model"] == "forests"
    assert m["curve"][-1][0] == 250 and m["per_round_ms_median"] > 0
    assert m["final_test_loglik"] == m["curve"][-1][1] and math.isfinite(m["final_test_loglik"])


def test_cli_errors_are_one_line(files, tmp_path):
    bad = tmp_path / "bad.data"
    bad.write_text("0,1\n0,7,1\n")
    r = _cli("chowliu", "--train", str(bad), "--test", files["test"])
    assert r.returncode == 2 and r.stderr.startswith("error:") and r.stderr.count("\n") == 1
    assert "line 2" in r.stderr
    r = _cli("ofde", "--train", files["train"], "--test", files["test"], "--mixture-size", "-1")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "mixture_size = -1: expected an integer >= 0" in r.stderr
