"""Launching a run from a page: ``st.status`` with a progress bar and an ETA.

Every learning page calls :func:`launch` with a run config and its family's ``run`` function
(the protocol of ``engine.runs.protocol``); the run history (issue 9) hooks in here, so pages do
not change when runs become recorded, backgrounded and cancellable.
"""

from __future__ import annotations

import time

import streamlit as st

from engine.errors import EngineError
from engine.runs.protocol import RunCancelled, RunConfig, RunResult

__all__ = ["launch", "format_eta"]


def format_eta(seconds: float) -> str:
    if seconds < 1:
        return "under a second left"
    if seconds < 90:
        return f"about {seconds:.0f} s left"
    return f"about {seconds / 60:.0f} min left"


def launch(config: RunConfig, run_fn, *, label: str = "Running") -> RunResult | None:
    """Run ``run_fn(config, progress)`` with visible progress; ``None`` if it failed (shown)."""
    start = time.perf_counter()
    with st.status(label, expanded=True) as status:
        bar = st.progress(0.0, text="starting")

        def progress(fraction: float, message: str) -> None:
            f = min(max(float(fraction), 0.0), 1.0)
            el = time.perf_counter() - start
            eta = format_eta(el * (1 - f) / f) if f > 0.02 else "estimating time left"
            bar.progress(f, text=f"{message} · {eta}")

        try:
            result = run_fn(config, progress)
        except RunCancelled:
            status.update(label=f"{label}: cancelled", state="error")
            return None
        except EngineError as exc:
            status.update(label=f"{label}: failed", state="error")
            st.error(str(exc))
            return None
        took = time.perf_counter() - start
        bar.progress(1.0, text=f"done in {took:.1f} s")
        status.update(label=f"{label}: done in {took:.1f} s", state="complete", expanded=False)
    return result
