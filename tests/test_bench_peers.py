"""benchmarks/bench_peers.py: its JSON, its agreement with the peers, and its caps.

The benchmark runs in a subprocess at n = 100 (as a user runs it); nothing here is timed. A peer
that is not installed must give rows saying so, never a failure: pgmpy is in the test extra,
pyAgrum need not be.
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench_peers

ROOT = Path(__file__).resolve().parent.parent
KEYS = {"n", "shape", "k", "library", "task", "seconds", "peak_mb", "max_marginal_diff", "loglik_diff", "status"}
PEERS = [lib for lib in bench_peers.LIBRARIES if lib != bench_peers.OURS]
#: the peers compute in doubles as we do: every marginal within 1e-12, log P(e) within 1e-9
MARGINAL_TOL, LOGLIK_TOL = 1e-12, 1e-9


def _installed(lib: str) -> bool:
    return importlib.util.find_spec(bench_peers._MODULE[lib]) is not None


def _bench(*args: str, shapes: str = "random", timeout: float = 600) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache")))
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_peers", "--json", "--max-n", "100",
                           "--shapes", shapes, "--k", "2", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _rows(result, library, shape="random"):
    return {r["task"]: r for r in result["rows"] if r["library"] == library and r["shape"] == shape}


@pytest.mark.slow   # over ten seconds here: pgmpy's import alone is 5 s of CPU, in four processes
def test_json_shape_and_every_installed_peer_agrees_with_us():
    # a path's two leaves are its ends, the root among them: the online stream changes the
    # evidence at the root, whose prior must stay in log P(e)
    result = _bench("--ops", "10", "--peer-op-seconds", "1", shapes="random,path")
    m = result["machine"]
    assert {"cpu", "cores", "memory_gb", "python", "versions", "load_before", "load_after", "date"} <= set(m)
    assert m["load_after"] is not None and set(bench_peers.LIBRARIES) <= set(m["versions"])
    for row in result["rows"]:
        assert KEYS <= set(row), row
        assert row["k"] == 2 and row["n"] == 100
    for shape, lib in ((s, lib) for s in ("random", "path") for lib in bench_peers.LIBRARIES):
        rows = _rows(result, lib, shape)
        assert set(rows) == set(bench_peers.TASKS), (shape, lib)
        for task, row in rows.items():
            if lib == bench_peers.OURS:
                assert row["status"] == "ok" and row["seconds"] > 0 and row["peak_mb"] > 0
                continue
            if not _installed(lib):
                assert row["status"] == "not installed"
                continue
            assert row["status"] == "ok", row
            assert row["max_marginal_diff"] <= MARGINAL_TOL, (shape, lib, task, row["max_marginal_diff"])
            assert row["loglik_diff"] <= LOGLIK_TOL, (shape, lib, task, row["loglik_diff"])


@pytest.mark.parametrize("cap, status", [(("--timeout", "0.05"), "timeout"), (("--mem-mb", "64"), "memory")])
def test_a_tiny_cap_is_a_status_not_a_crash(cap, status):
    # pyAgrum starts quickly where it is installed; pgmpy's import would only be stopped sooner
    result = _bench("--libraries", "workbench,pyAgrum", *cap, timeout=120)
    assert {r["library"] for r in result["rows"]} == {"workbench", "pyAgrum"}
    for row in result["rows"]:
        if row["library"] == "pyAgrum" and not _installed("pyAgrum"):
            assert row["status"] == "not installed"
        else:
            assert row["status"] == status, row
            assert row["seconds"] is None and row["max_marginal_diff"] is None


def test_peers_not_installed_are_rows_saying_so(monkeypatch):
    monkeypatch.setattr(bench_peers, "_installed", lambda lib: lib == bench_peers.OURS)
    args = bench_peers.parse_args(["--sizes", "100,1000", "--shapes", "path", "--k", "2,4",
                                   "--libraries", ",".join(PEERS)])
    rows = bench_peers.run_benchmark(args)["rows"]
    assert len(rows) == len(PEERS) * 2 * 2 * len(bench_peers.TASKS)
    assert {r["status"] for r in rows} == {"not installed"}


def test_figure_is_written_from_the_ok_rows(tmp_path):
    def row(lib, task, n, seconds, status="ok"):
        return bench_peers._row(n, "random", 2, lib, task, seconds=seconds, status=status)

    result = {"rows": [row("workbench", "all_marginals", 100, 1e-4), row("workbench", "all_marginals", 1000, 1e-3),
                       row("pyAgrum", "all_marginals", 100, 0.02), row("pyAgrum", "all_marginals", 1000, None,
                                                                           "timeout"),
                       row("workbench", "online", 100, 3e-6), row("workbench", "online", 1000, 4e-6)]}
    svg = bench_peers.figure(result, tmp_path).read_text()
    assert svg.startswith("<svg") and "workbench, all marginals" in svg and "pyAgrum, all marginals" in svg
    assert "workbench, online answer" in svg


def test_projection_grows_at_least_linearly():
    assert bench_peers._projected([], 1000) is None
    assert bench_peers._projected([(100, 1.0, 2.0)], 1000) == pytest.approx(12.0)
    # quadratic between the last two sizes: kept quadratic
    assert bench_peers._projected([(100, 1.0, 0.0), (1000, 100.0, 0.0)], 10_000) == pytest.approx(10_000.0)
