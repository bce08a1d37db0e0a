"""Run fuzz cases through the real command line (``engine.cli.main``), one forked child per case.

The parent imports the engine and warms its compiled kernels once; each case then runs in a forked
child (cheap, and the kernels are already compiled) with its own working directory, run history,
standard streams redirected to files, a time limit and an address-space safety net. The parent
reads the exit status and the child's peak resident memory (``wait4``) and classifies the outcome:

==========  =========================================================================
ok          exit 0 and, where the case knows the answer, the right answer
error       exit 2 with exactly one line on stderr, starting ``error:``
traceback   anything else that failed: a traceback, another exit status, a stderr of
            several lines
hang        more than 30 s of CPU, or still running after 120 s of wall time (killed)
blowup      peak memory above the limit (or killed by the address-space net)
wrong       exit 0 where an error was due, or an answer the case's check rejects
==========  =========================================================================
"""

from __future__ import annotations

import os
import re
import resource
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

__all__ = ["Case", "Outcome", "run_cases", "FIFO", "BAD"]

#: a file value that makes the runner create a FIFO (named pipe) with no writer
FIFO = object()
#: outcomes that fail the suite
BAD = ("traceback", "hang", "blowup", "wrong")

_PROGRESS = re.compile(r"^\[\s*\d+\.\d%\] ")
TIME_LIMIT = 30.0                 # CPU seconds of one case (the machine is shared: wall time is noisy)
WALL_LIMIT = 120.0                # wall seconds: a case blocked without using CPU (a FIFO read) is a hang
MEMORY_LIMIT = 1 << 30            # peak RSS allowed, bytes
ADDRESS_SPACE_NET = 6 << 30       # RLIMIT_AS in the child: a runaway allocation fails instead of swapping


@dataclass
class Case:
    """One input: ``argv`` for ``python -m engine`` run in a fresh folder holding ``files``.

    expect : "error" (garbage: must be refused), "ok" (must succeed, and pass ``check``), or
        "either" (a mutant: refused in one line, or accepted with an answer ``check`` accepts).
    check : ``check(stdout, folder) -> str | None``: None when the answer is right, else why not.
    """

    command: str
    name: str
    argv: list
    files: dict = field(default_factory=dict)
    expect: str = "either"
    check: Callable | None = None


@dataclass
class Outcome:
    case: Case
    kind: str
    seconds: float
    peak_mb: float
    detail: str = ""
    cpu: float = 0.0


def _child(case: Case, folder: Path) -> None:
    """In the forked child: run the command and exit with its status (never returns)."""
    try:
        os.chdir(folder)
        os.environ["TREE_WORKBENCH_DB"] = str(folder / "runs.sqlite")
        fd_in = os.open(os.devnull, os.O_RDONLY)
        fd_out = os.open(folder / ".stdout", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        fd_err = os.open(folder / ".stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd_in, 0)
        os.dup2(fd_out, 1)
        os.dup2(fd_err, 2)
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_NET, ADDRESS_SPACE_NET))
        cpu = int(TIME_LIMIT) + 1  # SIGXCPU past the limit: counted as a hang
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        from engine.cli import main

        rc = main(list(case.argv))
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except BaseException:  # noqa: BLE001 - what escapes main() is exactly what a user would see
        import traceback

        traceback.print_exc()
        rc = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(int(rc) & 0xFF)


def _prepare(case: Case, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in case.files.items():
        p = folder / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if callable(data):  # big contents are made when the case runs, not kept in the parent
            data = data()
        if data is FIFO:
            os.mkfifo(p)
        elif isinstance(data, str):
            p.write_text(data, encoding="utf-8")
        else:
            p.write_bytes(data)


def _classify(case: Case, folder: Path, status: int, seconds: float, peak: int, timed_out: bool,
              cpu: float = 0.0) -> Outcome:
    out = _kind(case, folder, status, seconds, peak, timed_out, cpu)
    out.cpu = cpu
    return out


def _kind(case: Case, folder: Path, status: int, seconds: float, peak: int, timed_out: bool,
          cpu: float) -> Outcome:
    peak_mb = peak / 2**20
    if timed_out:
        return Outcome(case, "hang", seconds, peak_mb, f"killed after {WALL_LIMIT:.0f} s of wall time")
    out = (folder / ".stdout").read_text("utf-8", "replace")
    err = (folder / ".stderr").read_text("utf-8", "replace")
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig in (signal.SIGXCPU, signal.SIGKILL) and cpu >= TIME_LIMIT:
            return Outcome(case, "hang", seconds, peak_mb, f"more than {TIME_LIMIT:.0f} s of CPU")
        return Outcome(case, "blowup" if sig in (signal.SIGKILL, signal.SIGSEGV) else "traceback", seconds,
                       peak_mb, f"killed by signal {sig}")
    rc = os.WEXITSTATUS(status)
    if peak > MEMORY_LIMIT or "MemoryError" in err or "out of memory" in err:
        return Outcome(case, "blowup", seconds, peak_mb, f"peak {peak_mb:.0f} MB: {err.strip()[:200]}")
    lines = [ln for ln in err.splitlines() if ln.strip() and not _PROGRESS.match(ln)]  # progress is fine
    if rc == 2:
        if len(lines) == 1 and lines[0].startswith("error: ") and "internal error" not in lines[0]:
            if case.expect == "ok":
                return Outcome(case, "wrong", seconds, peak_mb, f"refused a valid input: {lines[0][:200]}")
            return Outcome(case, "error", seconds, peak_mb, lines[0])
        return Outcome(case, "traceback", seconds, peak_mb, err.strip()[-300:])
    if rc != 0 or "Traceback" in err:
        return Outcome(case, "traceback", seconds, peak_mb, f"exit {rc}: {err.strip()[-300:]}")
    if case.expect == "error":
        return Outcome(case, "wrong", seconds, peak_mb, f"accepted garbage: {out.strip()[:200]}")
    if case.check is not None:
        why = case.check(out, folder)
        if why:
            return Outcome(case, "wrong", seconds, peak_mb, why)
    return Outcome(case, "ok", seconds, peak_mb)


def run_cases(cases, root: Path, *, jobs: int = 2, progress: Callable | None = None) -> list[Outcome]:
    """Run every case (at most ``jobs`` at once) in sub-folders of ``root``; the outcomes in order."""
    root = Path(root)
    pending = list(enumerate(cases))
    running: dict[int, tuple] = {}
    results: dict[int, Outcome] = {}
    while pending or running:
        while pending and len(running) < jobs:
            i, case = pending.pop(0)
            folder = root / f"{i:05d}"
            _prepare(case, folder)
            case.files = {name: "(written)" for name in case.files}  # the parent keeps no contents
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(case, folder)
            running[pid] = (i, case, folder, time.monotonic())
        time.sleep(0.005)
        for pid, (i, case, folder, t0) in list(running.items()):
            done, status, usage = os.wait4(pid, os.WNOHANG)
            elapsed = time.monotonic() - t0
            if done == 0 and elapsed > WALL_LIMIT:
                os.kill(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                results[i] = _classify(case, folder, status, elapsed, usage.ru_maxrss * 1024, True,
                                       usage.ru_utime + usage.ru_stime)
            elif done:
                results[i] = _classify(case, folder, status, elapsed, usage.ru_maxrss * 1024, False,
                                       usage.ru_utime + usage.ru_stime)
            else:
                continue
            del running[pid]
            if progress:
                progress(len(results), len(results) + len(pending) + len(running), results[i])
    return [results[i] for i in range(len(results))]
