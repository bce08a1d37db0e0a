"""Run commands: ``run CONFIG.json`` (one run or a sweep) and ``runs list|show|export|delete|resume``.

The run history is the SQLite database at ``$TREE_WORKBENCH_DB`` (or ``--db``), by default
``runs.sqlite`` in the user's data directory.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from engine.cli import jobs, print_json

__all__ = ["register"]


def register(sub) -> None:
    p = sub.add_parser("run", help="run a config (or a sweep) and record it in the run history",
                       description="Run CONFIG.json through its algorithm family and record it. Progress "
                       "goes to stderr; the result to stdout. A config with a \"sweep\" key runs the grid.")
    p.add_argument("config", help="JSON config file, e.g. {\"algorithm\": \"hedge\", \"seed\": 0, ...}")
    _sweep_args(p)
    p.add_argument("--label", default="", help="a label kept with the run")
    p.set_defaults(handler=_run)

    p = sub.add_parser("runs", help="the run history: list, show, export, delete")
    rs = p.add_subparsers(dest="runs_command", metavar="ACTION", parser_class=type(p))
    rs.required = True

    q = rs.add_parser("list", help="list runs, newest first")
    q.add_argument("--algorithm", action="append", help="only this algorithm (repeatable)")
    q.add_argument("--status", action="append",
                   choices=("running", "finished", "failed", "cancelled", "interrupted"))
    q.add_argument("--since", help="started on or after this date (ISO 8601, UTC)")
    q.add_argument("--until", help="started before this date (ISO 8601, UTC)")
    q.add_argument("--search", help="text in the label, config or error")
    q.add_argument("--sweep", help="only the runs of this sweep id")
    q.add_argument("--limit", type=int, default=50)
    q.add_argument("--json", action="store_true", help="one JSON object {\"runs\": [...]}")
    _db_arg(q)
    q.set_defaults(handler=_list)

    q = rs.add_parser("show", help="one run: config, status, metrics")
    q.add_argument("id", type=int)
    q.add_argument("--json", action="store_true", help="the whole record (with curves and artefacts)")
    _db_arg(q)
    q.set_defaults(handler=_show)

    q = rs.add_parser("export", help="write runs as JSON or CSV (to stdout or a file)")
    q.add_argument("id", type=int, nargs="+")
    q.add_argument("--format", choices=("json", "csv"), default=None,
                   help="default: the output file's extension, else json")
    q.add_argument("-o", "--output", default=None, help="file to write (default: stdout)")
    _db_arg(q)
    q.set_defaults(handler=_export)

    q = rs.add_parser("resume", help="run the points of a sweep that did not finish",
                      description="Run again, each under its own record, the points of SWEEP_ID that did not "
                      "finish: not run because the sweep stopped (its dask scheduler went away, the process was "
                      "killed), failed or cancelled. The finished points are kept as they are.")
    q.add_argument("sweep", metavar="SWEEP_ID", help="the sweep id, e.g. sw-1a2b3c4d5e")
    _sweep_args(q)
    q.set_defaults(handler=_resume)

    q = rs.add_parser("delete", help="delete runs from the history")
    q.add_argument("id", type=int, nargs="+")
    _db_arg(q)
    q.set_defaults(handler=_delete)


def _sweep_args(p) -> None:
    """The options of a command that runs sweep points: parallelism, backend, output, history."""
    p.add_argument("--json", action="store_true", help="print the run record (or sweep) as one JSON object")
    p.add_argument("--jobs", type=jobs, default=None, help="parallel runs of a sweep (default and 0: one per core)")
    p.add_argument("--backend", choices=("loky", "threading", "dask"), default="loky",
                   help="how a sweep's points run: loky (processes), threading, or dask (a dask.distributed cluster)")
    p.add_argument("--scheduler", default=None, help="dask scheduler address, e.g. tcp://host:8786")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    _db_arg(p)


def _db_arg(p) -> None:
    p.add_argument("--db", default=None, help="run history file or postgresql:// URL (default: $TREE_WORKBENCH_DB_URL, $TREE_WORKBENCH_DB or the user data dir)")


def _store(args):
    from engine.runs.store import RunStore

    return RunStore(args.db)


class _StderrProgress:
    """Progress lines on stderr: rewritten in place on a terminal, one line a second otherwise."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.start = time.monotonic()
        self.last = -1.0
        self.shown = None

    def __call__(self, fraction: float, message: str) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if fraction < 1 and now - self.last < (0.1 if self.tty else 1.0):
            return
        if not self.tty and fraction < 1 and (fraction, message) == self.shown and now - self.last < 10:
            return  # a log file gets a line when something moved, or every 10 s while waiting
        self.last, self.shown = now, (fraction, message)
        el = now - self.start
        eta = f", {el * (1 - fraction) / fraction:.0f} s left" if 0.02 < fraction < 1 else ""
        line = f"[{fraction * 100:5.1f}%] {message}{eta}"
        if self.tty:
            sys.stderr.write("\r\x1b[K" + line + ("\n" if fraction >= 1 else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def done(self) -> None:
        if self.tty and not self.quiet:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _run(args) -> int:
    from engine.runs.execute import execute, execute_sweep
    from engine.runs.registry import load_spec

    spec = load_spec(args.config)
    progress = _StderrProgress(args.quiet)
    store = _store(args)
    try:
        if "sweep" in spec:
            recs = execute_sweep(spec, progress, store, n_jobs=args.jobs, backend=args.backend,
                                 scheduler=args.scheduler, label=args.label)
            progress.done()
            return _sweep_out(args, recs, store)
        try:
            rec = execute(spec, progress, store, label=args.label)
        except Exception as exc:
            progress.done()
            rid = getattr(exc, "run_id", None)
            if rid is not None and exc.args:  # one error line: the run's id goes on it
                exc.args = (f"{exc.args[0]} (run {rid} recorded as failed in {store.path})", *exc.args[1:])
            raise
        progress.done()
        if args.json:
            print_json(rec.to_dict())
        else:
            _print_record(rec)
            print(f"recorded as run {rec.id} in {store.path}")
        return 0
    finally:
        store.close()


def _sweep_out(args, recs, store) -> int:
    """Print a sweep's records (a table, or one JSON object); 0 when every point finished, else 1."""
    if args.json:
        print_json({"sweep": recs[0].sweep, "runs": [r.to_dict(artefacts=False) for r in recs]})
    else:
        _table(recs)
        print(f"sweep {recs[0].sweep}: {len(recs)} runs in {store.path}")
    return 0 if all(r.status == "finished" for r in recs) else 1


def _resume(args) -> int:
    from engine.runs.execute import resume_sweep

    progress = _StderrProgress(args.quiet)
    with _store(args) as store:
        recs = resume_sweep(args.sweep, progress, store, n_jobs=args.jobs, backend=args.backend,
                            scheduler=args.scheduler)
        progress.done()
        return _sweep_out(args, recs, store)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _table(recs) -> None:
    rows = [("id", "algorithm", "status", "started (UTC)", "seconds", "seed", "label", "metrics / error")]
    for r in recs:
        if r.status == "finished":
            what = ", ".join(f"{k}={_fmt(v)}" for k, v in r.metrics.items()
                             if isinstance(v, (int, float)) and not isinstance(v, bool))
        else:
            what = r.error or (f"{(r.progress or 0) * 100:.0f}% {r.message or ''}" if r.status == "running" else "")
        rows.append((str(r.id), r.algorithm, r.status, (r.started_iso or "").replace("T", " ").rstrip("Z"),
                     "" if r.seconds is None else f"{r.seconds:.2f}", "" if r.seed is None else str(r.seed),
                     r.label[:30], what[:70]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())


def _print_record(r) -> None:
    print(f"run {r.id}: {r.algorithm}, {r.status}" + (f" ({r.label})" if r.label else ""))
    print(f"  started {r.started_iso}" + (f", ended {r.ended_iso}" if r.ended else "")
          + (f", {r.seconds:.3f} s" if r.seconds is not None else ""))
    print(f"  code {r.code_version}, seed {r.seed}" + (f", sweep {r.sweep}" if r.sweep else ""))
    if r.status == "running" and r.progress is not None:
        print(f"  progress {r.progress * 100:.0f}%: {r.message or ''}")
    if r.error:
        print(f"  error: {r.error}")
    print("  config: " + json.dumps(r.config, sort_keys=True))
    if r.metrics:
        print("  metrics:")
        w = max(len(k) for k in r.metrics)
        for k, v in r.metrics.items():
            print(f"    {k:>{w}}: {_fmt(v)}")
    if r.curves:
        print("  curves: " + ", ".join(f"{k} ({len(v)} points)" for k, v in r.curves.items()))


def _list(args) -> int:
    with _store(args) as store:
        recs = store.list(algorithm=args.algorithm, status=args.status, since=args.since, until=args.until,
                          text=args.search, sweep=args.sweep, limit=args.limit)
    if args.json:
        print_json({"runs": [r.to_dict(curves=False, artefacts=False) for r in recs]})
    elif recs:
        _table(recs)
    else:
        print("no runs", file=sys.stderr)
    return 0


def _show(args) -> int:
    with _store(args) as store:
        rec = store.get(args.id)
    if args.json:
        print_json(rec.to_dict())
    else:
        _print_record(rec)
    return 0


def _export(args) -> int:
    fmt = args.format
    if fmt is None:
        ext = Path(args.output).suffix.lower().lstrip(".") if args.output else ""
        fmt = ext if ext in ("json", "csv") else "json"
    with _store(args) as store:
        recs = [store.get(i) for i in args.id]
    from engine.runs.export import export_runs

    text = export_runs(recs, fmt)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _delete(args) -> int:
    with _store(args) as store:
        for i in args.id:
            store.get(i, results=False)  # all exist before any is deleted
        for i in args.id:
            store.delete(i)
    print(f"deleted {len(args.id)} run{'s' if len(args.id) != 1 else ''}", file=sys.stderr)
    return 0
