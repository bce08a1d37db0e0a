"""``reproduce PAPER``: run a paper's protocol and write the report of our numbers beside the
published ones (:mod:`engine.reproduce`)."""

from __future__ import annotations

import sys
from pathlib import Path

from engine import limits
from engine.cli import jobs, print_json

__all__ = ["register"]

_PAPERS = ("cover", "hedge", "rta", "ofde", "bhtmm")  # the order of engine.reproduce.PAPERS (--help stays instant)


def register(sub) -> None:
    p = sub.add_parser(
        "reproduce", help="run a paper's protocol and report our numbers beside the published ones",
        description="Run the protocol of a paper on the benchmark data (the data folder: $TREE_WORKBENCH_DATA or "
        "../shared/data) with today's code, and write a report -- PAPER.md, PAPER.html, PAPER.json and "
        "figures/PAPER-*.svg -- with our number beside the published one, the difference, and its spread over "
        "seeds and folds. cover: Theorem 6 of Herbster, Pasteris & Vitale (the optimal cover against brute "
        "force); hedge: their TREE-HEDGE bound; rta: Table 1 and Figure 1 of Marchand et al.; ofde: Figure 2 of "
        "Koriche and the Chow-Liu log-likelihoods; bhtmm: Tables I and III of Castellana & Bacciu. The "
        "reproduction is recorded in the run history (its points as one sweep), where the app lists it "
        "too.")
    p.add_argument("paper", choices=(*_PAPERS, "all"), metavar="PAPER", help=f"one of {', '.join(_PAPERS)}, or all")
    p.add_argument("--quick", action="store_true",
                   help="a reduced protocol (fewer seeds, folds, iterations; said in the report): every paper in minutes")
    p.add_argument("--json", action="store_true",
                   help='print one JSON object a paper, one a line: {"paper", "rows": [{"data", "metric", '
                   '"published", "ours", "spread", "difference", "note", "n"}], "settings"}; the note tells a '
                   'bound from a number to match')
    p.add_argument("--out", default="reproduce", help="folder of the reports (default: ./reproduce)")
    p.add_argument("--seeds", type=limits.flag("grid"), default=None, help="seeds of the protocols that have seeds (default: theirs)")
    p.add_argument("--jobs", type=jobs, default=1,
                   help="points run at once (default 1: one after another in this process; loky processes above; "
                   "0: one per core)")
    p.add_argument("--backend", choices=("loky", "threading", "dask"), default="loky",
                   help="how the points run: loky (processes), threading, or dask (--scheduler)")
    p.add_argument("--scheduler", default=None, help="dask scheduler address, e.g. tcp://host:8786")
    p.add_argument("--sweep", metavar="SWEEP_ID", default=None,
                   help="write the report from the points of this recorded sweep (e.g. after python -m engine runs "
                   "resume SWEEP_ID) instead of running them; give the same --quick and --seeds")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--db", default=None, help="run history file or postgresql:// URL (default: $TREE_WORKBENCH_DB_URL, $TREE_WORKBENCH_DB or the user data dir)")
    p.set_defaults(handler=_reproduce)


def _reproduce(args) -> int:
    from engine.errors import InvalidParameterError
    from engine.reproduce import PAPERS, Report, ReproduceConfig, report_from_sweep, run
    from engine.runs.execute import SweepInterrupted, execute
    from engine.runs.protocol import RunResult
    from engine.runs.store import RunStore

    from engine.cli.runs import _StderrProgress

    assert tuple(PAPERS) == _PAPERS
    names = list(PAPERS) if args.paper == "all" else [args.paper]
    if args.sweep and len(names) > 1:
        raise InvalidParameterError("--sweep names one paper's sweep: give the paper, not all")
    if args.seeds is not None and not 1 <= args.seeds <= 100:
        raise InvalidParameterError(f"--seeds must be an integer in 1..100, got {args.seeds}")
    if args.backend == "dask" and args.jobs == 1:
        args.jobs = None  # on a cluster every point may run at once
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise InvalidParameterError(f"--out {out}: is a file, not a folder")
    written = []
    with RunStore(args.db) as store:
        for name in names:
            cfg = ReproduceConfig(paper=name, quick=args.quick, seeds=args.seeds or 0)
            progress = _StderrProgress(args.quiet)
            if args.sweep:
                report = report_from_sweep(name, args.sweep, store, quick=args.quick, seeds=args.seeds)

                def run_fn(c, p, report=report):
                    return RunResult({"paper": name, "quick": args.quick, "rows": report.json_line()["rows"]},
                                     {}, {"report": report.to_dict()})
            else:
                def run_fn(c, p):
                    return run(c, p, store=store, backend=args.backend, n_jobs=args.jobs, scheduler=args.scheduler)
            try:
                rec = execute(cfg, progress, store, run_fn=run_fn, label=f"reproduce {name}"
                              + (" --quick" if args.quick else ""))
            except SweepInterrupted as exc:
                progress.done()
                exc.args = (f"{exc.args[0]}, then write the report with python -m engine reproduce {name}"
                            f"{' --quick' if args.quick else ''} --sweep {exc.sweep_id}",)
                raise
            progress.done()
            report = Report.from_dict(rec.artefacts["report"])
            paths = report.write(out)
            written.append((name, paths["md"], report, rec.id))
            if args.json:
                print_json(report.json_line())
                sys.stdout.flush()
            else:
                _print(report, paths["md"], rec.id, store.path)
    index = _index(out)
    if not args.json and len(written) > 1:
        print(f"index of the reports: {index}")
    return 0


def _print(report, md: Path, run_id: int, db: Path) -> None:
    print(f'{report.paper}: "{report.title}" ({report.authors})' + (" -- quick protocol" if report.settings.get("quick")
                                                                    else ""))
    rows = [("data", "metric", "published", "ours", "spread", "difference")]
    rows += [tuple(c[:6]) for c in (r.cells() for r in report.rows)]
    widths = [min(max(len(r[i]) for r in rows), 48) for i in range(6)]
    for r in rows:
        print("  " + "  ".join(c[:w].ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    if report.missing:
        print(f"  not in the data folder: {', '.join(m.name for m in report.missing)} (where to get them: see the report)")
    print(f"  report: {md} (recorded as run {run_id} in {db})\n")


def _index(out: Path) -> Path:
    """``out/README.md``: one line a report found in ``out`` (``PAPER.json``), in the order of the papers."""
    import json

    from engine.reproduce import PAPERS, Report

    found = []
    for name in PAPERS:
        try:
            found.append(Report.from_dict(json.loads((out / f"{name}.json").read_text(encoding="utf-8"))))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    lines = ["# Reproduction reports", "", "Written by `python -m engine reproduce PAPER --out "
             f"{out.as_posix()}`; each report says how it was made.", "",
             "| paper | result | protocol | made | compared with a published number | report |",
             "|---|---|---|---|---:|---|"]
    for r in found:
        compared = sum(1 for row in r.rows if row.difference is not None)
        lines.append(f'| "{r.title}" ({r.authors.split(";")[0]}) | {r.authors.split("; ")[-1]} | '
                     f"{'quick' if r.settings.get('quick') else 'full'} | {r.settings.get('created', '')} | "
                     f"{compared} of {len(r.rows)} rows | [{r.paper}.md]({r.paper}.md) ([HTML]({r.paper}.html)) |")
    more = sorted(d.name for d in out.iterdir() if d.is_dir() and (d / "README.md").is_file())
    if more:
        lines += ["", "More reports: " + ", ".join(f"[{d}/]({d}/README.md)" for d in more) + "."]
    path = out / "README.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
