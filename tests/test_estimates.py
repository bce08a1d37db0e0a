"""Honest estimates: no time left that the app or the command line shows rises above what it showed
before. The warm-up's log, a run's "preparing (N s)" while the
run workers compile, a run's time left and ``python -m engine``'s compile notice all count down from
their first value (``engine.warmup.Countdown``); a first estimate is scaled by the machine's load;
an estimate that has run out says "longer than expected" and the load instead of a number. Fake
clocks and fake progress stand in for a busy machine (the reported case: "about 34 s left", then
70, 76 and 78 s)."""

from __future__ import annotations

import doctest
import functools
import re
import threading
import time
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import warmup as W


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


_LEFT = re.compile(r"about (\d+) (s|min) left")


def _seconds_said(text: str) -> float | None:
    """The seconds an "about N s left" / "about N min left" says, ``None`` if it says no number."""
    m = _LEFT.search(text)
    return None if m is None else float(m.group(1)) * (60 if m.group(2) == "min" else 1)


# ---------------------------------------------------------------------- the countdown itself
@given(first=st.floats(0, 3600), steps=st.lists(st.tuples(st.floats(0, 120), st.floats(0, 10_000)), max_size=40))
def test_a_countdown_never_shows_more_than_it_showed_before(first, steps):
    clock = FakeClock()
    c = W.Countdown(first, clock=clock)
    shown = [c.left()]
    assert shown[0] == first
    for dt, estimate in steps:
        clock.t += dt
        c.update(estimate)
        shown.append(c.left())
        said = c.text(load=(0.5, 2))
        if c.overdue:
            assert _seconds_said(said) is None and "longer than expected" in said, said
        else:
            assert _seconds_said(said) == round(shown[-1]), said
    assert all(b <= a for a, b in zip(shown, shown[1:])), shown
    assert max(shown) == first


def test_a_countdown_that_has_run_out_says_how_long_so_far_and_the_load():
    clock = FakeClock()
    c = W.Countdown(10, clock=clock)
    clock.t = 4.0
    assert c.text(load=(0.4, 2)) == "about 6 s left"
    assert c.text(load=(3.2, 2)) == "about 6 s left (the machine is busy: load 3.2 on 2 cores)"
    clock.t = 30.0
    c.update(50)   # the measured speed says 50 s more: not shown, the work has run past what was said
    assert c.overdue and c.left() == 0.0
    assert c.text(load=(3.2, 2)) == "30 s so far, longer than expected; the machine is busy: load 3.2 on 2 cores"
    assert c.text(load=(0.9, 2)) == "30 s so far, longer than expected; load 0.9 on 2 cores"
    c.update(0)
    assert c.left() == 0.0


def test_a_first_estimate_grows_with_the_load():
    assert W.busy_factor(2, load=(0.0, 2)) == 1.0
    assert W.busy_factor(2, load=(3.0, 2)) == 2.5           # five processes want two cores
    assert W.busy_factor(1, load=(0.5, 8)) == 1.0
    assert W.busy_factor(1, load=(15.0, 4)) == 4.0
    assert W.busy_text((2.0, 2)) == "load 2.0 on 2 cores"   # as many as the cores: not busy
    assert W.busy_text((2.1, 1)) == "the machine is busy: load 2.1 on 1 core"
    load, cores = W.machine_load()
    assert load >= 0.0 and cores >= 1


def test_the_examples_of_the_estimates_hold():
    from engine import cli

    for obj in (W.Countdown, W.busy_factor, W.cold_range, cli.seconds_range):
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner()
        for test in finder.find(obj, globs={**vars(W), "seconds_range": cli.seconds_range}):
            runner.run(test)
        assert runner.failures == 0 and runner.tries > 0, obj


# ---------------------------------------------------------------------- the warm-up's log
def _fake_warm_up(monkeypatch, clock, times_cost: float, load=(5.0, 2)):
    """``workbench.serve.warm_up`` with every stage compiling ``times_cost`` times its declared cost,
    one after another, on the fake clock; the log lines it says."""
    from workbench import serve

    monkeypatch.setattr(W, "Countdown", functools.partial(W.Countdown, clock=clock))
    monkeypatch.setattr(W, "is_warm", lambda names: False)
    monkeypatch.setattr(W, "busy_factor", lambda workers=1, load=None: 1.0)
    monkeypatch.setattr(W, "machine_load", lambda: load)
    monkeypatch.setattr(W, "load_stages", lambda names: 0.0)
    monkeypatch.setattr(W, "remember", lambda step, seconds: None)
    monkeypatch.setattr(W, "_read_stamp", lambda: {})   # the declared costs: no time measured here

    def compile_stages(names, *, workers, on_done, executor=None):
        left = list(names)
        for name in names:
            left.remove(name)
            seconds = times_cost * W._BY_NAME[name].cost
            clock.t += seconds
            on_done(name, seconds, list(left))
        return {}

    monkeypatch.setattr(W, "compile_stages", compile_stages)
    monkeypatch.setattr(serve, "_render_pages", lambda skip=(): {})
    said: list[str] = []
    serve.warm_up(pages=True, say=said.append)
    return said


@pytest.mark.parametrize("times_cost", [0.2, 1.0, 3.0, 10.0])
def test_the_warm_up_log_never_raises_its_estimate(monkeypatch, times_cost):
    clock = FakeClock()
    said = _fake_warm_up(monkeypatch, clock, times_cost)
    numbers = [_seconds_said(line) for line in said]
    shown = [n for n in numbers if n is not None]
    assert shown and numbers[0] == max(shown), said
    assert all(b <= a for a, b in zip(shown, shown[1:])), said
    if times_cost >= 3.0:   # the reported case: three times slower than measured
        assert any("longer than expected; the machine is busy: load 5.0 on 2 cores" in line for line in said), said
        # once run out, no number again
        first_out = next(i for i, line in enumerate(said) if "longer than expected" in line)
        assert all(_seconds_said(line) is None for line in said[first_out:]), said


def test_the_first_estimate_of_the_warm_up_counts_the_load(monkeypatch):
    from workbench import serve

    monkeypatch.setattr(W, "is_warm", lambda names: False)
    monkeypatch.setattr(W, "machine_load", lambda: (6.0, 2))
    monkeypatch.setattr(W, "_read_stamp", lambda: {})
    monkeypatch.setattr(W, "load_stages", lambda names: 0.0)
    monkeypatch.setattr(W, "compile_stages", lambda names, **kw: {})
    said: list[str] = []
    serve.warm_up(pages=False, say=said.append)
    names = W.stage_names(W.SERVE)
    idle = W.estimate_seconds(names, min(W.core_count(), len(names)))
    first = _seconds_said(said[0])
    assert first == pytest.approx(idle * (6.0 + min(W.core_count(), len(names))) / 2, abs=1), said
    assert "the machine is busy: load 6.0 on 2 cores" in said[0], said


# ---------------------------------------------------------------------- the app's "preparing (N s)"
def test_a_run_waiting_for_the_workers_says_a_time_that_never_rises():
    from workbench import runner

    clock = FakeClock()
    pool = runner._Pool.__new__(runner._Pool)   # no processes: only its preparation's clock
    pool.prepared = threading.Event()
    pool.prepare_clock = W.Countdown(40, clock=clock)
    pool.workers = 1
    pool.waits, pool.lock = {}, threading.Lock()   # a run that waits for the whole preparation
    job = runner.Job(key="waits")
    job.pool = pool
    said = [job.text()]
    for dt, left, done in [(5, ["forests", "rta"], {"tree-files": 30.0}), (20, ["rta"], {"forests": 90.0}),
                           (30, [], {"rta": 40.0})]:
        clock.t += dt
        pool._estimate(left, done)
        said.append(job.text())
    numbers = [float(re.match(r"preparing \((\d+) s\)", s).group(1)) if re.match(r"preparing \(\d+ s\)", s) else None
               for s in said]
    assert numbers[0] == 40, said
    shown = [n for n in numbers if n is not None]
    assert all(b <= a for a, b in zip(shown, shown[1:])), said
    assert all(s.startswith("preparing (") for s in said), said
    pool.prepare_ends = time.perf_counter() + 30   # the older attribute still sets the clock
    assert 29 <= pool.preparing_left() <= 30


def test_a_runs_time_left_never_rises(monkeypatch):
    from workbench import runner

    clock = FakeClock()
    monkeypatch.setattr(runner, "Countdown", lambda seconds, clock=None, fake=clock: W.Countdown(seconds, clock=fake))
    job = runner.Job(key="eta")
    said = []
    # (seconds run, fraction done): quick at first, then slower; the straight-line estimate rises
    for elapsed, fraction in [(1, 0.01), (2, 0.2), (6, 0.4), (20, 0.5), (40, 0.6), (60, 0.95), (61, 1.0)]:
        clock.t = elapsed
        job.started_at = time.perf_counter() - elapsed
        job.fraction = fraction
        said.append(job.eta())
    assert said[0] == "estimating time left"
    numbers = [_seconds_said(s) for s in said[1:]]
    shown = [n for n in numbers if n is not None]
    assert shown[0] == 8 and all(b <= a for a, b in zip(shown, shown[1:])), said
    assert any("longer than expected" in s for s in said), said


# ---------------------------------------------------------------------- the command line's notice
class _Event:
    def __init__(self, module: str):
        self.data = {"dispatcher": SimpleNamespace(py_func=SimpleNamespace(__module__=module))}


def test_the_compile_notice_is_a_range_said_once_and_only_for_the_engines_kernels(monkeypatch, capsys):
    from engine import cli

    ranges = {"engine.trees._kernels": (1.6, 14.0, {"engine.trees._kernels", "engine.cover._kernels"}),
              "engine.inference._online_kernels": (3.0, 150.0, {"engine.inference._online_kernels"})}
    monkeypatch.setattr(cli, "cold_range", lambda module: ranges[module])
    monkeypatch.setattr(cli._Compiling, "said", False)
    monkeypatch.setattr(cli._Compiling, "running", True)
    monkeypatch.setattr(cli._Compiling, "counted", set())
    cli._announce(_Event("numba.typed.listobject"))   # numba's own helpers: not the command's kernels
    assert capsys.readouterr().err == ""
    cli._announce(_Event("engine.trees._kernels"))
    cli._announce(_Event("engine.trees._kernels"))     # more kernels of the same module: counted
    cli._announce(_Event("engine.cover._kernels"))     # imported before: in the range said
    assert capsys.readouterr().err == ("compiling kernels once, about 2 to 15 s; `python -m engine.warmup` "
                                       "does it ahead\n")
    cli._announce(_Event("engine.inference._online_kernels"))   # imported later: more work, its own range
    assert capsys.readouterr().err == "compiling more kernels (engine.inference._online_kernels), about 3 to 150 s\n"
    cli._announce(_Event("engine.inference._online_kernels"))
    monkeypatch.setattr(cli._Compiling, "running", False)        # no command running: nothing said
    monkeypatch.setattr(cli._Compiling, "counted", set())
    cli._announce(_Event("engine.trees._kernels"))
    assert capsys.readouterr().err == ""


def test_the_compile_range_counts_the_kernel_modules_imported_not_their_packages(monkeypatch):
    import sys

    import engine.cover._kernels  # noqa: F401 - a kernel module, imported
    import engine.trees._kernels  # noqa: F401 - a kernel module, imported

    monkeypatch.setattr(W, "COMPILE_SECONDS", {"engine.trees._kernels": 4.0, "engine.cover._kernels": 5.0,
                                               "engine.inference._online_kernels": 140.0})
    monkeypatch.delitem(sys.modules, "engine.inference._online_kernels", raising=False)
    monkeypatch.setattr(W, "busy_factor", lambda workers=1, load=None: 1.0)
    monkeypatch.setattr(W, "_on_disk", lambda d: False)
    kernels = len(W._dispatchers(sys.modules["engine.trees._kernels"]))
    low, high, counted = W.cold_range("engine.trees._kernels")
    assert low == pytest.approx(4.0 / kernels) and high == pytest.approx(9.0)   # not the online model's 140 s
    assert counted == {"engine.trees._kernels", "engine.cover._kernels"}
    monkeypatch.setattr(W, "busy_factor", lambda workers=1, load=None: 2.5)
    assert W.cold_range("engine.trees._kernels")[:2] == pytest.approx((2.5 * 4.0 / kernels, 22.5))
    monkeypatch.setattr(W, "_on_disk", lambda d: True)   # cached: only the kernel compiling now
    low, high, _ = W.cold_range("engine.trees._kernels")
    assert high == pytest.approx(low)


def test_seconds_ranges_read_as_whole_seconds():
    from engine.cli import seconds_range

    assert seconds_range(1.6, 37.0) == "2 to 40"
    assert seconds_range(4.2, 4.9) == "5"
    assert seconds_range(12.0, 11.0) == "12 to 15"
    assert seconds_range(0.0, 0.4) == "1 to 5"
