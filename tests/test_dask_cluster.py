"""Sweeps on a real dask cluster, with real faults: a ``dask scheduler`` and two ``dask worker``
processes on 127.0.0.1 (free ports), driven through ``python -m engine run --backend dask``.

A worker killed mid-sweep (SIGKILL): every point is recorded exactly once, with the results of a
local run. The scheduler killed mid-sweep: one error line, the points done stay recorded, the rest
are marked not run, and ``python -m engine runs resume SWEEP_ID`` finishes them under the same
records.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.runs.execute import execute_sweep
from engine.runs.store import RunStore
from tests import runs_family
from tests.conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.waits]

DASK = Path(sys.executable).with_name("dask")
if not DASK.exists():
    DASK = Path(shutil.which("dask") or DASK)

# slow on purpose (delay per progress report: a point takes about 1 s), so that a fault lands in
# the middle of the sweep
SLOW = {"algorithm": "treeflip", "tree": {"generate": "path", "n": 40}, "steps": 10, "delay": 0.1}


def _env(db: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), TREE_WORKBENCH_FAMILIES=runs_family.ENV,
                TREE_WORKBENCH_DB=str(db))


class Cluster:
    """A scheduler and ``workers`` single-threaded worker processes (no nanny: a killed worker stays
    dead) on 127.0.0.1, every port chosen by the system; stopped (by process id) on exit."""

    def __init__(self, tmp: Path, env: dict, workers: int = 2):
        self.tmp, self.env, self.n = tmp, env, workers
        self.scheduler: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self.address = ""

    def _start(self, *args, log: str) -> subprocess.Popen:
        return subprocess.Popen([str(DASK), *map(str, args)], env=self.env, cwd=ROOT,
                                stdout=open(self.tmp / log, "w"), stderr=subprocess.STDOUT)  # noqa: SIM115

    def __enter__(self) -> "Cluster":
        info = self.tmp / "scheduler.json"
        self.scheduler = self._start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                     "--scheduler-file", info, log="scheduler.log")
        deadline = time.time() + 90
        while not info.exists() and time.time() < deadline and self.scheduler.poll() is None:
            time.sleep(0.2)
        assert info.exists(), (self.tmp / "scheduler.log").read_text()[-2000:]
        time.sleep(0.3)  # the file is written whole, but give the writer a moment
        self.address = json.loads(info.read_text())["address"]
        for i in range(self.n):
            self.workers.append(self._start("worker", self.address, "--host", "127.0.0.1", "--nthreads", "1",
                                            "--no-nanny", "--no-dashboard", "--local-directory", self.tmp / f"w{i}",
                                            log=f"worker{i}.log"))
        from distributed import Client

        with Client(self.address, timeout="30s") as client:
            client.wait_for_workers(self.n, timeout=120)
        return self

    def __exit__(self, *exc) -> None:
        procs = [p for p in [*self.workers, self.scheduler] if p is not None]
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(10)


def _statuses(db: Path) -> list[tuple[int, str, str]]:
    """(id, status, error) of every run, read without the store (no interrupted-run marking)."""
    if not db.exists():
        return []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return con.execute("SELECT id, status, IFNULL(error, '') FROM runs ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # the table is being created
        return []
    finally:
        con.close()


def _wait_finished(db: Path, count: int, proc: subprocess.Popen, timeout: float = 180) -> int:
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        done = sum(1 for _, status, _ in _statuses(db) if status == "finished")
        if done >= count:
            return done
        time.sleep(0.2)
    raise AssertionError(f"fewer than {count} points finished; the sweep said: {proc.poll()}")


def _sweep_cli(tmp: Path, spec: dict, env: dict, *args) -> subprocess.Popen:
    (tmp / "sweep.json").write_text(json.dumps(spec))
    return subprocess.Popen([sys.executable, "-m", "engine", "run", str(tmp / "sweep.json"), "--json", "--quiet",
                             *args], cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _sweep_killing(tmp: Path, spec: dict, env: dict, cluster: Cluster, victim: subprocess.Popen, *, after: int,
                   timeout: float) -> tuple[subprocess.Popen, int, str, str]:
    """Run the sweep ``spec`` on ``cluster`` from the command line and SIGKILL ``victim`` (one of the
    cluster's processes) once ``after`` points have finished; return the sweep's process, the points
    finished then, and its stdout and stderr."""
    proc = _sweep_cli(tmp, spec, env, "--backend", "dask", "--scheduler", cluster.address)
    try:
        done_at_kill = _wait_finished(Path(env["TREE_WORKBENCH_DB"]), after, proc)
        victim.send_signal(signal.SIGKILL)
        victim.wait(30)
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc, done_at_kill, out, err


def _local(spec: dict, tmp: Path) -> dict[str, tuple]:
    """label -> (metrics, curves) of the same sweep run here, one point after another."""
    from engine.runs import registry

    registry.register_family(*runs_family.FAMILY)
    try:
        with RunStore(tmp / "local.sqlite") as store:
            fast = {k: v for k, v in spec.items() if k != "delay"}
            return {r.label: (r.metrics, r.curves) for r in execute_sweep(fast, None, store, n_jobs=1)}
    finally:
        registry.unregister_family("treeflip")


def _results(db: Path, sweep: str) -> dict[str, tuple]:
    with RunStore(db) as store:
        return {r.label: (r.metrics, r.curves) for r in store.list(sweep=sweep, results=True)}


def test_a_worker_killed_mid_sweep_loses_no_point_and_records_none_twice(tmp_path):
    db = tmp_path / "runs.sqlite"
    env = _env(db)
    spec = {**SLOW, "sweep": {"seed": list(range(8))}}
    with Cluster(tmp_path, env) as cluster:
        # the second worker is busy with a point of its own when it is killed
        proc, done_at_kill, out, err = _sweep_killing(tmp_path, spec, env, cluster, cluster.workers[1], after=1,
                                                      timeout=300)
    assert done_at_kill < 8, "the worker was killed after the sweep had ended"
    assert proc.returncode == 0, err[-2000:]
    sweep = json.loads(out)
    assert [r["status"] for r in sweep["runs"]] == ["finished"] * 8
    rows = _statuses(db)
    assert len(rows) == 8 and all(status == "finished" for _, status, _ in rows)  # 0 lost, 0 twice
    with RunStore(db) as store:
        labels = sorted(r.label for r in store.list(sweep=sweep["sweep"]))
    assert labels == sorted(f"seed={s}" for s in range(8))
    assert _results(db, sweep["sweep"]) == _local(spec, tmp_path)


def test_a_lost_scheduler_is_one_error_and_resume_finishes_the_sweep(tmp_path):
    db = tmp_path / "runs.sqlite"
    env = _env(db)
    spec = {**SLOW, "sweep": {"seed": list(range(6))}}
    with Cluster(tmp_path, env) as cluster:
        proc, _, out, err = _sweep_killing(tmp_path, spec, env, cluster, cluster.scheduler, after=2,
                                           timeout=120)
    assert proc.returncode == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: the dask scheduler tcp://127.0.0.1:"), err
    sweep = re.search(r"python -m engine runs resume (sw-[0-9a-f]+)$", err.strip()).group(1)
    rows = _statuses(db)
    finished = [i for i, status, _ in rows if status == "finished"]
    not_run = [i for i, status, error in rows if status == "interrupted" and error.startswith("not run: ")]
    assert len(rows) == 6 and len(finished) >= 2 and len(finished) + len(not_run) == 6, rows
    assert f"runs resume {sweep}" in dict((i, e) for i, _, e in rows)[not_run[0]]

    # the cluster is gone: finish the sweep here, under the same records
    r = subprocess.run([sys.executable, "-m", "engine", "runs", "resume", sweep, "--jobs", "1", "--json", "--quiet"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    resumed = json.loads(r.stdout)
    assert resumed["sweep"] == sweep and [x["status"] for x in resumed["runs"]] == ["finished"] * 6
    assert [i for i, _, _ in _statuses(db)] == [i for i, _, _ in rows]  # the same six records, no new one
    assert _results(db, sweep) == _local(spec, tmp_path)
    # nothing is left to resume
    again = subprocess.run([sys.executable, "-m", "engine", "runs", "resume", sweep, "--json", "--quiet"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and len(json.loads(again.stdout)["runs"]) == 6
