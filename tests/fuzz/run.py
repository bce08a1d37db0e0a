"""The fuzz corpus through the command line, with a summary table: ``python -m tests.fuzz.run``.

Options: ``--quick`` (the CI subset), ``--jobs N`` (children at once, default 2), ``--only CMD``
(repeatable), ``--show N`` (list up to N failing cases with their stderr), ``--markdown``.
Exit status 1 when any case is a traceback, a hang, a blowup or a silent wrong success.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tests.fuzz.corpus import COMMANDS, corpus, quick
from tests.fuzz.runner import BAD, MEMORY_LIMIT, TIME_LIMIT, WALL_LIMIT, run_cases

COLUMNS = ("inputs", "ok", "error", "traceback", "hang", "blowup", "wrong")


def warm_up() -> None:
    """Compile the kernels once in the parent, so that every forked child starts warm."""
    import contextlib
    import io

    from engine.cli import main

    d = Path(tempfile.mkdtemp(prefix="fuzz-warm-"))
    try:
        (d / "t.csv").write_text("a,b\nb,c\nc,d\n")
        old = os.getcwd()
        os.chdir(d)
        os.environ["TREE_WORKBENCH_DB"] = str(d / "runs.sqlite")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for argv in (["cover", "t.csv"], ["marginals", "t.csv"], ["hedge", "--tree", "path:5", "--trials", "20"]):
                try:
                    main(argv)
                except BaseException:  # noqa: BLE001 - warming only
                    pass
        os.chdir(old)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _rss_mb() -> float:
    try:
        with open("/proc/self/status") as fh:
            return next(int(ln.split()[1]) for ln in fh if ln.startswith("VmRSS:")) / 1024
    except (OSError, StopIteration):
        return float("nan")


def table(outcomes, markdown: bool = False) -> str:
    counts = collections.OrderedDict((c, collections.Counter()) for c in COMMANDS)
    peak = collections.defaultdict(float)
    slow = collections.defaultdict(float)
    for o in outcomes:
        c = counts.setdefault(o.case.command, collections.Counter())
        c["inputs"] += 1
        c[o.kind] += 1
        peak[o.case.command] = max(peak[o.case.command], o.peak_mb)
        slow[o.case.command] = max(slow[o.case.command], o.cpu)
    total = collections.Counter()
    rows = []
    for cmd, c in counts.items():
        if not c["inputs"]:
            continue
        total.update(c)
        rows.append([cmd] + [str(c[k]) for k in COLUMNS] + [f"{slow[cmd]:.1f}", f"{peak[cmd]:.0f}"])
    rows.append(["total"] + [str(total[k]) for k in COLUMNS] + [f"{max(slow.values(), default=0):.1f}",
                                                                  f"{max(peak.values(), default=0):.0f}"])
    head = ["command", *COLUMNS, "max CPU s", "peak MB"]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    fmt = lambda r: "  ".join(x.rjust(w) if i else x.ljust(w) for i, (x, w) in enumerate(zip(r, widths)))  # noqa: E731
    return "\n".join([fmt(head), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the CI subset")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", choices=COMMANDS)
    ap.add_argument("--show", type=int, default=20, help="failing cases to list (default 20)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args(argv)
    cases = quick() if args.quick else corpus()
    if args.only:
        cases = [c for c in cases if c.command in args.only]
    print(f"{len(cases)} inputs; limits {TIME_LIMIT:.0f} s of CPU ({WALL_LIMIT:.0f} s wall) and "
          f"{MEMORY_LIMIT >> 20} MB each; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    warm_up()
    print(f"runner's own resident memory, shared by every forked child: {_rss_mb():.0f} MB (the peak column "
          "includes it)", flush=True)
    t0 = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="fuzz-"))

    def progress(done, total, outcome):
        if sys.stderr.isatty() or done % 50 == 0 or done == total:
            print(f"\r{done}/{total}", end="" if sys.stderr.isatty() else "\n", file=sys.stderr, flush=True)

    try:
        outcomes = run_cases(cases, root, jobs=args.jobs, progress=progress)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(file=sys.stderr)
    print(table(outcomes, args.markdown))
    print(f"{time.monotonic() - t0:.0f} s wall; load average after "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    bad = [o for o in outcomes if o.kind in BAD]
    for o in bad[: args.show]:
        print(f"\n[{o.kind}] {o.case.command} / {o.case.name}: {' '.join(map(str, o.case.argv))[:120]}\n    "
              f"{o.detail[:400]}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
