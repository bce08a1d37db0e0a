"""The inputs of an outside probe that took minutes or gigabytes, each timed in its own process.

    python -m benchmarks.bench_hostile [--timeout 120] [--memory-gb 8] [--only 5] [--no-cold]

Each input of :func:`tests.fuzz.corpus.probe_cases` runs as a user runs it (``python -m engine ...``
in a fresh process, with the warm kernel cache ``NUMBA_CACHE_DIR``), bounded by ``--timeout``
seconds of wall time and an address-space limit of ``--memory-gb``, so that an input that still
blows up does not exhaust a shared machine. Item 9 runs ``replay`` of the lecture scenario with an
empty kernel cache (the first call on a fresh clone): its "first line" column is when stderr first
said something. The table gives the wall and CPU seconds, the peak resident memory of the
process (``wait4``), the exit status and the first line of stderr, with the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.timing import load_average

ROOT = Path(__file__).resolve().parent.parent


def measure(argv, cwd, *, env=None, timeout=120.0, memory_gb=8.0) -> dict:
    """Wall and CPU seconds, peak RSS (MB), exit status, the first stderr line and when it came."""
    limit = int(memory_gb * 2**30)

    def cap():  # in the child: an allocation past the limit fails instead of swapping
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "engine", *argv], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, preexec_fn=cap)
    lines, first_at = [], []

    def drain():
        for raw in proc.stderr:
            if not first_at:
                first_at.append(time.perf_counter() - t0)
            lines.append(raw.decode("utf-8", "replace").rstrip("\n"))

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    killed = False
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - t0 > timeout:
            proc.kill()
            killed = True
            _, status, ru = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    reader.join(5)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "peak_mb": ru.ru_maxrss / 1024,
            "status": "killed (timeout)" if killed else str(proc.returncode), "lines": lines,
            "first_at": first_at[0] if first_at else None}


def _row(label, r) -> str:
    first = (r["lines"][0] if r["lines"] else "").replace("|", "\\|")
    first = first if len(first) <= 110 else first[:109] + "…"
    when = f"{r['first_at']:.1f}" if r["first_at"] is not None else "-"
    return (f"| {label} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['peak_mb']:.0f} | {r['status']} | "
            f"{len(r['lines'])} | {when} | {first} |")


def main(argv=None) -> None:
    from tests.fuzz.corpus import probe_cases
    from tests.fuzz.runner import _prepare

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120.0, help="wall seconds per input (default 120)")
    ap.add_argument("--memory-gb", type=float, default=8.0, help="address-space limit per input (default 8)")
    ap.add_argument("--only", action="append", help="items to run (1..9), repeatable")
    ap.add_argument("--no-cold", action="store_true", help="leave out item 9 (it compiles the kernels: minutes)")
    args = ap.parse_args(argv)
    env = dict(os.environ)
    env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    print(f"load average {load_average()} (1 / 5 / 15 min), {os.cpu_count()} processors; "
          f"each input: at most {args.timeout:.0f} s and {args.memory_gb:g} GB of address space")
    print("| input | wall s | CPU s | peak MB | exit | stderr lines | first line at s | first line |")
    print("|---|---:|---:|---:|---|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        for i, case in enumerate(probe_cases()):
            item = case.name.split(":")[0].split()[-1]
            if args.only and item not in args.only:
                continue
            folder = Path(tmp) / f"{i:02d}"
            _prepare(case, folder)
            r = measure(case.argv, folder, env={**env, "TREE_WORKBENCH_DB": str(folder / "runs.sqlite")},
                        timeout=args.timeout, memory_gb=args.memory_gb)
            print(_row(case.name, r), flush=True)
            shutil.rmtree(folder, ignore_errors=True)
        if not args.no_cold and (not args.only or "9" in args.only):
            cold = Path(tmp) / "empty-cache"
            cold.mkdir()
            scenario = ROOT / "sample_scenarios" / "lecture_evidence.json"
            r = measure(["replay", str(scenario)], tmp, env={**env, "NUMBA_CACHE_DIR": str(cold)},
                        timeout=max(args.timeout, 900.0), memory_gb=args.memory_gb)
            print(_row("probe 9: first replay on a fresh clone (empty kernel cache)", r), flush=True)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
