"""Start the Workbench for a class: warm everything up first, then serve.

    python -m workbench.serve [--port 8501] [--address 127.0.0.1] [--tree FILE_OR_SPEC] [--no-warm-up]

Before the server accepts its first session (its health check answers only then), this process

1. points numba's on-disk cache at ``NUMBA_CACHE_DIR`` (default ``.numba_cache`` beside ``app.py``)
   and compiles, or loads from that cache, every kernel of the engine (:mod:`engine.warmup`);
2. renders every page once, headless (``streamlit.testing.v1.AppTest``, in this process): the heavy
   modules are imported and the caches every session shares are filled (samples, the class tree,
   its figures);
3. starts the pool of run workers (:mod:`workbench.runner`), which load the kernels from the cache;
4. freezes the objects made so far out of the garbage collector's reach (``gc.freeze``), so that a
   full collection while serving walks only what the sessions made.

Then it runs ``streamlit run app.py`` in this same process, so the compiled kernels and the warm
caches serve the first student as they serve the thirtieth. ``make run`` and the container use it.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

__all__ = ["main", "warm_up", "APP"]

APP = Path(__file__).resolve().parent.parent / "app.py"


def _say(msg: str) -> None:
    print(f"[warm-up] {msg}", flush=True)


def warm_up(*, pages: bool = True) -> dict:
    """Compile the kernels, render every page once and start the run workers; seconds per step."""
    from streamlit.logger import set_log_level

    from engine.warmup import compile_kernels, uncompiled_kernels

    set_log_level("error")   # the "no runtime" warnings of bare mode; serving sets its own level
    out = {}
    t0 = time.perf_counter()
    compile_kernels(_say)
    out["kernels_s"] = round(time.perf_counter() - t0, 2)
    left = uncompiled_kernels()
    if left:
        _say(f"kernels left to compile on first use: {', '.join(left)}")
    if pages:
        t0 = time.perf_counter()
        out["pages"] = _render_pages()
        out["pages_s"] = round(time.perf_counter() - t0, 2)
    from workbench.runner import start_pool

    t0 = time.perf_counter()
    start_pool()
    out["workers_s"] = round(time.perf_counter() - t0, 2)
    return out


def _render_pages() -> dict:
    """Every page of the navigation, once, headless (errors are reported, not raised)."""
    from streamlit.testing.v1 import AppTest

    from engine.pagespecs import PAGES
    from workbench.navigation import script

    done = {}
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.run()
    for spec in PAGES.values():
        title = spec.title
        t0 = time.perf_counter()
        try:
            at.switch_page(script(spec))
            at.run()
            done[title] = "error: " + str(at.exception[0].message)[:200] if at.exception else \
                round(time.perf_counter() - t0, 2)
        except Exception as exc:   # a page that cannot warm up still serves; say why
            done[title] = f"error: {type(exc).__name__}: {exc}"[:200]
        _say(f"page {title}: {done[title]}")
    return done


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m workbench.serve", description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8501)))
    ap.add_argument("--address", default=os.environ.get("TREE_WORKBENCH_ADDRESS", "127.0.0.1"),
                    help="interface to listen on (default 127.0.0.1: this machine only; 0.0.0.0: "
                         "every interface, for the class's laptops on a classroom network)")
    ap.add_argument("--tree", help="the class tree every new session starts from: a tree file or a "
                                   "generator spec such as '{\"generate\": \"random\", \"n\": 1000}' "
                                   "(sets TREE_WORKBENCH_TREE)")
    ap.add_argument("--no-warm-up", action="store_true", help="serve at once (first pages compile kernels)")
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not 1 <= args.port <= 65535:
        ap.error(f"--port must be 1..65535, got {args.port}")
    os.environ.setdefault("NUMBA_CACHE_DIR", str(APP.parent / ".numba_cache"))
    if args.tree:
        os.environ["TREE_WORKBENCH_TREE"] = args.tree
    if not args.no_warm_up:
        t0 = time.perf_counter()
        times = warm_up()
        _say(f"ready in {time.perf_counter() - t0:.1f} s {times}")
    # The warm-up leaves a heap of long-lived objects (numba, plotly, pandas, the shared caches):
    # Python's full collections walked all of it, 0.6-0.7 s with the interpreter held on this
    # loaded machine (every student and the health check waited). Frozen, they are never walked
    # again: a full collection while serving took 30-70 ms.
    gc.collect()
    gc.freeze()
    # Every student's script runs in a thread of this process, and the event loop that answers the
    # websockets and the health check is one more thread: hand the interpreter round every 1 ms
    # instead of 5, so that the loop waits less behind busy scripts.
    sys.setswitchinterval(0.001)
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", str(APP), "--server.port", str(args.port), "--server.address", args.address,
                "--server.headless", "true", "--browser.gatherUsageStats", "false",
                # a class server runs code that does not change: no file watching, no rerun on save
                "--server.fileWatcherType", "none", "--server.runOnSave", "false",
                # Streamlit's default runs a full garbage collection after every script run: on this
                # process's heap (numba, plotly, pandas) that was 130-150 ms of CPU per click, with
                # the interpreter held (the event loop and every other student waited), 90% of all
                # the server's work. Python's own collector still runs as usual.
                "--runner.postScriptGC", "false"]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
