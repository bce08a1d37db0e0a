"""How long reproducing the papers takes: ``python -m engine reproduce`` end to end, as a user runs it.

    python -m benchmarks.bench_reproduce                   # all papers, quick protocol (goal: <= 5 min)
    python -m benchmarks.bench_reproduce --full rta        # RTA's Table 1, full protocol (goal: <= 10 min)
    python -m benchmarks.bench_reproduce --out docs/reproduce   # keep the reports

Each command runs in its own process (a fresh interpreter; the numba cache as it is), with a
temporary run history; the table gives its wall and CPU seconds, its peak memory, the load average
before and after, and how many rows of the reports were compared with a published number. Prints a
table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.timing import load_average

ROOT = Path(__file__).resolve().parent.parent


def run(args: list[str], out: Path, db: Path) -> tuple[float, float, float, list[dict]]:
    """(wall s, CPU s, peak MB, the --json lines) of one ``reproduce`` process."""
    cmd = [sys.executable, "-m", "engine", "reproduce", *args, "--json", "--quiet", "--out", str(out), "--db", str(db)]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as stdout:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=stdout)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        stdout.seek(0)
        lines = [json.loads(x) for x in stdout.read().decode().splitlines() if x.strip()]
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(cmd)} failed with status {os.waitstatus_to_exitcode(status)}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, lines


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", nargs="*", default=None, metavar="PAPER",
                    help="run these papers' full protocols instead of every paper's quick one")
    ap.add_argument("--out", default=None, help="keep the reports in this folder (default: a temporary one)")
    args = ap.parse_args(argv)
    runs = [[p] for p in args.full] if args.full else [["all", "--quick"]]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print("| command | wall s | CPU s | peak MB | load before | load after | rows compared |")
    print("|---|---:|---:|---:|---|---|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out) if args.out else Path(tmp) / "reports"
        for a in runs:
            before = load_average()
            wall, cpu, mb, lines = run(a, out, Path(tmp) / "runs.sqlite")
            compared = sum(1 for line in lines for r in line["rows"] if r["difference"] is not None)
            total = sum(len(line["rows"]) for line in lines)
            print(f"| `reproduce {' '.join(a)}` | {wall:.0f} | {cpu:.0f} | {mb:.0f} | {before} | {load_average()} | "
                  f"{compared} of {total} |", flush=True)


if __name__ == "__main__":
    main()
