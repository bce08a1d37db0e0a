"""The first minute: what ``make run`` costs on a new machine, and what a later start costs.

``python -m benchmarks.bench_start [--repo PATH] [--keep DIR] [--json]`` clones the repository
(default: this one, its committed ``HEAD``) into a fresh folder, so there is no ``.venv`` and an
empty numba cache, then measures two starts of ``make run`` on a free 127.0.0.1 port:

- ``fresh``: the clone's first ``make run`` (virtual environment, ``pip install``, the first
  pages' kernels compiled, those pages rendered, serve);
- ``second``: ``make run`` again in the same clone (everything installed and in the cache).

For each: seconds until the health check answers and until the first page (Lessons) has been
run for a client (``benchmarks.app_client.Student``, Streamlit's websocket protocol), the CPU
seconds of every process of the start (``pip`` and the compile processes included), the lines of
its log up to then, the load average before and after; and ``online_usable_s``, seconds from the
health check's first answer until Online Marginals is usable: a fresh tab's run of the page ends
without error offering its evidence button, and a click on it is answered (tried again every
second while the page says it is preparing). Then the server is left running until
Online Marginals' walks and then the run workers' learning kernels are reported compiled (fresh
start only, bounded) and stopped.
The table goes to stdout; ``--json`` prints the numbers instead. Everything is bounded in time;
nothing is left running.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.app_client import ROOT, Student, free_port, health_ms

__all__ = ["main", "measure_start"]

START_LIMIT = 900.0     # seconds a start may take before it is given up
PREPARED_LIMIT = 600.0  # seconds to wait for the run workers' "ready" line


def _session_cpu(sid: int) -> float:
    """CPU seconds of every live process of session ``sid``, with what they reaped (pip, the
    compile processes)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:   # fields after the name: state ppid pgrp session ...
            total += sum(int(x) for x in fields[11:15])   # utime stime cutime cstime
    return total / tick


def _first_page(url: str, timeout: float = 120.0) -> float:
    async def go():
        s = Student(url, timeout=timeout)
        await s.connect()
        try:
            out = await s.open("")
            if not out.ok:
                raise RuntimeError(f"the first page failed: {out.errors}")
        finally:
            s.close()

    t0 = time.perf_counter()
    asyncio.run(asyncio.wait_for(go(), timeout))
    return time.perf_counter() - t0


def _online_usable(url: str, limit: float = PREPARED_LIMIT) -> float:
    """Seconds until Online Marginals is usable for a fresh tab: its run ends without error, its
    evidence button is there and a click on it is answered (the page is opened again each second
    until then, at most ``limit`` seconds)."""
    async def attempt() -> bool:
        s = Student(url, timeout=120)
        await s.connect()
        try:
            out = await s.open("online_marginals")
            if not out.ok:
                raise RuntimeError(f"Online Marginals failed: {out.errors}")
            if "om_observe" not in s.widgets:   # still preparing
                return False
            click = await s.press("om_observe")
            if not click.ok:
                raise RuntimeError(f"Online Marginals' evidence click failed: {click.errors}")
            return True
        finally:
            s.close()

    t0 = time.perf_counter()
    while not asyncio.run(asyncio.wait_for(attempt(), 300)):
        if time.perf_counter() - t0 > limit:
            raise RuntimeError(f"Online Marginals not usable within {limit:.0f} s")
        time.sleep(1.0)
    return time.perf_counter() - t0


def measure_start(clone: Path, log_path: Path, *, wait_prepared: bool = False) -> dict:
    """One ``make run`` in ``clone``: seconds to healthy and to the first page, CPU, log lines."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "VIRTUAL_ENV", "PYTHONPATH")}
    env["TREE_WORKBENCH_DB"] = str(clone / "bench-runs.sqlite")
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(["make", "run", f"PORT={port}"], cwd=clone, env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    out: dict = {"load_before": [round(x, 2) for x in load0]}
    try:
        while health_ms(url, timeout=2) >= 2000:
            if proc.poll() is not None:
                raise RuntimeError(f"make run exited with status {proc.returncode} (log: {log_path})")
            if time.perf_counter() - t0 > START_LIMIT:
                raise RuntimeError(f"not healthy within {START_LIMIT:.0f} s (log: {log_path})")
            time.sleep(0.25)
        out["healthy_s"] = round(time.perf_counter() - t0, 1)
        out["cpu_s"] = round(_session_cpu(proc.pid), 1)
        out["first_page_s"] = round(out["healthy_s"] + _first_page(url), 1)
        out["log_lines"] = len(log_path.read_text().splitlines())
        out["online_usable_s"] = round(out["first_page_s"] - out["healthy_s"] + _online_usable(url), 1)
        out["load_after"] = [round(x, 2) for x in os.getloadavg()]
        if wait_prepared:   # Online Marginals' walks, then the run workers' learning kernels
            for key, line in (("online_ready_s", "online model ready"), ("workers_ready_s", "run workers ready")):
                while line not in log_path.read_text():
                    if time.perf_counter() - t0 > out["healthy_s"] + PREPARED_LIMIT or proc.poll() is not None:
                        break
                    time.sleep(1)
                else:
                    out[key] = round(time.perf_counter() - t0, 1)
        out["log"] = log_path.read_text()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(20)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_start", description=__doc__.split("\n")[0])
    ap.add_argument("--repo", default=str(ROOT), help="the repository to clone (default: this one)")
    ap.add_argument("--keep", help="clone into this folder and keep it (default: a temporary one, removed)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-start-"))
    clone = base / "clone"
    try:
        subprocess.run(["git", "clone", "--quiet", args.repo, str(clone)], check=True, timeout=300)
        head = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        fresh = measure_start(clone, base / "fresh.log", wait_prepared=True)
        second = measure_start(clone, base / "second.log")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    if args.json:
        print(json.dumps({"commit": head, "fresh": fresh, "second": second}, indent=1))
        return 0
    print(f"make run on a fresh clone of {head} (empty numba cache), then again; {os.cpu_count()} CPUs\n")
    print("| start | healthy | first page | Online Marginals usable after healthy | CPU (all processes) | log lines "
          "| load before → after |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, r in (("fresh clone", fresh), ("second start", second)):
        print(f"| {name} | {r['healthy_s']:.1f} s | {r['first_page_s']:.1f} s | {r['online_usable_s']:.1f} s | "
              f"{r['cpu_s']:.0f} s | {r['log_lines']} | {' '.join(map(str, r['load_before']))} → "
              f"{' '.join(map(str, r['load_after']))} |")
    if "online_ready_s" in fresh:
        print(f"\nOnline Marginals' walks ready {fresh['online_ready_s']:.0f} s after the fresh `make run`.")
    if "workers_ready_s" in fresh:
        print(f"\nRun workers' learning kernels ready {fresh['workers_ready_s']:.0f} s after the fresh `make run`.")
    print("\nThe fresh start's log, as the user sees it:\n")
    print(fresh["log"].rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
