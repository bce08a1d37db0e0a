"""Script runs in turn: at most :data:`SCRIPT_TURNS` script runs of a served app's sessions go on at
once, the others wait for a turn in order of asking, each at most :data:`TURN_WAIT_SECONDS`, then
run anyway (a long
run, a layout of 10^6 vertices, delays the others by that much at most). A run that waits for
something else, a learning run's progress or its cancelling, gives its turn back meanwhile
(:func:`out_of_turn`).

Why: every session's script runs in a thread of one process and one interpreter, and so does the
event loop that sends the pages and answers the health check. When 30 students follow a move, 30
runs shared the interpreter at once: each finished near the end of them all, and the loop had a
31st of the interpreter to send what they drew (the health check waited up to 1.3 s). Two at a
time, the runs finish one after another and the loop gets a third of the interpreter: in three
alternated runs of a class of 30, the slowest health answer went from 0.30-0.68 s to 0.11-0.27 s
and answer -> count from 0.94-1.24 s to 0.64-1.00 s, the follow p95 from 1.43-1.62 s to
1.41-1.95 s (docs/benchmarks.md, "Classroom speed"). Turns handed out in order matter: with a
semaphore, where a newcomer can take a freed turn, 30 students clicking on Online Marginals had a
p95 of 1.70-1.72 s against 1.32-1.34 s without turns; handed in order, 1.24-1.45 s against
1.50-1.71 s. A lone user never waits.

``workbench.serve`` installs it (:func:`scripts_in_turn`); anywhere else (AppTest, a plain
``streamlit run``) :func:`out_of_turn` does nothing.
"""

from __future__ import annotations

import threading
from collections import deque
from contextlib import contextmanager
from typing import Iterator

__all__ = ["SCRIPT_TURNS", "TURN_WAIT_SECONDS", "scripts_in_turn", "out_of_turn"]

#: Script runs that go on at once in a served app.
SCRIPT_TURNS = 2
#: The longest a run waits for a turn before it runs anyway.
TURN_WAIT_SECONDS = 2.0

_held = threading.local()   # .turn: (the line, its wait) while this thread's run holds a turn


class _Line:
    """``turns`` turns handed out in order of asking: a freed turn goes to the run that has waited
    longest, never to one that has just arrived (a semaphore lets a newcomer take it, and an
    unlucky run then waits out its whole wait)."""

    def __init__(self, turns: int):
        self._free = turns
        self._lock = threading.Lock()
        self._waiting: deque[threading.Event] = deque()

    def acquire(self, timeout: float) -> bool:
        with self._lock:
            if self._free > 0 and not self._waiting:
                self._free -= 1
                return True
            handed = threading.Event()
            self._waiting.append(handed)
        if handed.wait(timeout):
            return True
        with self._lock:
            if handed.is_set():   # handed a turn just as the wait ended
                return True
            self._waiting.remove(handed)
            return False

    def release(self) -> None:
        with self._lock:
            if self._waiting:
                self._waiting.popleft().set()
            else:
                self._free += 1


def scripts_in_turn(turns: int = SCRIPT_TURNS, wait: float = TURN_WAIT_SECONDS) -> None:
    """Make every script run of this process take a turn (once: a second call adds nothing)."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    run = ScriptRunner._run_script
    if getattr(run, "__wrapped__", None) is not None:
        return
    line = _Line(turns)

    def run_in_turn(self, rerun_data) -> None:
        _held.turn = (line, wait) if line.acquire(timeout=wait) else None
        try:
            return run(self, rerun_data)
        finally:
            held, _held.turn = getattr(_held, "turn", None), None
            if held is not None:
                held[0].release()

    run_in_turn.__wrapped__ = run
    ScriptRunner._run_script = run_in_turn


@contextmanager
def out_of_turn() -> Iterator[None]:
    """Give this run's turn to another while the block waits (on a job, on a cancel); take one
    again after it (waiting for it as a new run would)."""
    held = getattr(_held, "turn", None)
    if held is None:
        yield
        return
    line, wait = held
    _held.turn = None
    line.release()
    try:
        yield
    finally:
        _held.turn = held if line.acquire(timeout=wait) else None

