"""Killing a sweep's process stops its loky workers (issue 17, item 5)."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT


def _children(pid: int) -> set[int]:
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            if ppid == pid:
                out.add(int(d))
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_killing_a_sweep_stops_its_workers(tmp_path):
    cfg = {"algorithm": "hedge", "tree": {"generate": "path", "n": 30}, "trials": 3_000_000,
           "sweep": {"seed": [0, 1, 2, 3]}}
    (tmp_path / "s.json").write_text(json.dumps(cfg))
    env = dict(os.environ, TREE_WORKBENCH_DB=str(tmp_path / "runs.sqlite"), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "engine", "run", "s.json", "--jobs", "2", "--quiet"],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: set[int] = set()
        deadline = time.time() + 120
        while time.time() < deadline and len(workers) < 2:  # the loky workers (python children)
            workers = {p for p in _children(proc.pid) if "python" in open(f"/proc/{p}/cmdline").read()}
            time.sleep(0.5)
        assert workers, "the sweep started no worker processes"
        time.sleep(3)  # the points are running
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.time() + 30
        while time.time() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.5)
        left = [p for p in workers if _alive(p)]
        assert not left, f"workers {left} outlived the killed sweep"
    finally:
        if proc.poll() is None:
            proc.kill()
