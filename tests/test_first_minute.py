"""The first minute of a server: the warm-up's stages, numba's shared cache, a run that waits while
the run workers prepare, and a quiet log (no framework warnings)."""

import dataclasses
import os
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from engine import warmup as W
from tests.conftest import ROOT


def test_every_stage_builds_only_on_earlier_stages_that_run_no_later():
    names = [s.name for s in W.STAGES]
    assert len(set(names)) == len(names)
    order = {n: i for i, n in enumerate(names)}
    rank = {W.SERVE: 0, W.SOON: 1, W.BEHIND: 2, W.LIBRARY: 3}
    for s in W.STAGES:
        assert s.when in rank and s.cost > 0 and s.label
        for a in s.after:
            assert order[a] < order[s.name], (s.name, a)
            # a stage may build on a stage of its own time or an earlier one (served first)
            assert rank[W._BY_NAME[a].when] <= rank[s.when], (s.name, a)


def test_the_first_pages_need_no_learning_kernel():
    assert {"trees", "tree-views", "covers", "bp"} == set(W.stage_names(W.SERVE))
    assert {"online-update", "online-marginal", "online"} == set(W.stage_names(W.SOON))
    assert {"hedge", "forests", "rta", "bhtmm"} <= set(W.stage_names(W.BEHIND))


def _fake_stages(monkeypatch, seconds: float = 0.05) -> tuple[list, list]:
    """Every stage's exercise replaced by a short sleep that notes its start and the stages running
    with it; the cache's stamp left alone."""
    started, running, peak, lock = [], [0], [0], threading.Lock()

    def exercise(name):
        def run():
            with lock:
                started.append(name)
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            time.sleep(seconds)
            with lock:
                running[0] -= 1
        return run

    monkeypatch.setattr(W, "_BY_NAME", {s.name: dataclasses.replace(s, exercise=exercise(s.name)) for s in W.STAGES})
    monkeypatch.setattr(W, "_write_stamp", lambda names, seconds: None)
    return started, peak


def test_a_free_process_takes_the_first_ready_stage_and_no_more_run_than_processes(monkeypatch):
    started, peak = _fake_stages(monkeypatch)
    names = W.stage_names(W.SOON, W.BEHIND)
    with ThreadPoolExecutor(6) as executor:   # more threads than processes asked for: never used
        W.compile_stages(names, executor=executor, workers=1)
    # the online model (SOON) as soon as its walks are done, before the learning stages queued earlier
    assert started == ["online-update", "online-marginal", "online", "tree-files", "hedge", "forests", "rta", "bhtmm"]
    assert peak == [1]
    started.clear()
    with ThreadPoolExecutor(6) as executor:
        W.compile_stages(names, executor=executor, workers=2)
    assert sorted(started) == sorted(names) and peak == [2]


def test_the_stages_a_run_waits_for_go_first(monkeypatch):
    started, _ = _fake_stages(monkeypatch)
    names = W.stage_names(W.BEHIND)
    with ThreadPoolExecutor(2) as executor:
        W.compile_stages(names, executor=executor, workers=1, first=lambda: {"rta"})
    assert started == ["rta"] + [n for n in names if n != "rta"]
    # every learning family of the app is named by the stage that compiles its kernels
    from engine.runs.registry import FAMILIES

    for algorithm in set(FAMILIES) - {"reproduce"}:
        assert len(W.run_stages(algorithm, names)) == 1, algorithm
    assert W.run_stages("reproduce", names) == names


def test_a_run_waits_for_its_own_stages_only_and_says_which():
    """A run launched while the run workers prepare waits for the stages its algorithm needs
    (``engine.warmup.run_stages``), which go first; a run whose stages are done goes at once."""
    from engine.runs.registry import load_config
    from workbench import runner

    pool = runner._Pool.__new__(runner._Pool)   # no processes: the preparation's bookkeeping only
    pool.prepared, pool.lock, pool.workers = threading.Event(), threading.Lock(), 1
    pool.stage_names, pool.waits, pool.stages_done = W.stage_names(W.BEHIND), {}, {}
    pool.stages_started = {"tree-files": time.perf_counter()}
    pool.prepare_clock = W.Countdown(100)
    rta = load_config({"algorithm": "rta"})
    assert pool._needs("run", (rta,)) == ["rta"]
    assert pool._needs("sweep", ({"algorithm": "bhtmm"},)) == ["bhtmm"]
    assert pool._needs("run", (None,)) == pool.stage_names   # an algorithm no stage names: all of them
    job = runner.Job(key="rta")
    job.pool = pool
    pool.waits[job.id] = (["rta"], W.Countdown(pool._stages_left(["rta"])))
    assert pool._wanted() == {"rta"}
    text = job.text()
    assert text.startswith("preparing (") and "compile the kernels of RTA first" in text, text
    # behind the stage running now: at least what that stage and its own have left
    assert job.preparing >= 1.0
    pool.stages_done["rta"] = 20.0
    assert pool.stages_of(job) is None and job.preparing is None
    assert pool._needs("run", (rta,)) == []   # compiled already: handed over at once


def test_the_preparation_hands_a_waiting_run_over_and_releases_each_stages_kernels(monkeypatch):
    """The run workers' preparation (fake stages, threads for processes): an RTA run submitted while
    the first stage compiles is handed over as soon as the RTA stage, which goes next, is done; the
    readers of large tree files are called by the server once their stage is done."""
    from engine import jit
    from engine.runs.registry import load_config
    from workbench import runner

    started, _ = _fake_stages(monkeypatch, seconds=0.5)
    monkeypatch.setattr(W, "is_warm", lambda names: False)
    pool = runner._Pool.__new__(runner._Pool)   # threads for the worker processes
    pool.executor, pool.workers, pool.stopping = ThreadPoolExecutor(1), 1, False
    pool.prepared, pool.lock, pool.jobs, pool.order = threading.Event(), threading.Lock(), {}, []
    pool.prepared.set()
    pool.stage_names, pool.stages_started, pool.stages_done = [], {}, {}
    pool.stage_change, pool.waits, pool.pending, pool.prepare_clock = threading.Condition(), {}, {}, None
    handed = []
    monkeypatch.setattr(pool, "_hand_over", lambda job, kind, payload, families:
                        handed.append((job.key, sorted(pool.stages_done))))
    formats = W.stand_ins(["tree-files"])
    jit.defer(*formats)
    try:
        pool.prepare()
        pool.submit(runner.Job(key="rta"), "run", (load_config({"algorithm": "rta"}),))
        assert pool.prepared.wait(60)
        assert not jit.deferred(formats[0])
    finally:
        jit.release(*formats)
        pool.executor.shutdown()
    assert started[:2] == ["tree-files", "rta"], started
    assert handed == [("rta", ["rta", "tree-files"])]


def test_online_marginals_serves_while_its_walks_compile_and_switches_after():
    """While the server compiles the online model's walks (``workbench.serve`` after a fresh
    install) the page answers at once from their plain-Python build; the first click after they are
    ready (``engine.jit.release``) is answered by the compiled walks, with the same marginals."""
    from engine import jit
    from tests.conftest import open_app_page, tree_views

    stand_ins = W.stand_ins(W.stage_names(W.SOON))
    assert stand_ins == ["engine.inference._online_kernels"]
    jit.defer(*stand_ins)
    try:
        at = open_app_page("workbench/pages/online_marginals.py")
        assert not at.exception, at.exception
        assert [v.key for v in tree_views(at)][:1] == ["om_tree"]
        session = at.session_state["om_session"]
        assert not session.model.compiled          # the stand-in answered
        next(b for b in at.button if b.key == "om_observe").click()
        at.run()
        assert not at.exception, at.exception
        assert not session.model.compiled and session.evidence
        before = session.model.marginals()
    finally:
        jit.release(*stand_ins)
    next(b for b in at.button if b.key == "om_observe").click()   # the same evidence again
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["om_session"] is session and session.model.compiled
    # the same kernels on the same numbers: equal up to the order of floating-point operations
    np.testing.assert_allclose(session.model.marginals(), before, rtol=1e-12, atol=0)


def test_estimates_spread_over_processes_but_not_below_the_longest_chain():
    names = W.stage_names(W.SERVE)
    one, two = W.estimate_seconds(names, 1), W.estimate_seconds(names, 2)
    assert two < one
    chain = max(W.expected_seconds(n) for n in names)
    assert two >= chain
    assert W.estimate_seconds(names, 2, speed=0.5) == pytest.approx(two * 0.5)
    assert W.estimate_seconds([], 2) == 0.0
    with pytest.raises(ValueError, match="nope"):
        W.compile_stages(["nope"], workers=1)


def test_speed_compares_measured_with_expected_seconds():
    n = "trees"
    assert W.speed({}) == 1.0
    assert W.speed({n: W.expected_seconds(n) * 3}) == pytest.approx(3.0)
    assert W.speed({n: 0.0}) == 0.02


_KERNELS = """
from numba import njit

@njit(cache=True)
def f(x):
    return x + 1

@njit(cache=True)
def g(x):
    return x * 2
"""

_COMPILE = """
import sys, time
sys.path.insert(0, sys.argv[1])
from engine.jitcache import guard_cache
guard_cache()
import numpy as np
import kernels_under_test as K
value = {"int": np.int64(3), "float": np.float64(3.5), "array": np.arange(3.0)}[sys.argv[2]]
start = float(sys.argv[3])
while time.time() < start:   # both processes compile at the same moment
    time.sleep(0.001)
K.f(value)
K.g(value)
"""

_LOAD = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import kernels_under_test as K
assert K.f(np.int64(3)) == 4 and K.f(np.float64(3.5)) == 4.5 and K.f(np.arange(3.0)).tolist() == [1, 2, 3]
assert K.g(np.int64(3)) == 6 and K.g(np.float64(3.5)) == 7.0 and K.g(np.arange(3.0)).tolist() == [0, 2, 4]
hits = sum(sum(d.stats.cache_hits.values()) for d in (K.f, K.g))
misses = sum(sum(d.stats.cache_misses.values()) for d in (K.f, K.g))
print(hits, misses)
"""


@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
def test_processes_compiling_one_function_for_different_types_share_the_cache(tmp_path):
    (tmp_path / "kernels_under_test.py").write_text(_KERNELS)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    start = time.time() + 3
    procs = [subprocess.Popen([sys.executable, "-c", _COMPILE, str(tmp_path), kind, str(start)], env=env,
                              stderr=subprocess.PIPE, text=True) for kind in ("int", "float", "array")]
    for p in procs:
        assert p.wait(300) == 0, p.stderr.read()[-2000:]
    out = subprocess.run([sys.executable, "-c", _LOAD, str(tmp_path)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["6", "0"]   # all six compiled versions loaded, none compiled again


@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
def test_a_run_launched_while_the_workers_prepare_waits_and_says_so(db):
    from engine.runs.registry import load_config
    from tests import runs_family
    from workbench import runner

    pool = runner._Pool(1)
    try:
        pool.warm()
        pool.prepared.clear()                      # as while the workers compile their kernels
        pool.prepare_ends = time.perf_counter() + 30
        cfg = load_config({"algorithm": "treeflip", "seed": 3})
        job = runner.Job(key="prep").submit(pool, "run", (cfg, runs_family.run, (str(db), None), "prep"))
        time.sleep(1.0)
        assert job.future is None and job.started_at is None
        assert job.text().startswith("preparing (") and " s)" in job.text()
        cancelled = runner.Job(key="prep2").submit(pool, "run", (cfg, runs_family.run, (str(db), None), "prep2"))
        cancelled.cancel()                         # cancel while it waits: never handed over
        assert cancelled.done.wait(5) and cancelled.future is None
        pool.prepared.set()
        assert job.done.wait(120) and job.error is None
        assert job.value["result"].metrics == runs_family.run(runs_family.TreeFlipConfig(seed=3)).metrics
        assert "preparing" not in job.text()
    finally:
        pool.executor.shutdown(cancel_futures=True)
        pool.manager.shutdown()


def test_server_options_are_in_force_before_the_warm_up():
    """``streamlit run`` re-reads its options with the launcher's flags: nothing in [server] may
    change then (Streamlit would log that a restart is needed)."""
    from streamlit import config
    from streamlit.config_util import server_option_changed

    from workbench.serve import server_flags

    flags = server_flags(8765, "127.0.0.1")
    before = dict(config.get_config_options(force_reparse=True, options_from_flags=flags))
    after = config.get_config_options(force_reparse=True, options_from_flags=flags)
    assert not server_option_changed(before, after)
    assert config.get_option("server.port") == 8765 and config.get_option("runner.postScriptGC") is False
    config.get_config_options(force_reparse=True)


@pytest.mark.slow
def test_a_served_app_logs_its_steps_and_no_framework_warning(tmp_path):
    """The launcher's log: its warm-up lines and the address, no warning; a page and a learning
    run (in the run workers, which a fresh process spawns) add nothing to it."""
    from benchmarks.app_client import Student, run_async, serve

    env = dict(os.environ, TREE_WORKBENCH_DB=str(tmp_path / "runs.sqlite"))
    log = tmp_path / "serve.log"

    async def visit(url):
        s = Student(url, timeout=120)
        await s.connect()
        try:
            return [await s.open(""), await s.open("tree_hedge")]
        finally:
            s.close()

    with serve(ROOT, env=env, log_path=log, start_timeout=600) as (url, _):
        outcomes = run_async(lambda: visit(url), timeout=300)
        time.sleep(3)
        text = log.read_text()
    assert all(o.ok for o in outcomes), [o.errors for o in outcomes]
    lines = text.splitlines()
    assert any(line.startswith("[warm-up] ready in") for line in lines), text
    assert any("URL: http://127.0.0.1:" in line for line in lines), text
    for bad in ("WARNING", "Warning", "missing ScriptRunContext", "config option section", "Traceback"):
        assert bad not in text, textwrap.shorten(text, 3000)
    assert len(lines) <= 30, text


def test_a_served_app_reads_the_theme_sections_once_and_polls_its_files_less(monkeypatch):
    """workbench.serve.lighter_runtime: every script run (a follower's small fragment too) sends
    the theme, read by walking every config option for each theme section; the served app reads
    each section once, and again after the configuration is parsed again. The configuration files
    are polled every 2 s instead of 0.2 s."""
    from streamlit import config
    from streamlit.watcher import polling_path_watcher

    from workbench.serve import lighter_runtime

    monkeypatch.setattr(config, "get_options_for_section", config.get_options_for_section)
    monkeypatch.setattr(config, "get_option", config.get_option)
    monkeypatch.setattr(polling_path_watcher, "_POLLING_PERIOD_SECS", polling_path_watcher._POLLING_PERIOD_SECS)
    walks = []
    read = config.get_options_for_section
    monkeypatch.setattr(config, "get_options_for_section", lambda section: walks.append(section) or read(section))
    lighter_runtime()
    lighter_runtime()   # twice: still one layer
    first = config.get_options_for_section("theme")
    first["base"] = "changed by a caller"   # a caller's copy, not the memo
    assert config.get_options_for_section("theme") == read("theme")
    assert walks == ["theme"]
    config.get_config_options(force_reparse=True)   # parsed again: read again
    config.get_options_for_section("theme")
    assert walks == ["theme", "theme"]
    assert polling_path_watcher._POLLING_PERIOD_SECS == 2.0


def test_a_served_app_reads_an_option_without_the_configuration_lock(monkeypatch):
    """workbench.serve.lighter_runtime: every element a script sends reads an option; the served
    app reads it without the configuration's lock (a script thread that lost the interpreter while
    holding it made every other script wait), from the options of the last whole parse: every
    option reads as before, a read does not wait for a thread holding the lock, a value set later
    is seen, a parse in progress is not read half done, a finished one is; an unknown key still
    raises."""
    import copy
    import threading

    from streamlit import config
    from streamlit.watcher import polling_path_watcher

    from workbench.serve import lighter_runtime

    monkeypatch.setattr(config, "get_options_for_section", config.get_options_for_section)
    monkeypatch.setattr(config, "get_option", config.get_option)
    monkeypatch.setattr(polling_path_watcher, "_POLLING_PERIOD_SECS", polling_path_watcher._POLLING_PERIOD_SECS)
    before = config.get_option
    lighter_runtime()
    assert config.get_option is not before and config.get_option.__wrapped__ is before
    keys = list(config.get_config_options())
    assert len(keys) > 50
    for key in keys:
        assert config.get_option(key) == before(key), key

    key = "global.minCachedMessageSize"
    expected = before(key)   # (the original read takes the lock: not while another thread holds it)
    held, release, got = threading.Event(), threading.Event(), []

    def hold_the_lock():
        with config._config_lock:
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    try:
        assert held.wait(10)
        reader = threading.Thread(target=lambda: got.append(config.get_option(key)))
        reader.start()
        reader.join(20)                   # the lock stays held all along: a read that took it would hang
        assert got == [expected]
    finally:
        release.set()
        holder.join(10)

    default = config._config_options_template[key].value
    config.set_option(key, default + 1)
    try:
        assert config.get_option(key) == default + 1                # a value set later is seen
        whole = config._config_options
        monkeypatch.setattr(config, "_config_options", copy.deepcopy(config._config_options_template))
        assert config.get_option(key) == default + 1                # a parse half done is not read
        monkeypatch.setattr(config, "_config_options", whole)
    finally:
        config.set_option(key, default)
    config.get_config_options(force_reparse=True)
    assert config.get_option(key) == before(key)                    # a parse done is read
    with pytest.raises(RuntimeError, match="not defined"):
        config.get_option("no.suchOption")


def test_script_runs_take_turns_and_a_long_wait_ends(monkeypatch):
    """workbench.turns.scripts_in_turn: at most two script runs at once, the others wait for a
    turn; a run that waits longer than the wait runs anyway; installing it twice adds one layer."""
    import threading
    import time

    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    from workbench.turns import scripts_in_turn

    lock = threading.Lock()
    now, most, started = [0], [0], []

    def fake_run(self, gate):
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
            started.append(gate)
        gate.wait(30)
        with lock:
            now[0] -= 1

    def started_count(n: int) -> bool:   # wait (at most 10 s) until n runs have started
        end = time.monotonic() + 10
        while len(started) < n and time.monotonic() < end:
            time.sleep(0.01)
        return len(started) >= n

    monkeypatch.setattr(ScriptRunner, "_run_script", fake_run)
    scripts_in_turn(turns=2, wait=30.0)
    scripts_in_turn(turns=2, wait=30.0)
    assert ScriptRunner._run_script.__wrapped__ is fake_run
    gate = threading.Event()
    threads = [threading.Thread(target=ScriptRunner._run_script, args=(None, gate)) for _ in range(6)]
    for t in threads:
        t.start()
    assert started_count(2)
    time.sleep(0.3)
    assert len(started) == 2 and now[0] == 2   # the four others wait their turn
    gate.set()
    for t in threads:
        t.join(10)
    assert len(started) == 6 and most[0] == 2

    monkeypatch.setattr(ScriptRunner, "_run_script", fake_run)
    scripts_in_turn(turns=1, wait=0.2)
    started.clear()
    now[0] = most[0] = 0
    held = threading.Event()
    long = threading.Thread(target=ScriptRunner._run_script, args=(None, held))
    long.start()
    assert started_count(1)
    done = threading.Event()
    done.set()
    ScriptRunner._run_script(None, done)   # waited 0.2 s for the held turn, then ran beside it
    assert most[0] == 2
    held.set()
    long.join(10)


def test_a_run_waiting_out_of_turn_lets_another_run(monkeypatch):
    """workbench.turns.out_of_turn: a page that waits on a learning run's progress gives its turn
    back meanwhile (one turn: another run goes on while it waits, not 30 s later), takes one again
    after, and outside a served app it does nothing."""
    import threading

    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    from workbench.turns import out_of_turn, scripts_in_turn

    with out_of_turn():   # no turn held (not a served app's run): nothing to give back
        pass
    progress, waiting, seen = threading.Event(), threading.Event(), []

    def fake_run(self, what):
        if what == "watch":
            with out_of_turn():
                waiting.set()
                progress.wait(30)
        else:
            seen.append(progress.is_set())

    monkeypatch.setattr(ScriptRunner, "_run_script", fake_run)
    scripts_in_turn(turns=1, wait=30.0)
    watchdog = threading.Timer(20.0, progress.set)   # the test cannot hang: the job "ends" after 20 s
    watchdog.start()
    watcher = threading.Thread(target=ScriptRunner._run_script, args=(None, "watch"))
    watcher.start()
    try:
        assert waiting.wait(10)
        ScriptRunner._run_script(None, "click")   # the only turn was given back: it runs now
        assert seen == [False]                     # (after a 30-s wait the watchdog would have fired)
    finally:
        progress.set()
        watcher.join(10)
        watchdog.cancel()
    ScriptRunner._run_script(None, "click")       # the watcher took its turn again and gave it back
    assert seen == [False, True]


def test_a_freed_turn_goes_to_the_run_that_waited_longest():
    """workbench.turns: a freed turn is handed to the run waiting longest, never taken by a run
    that has just arrived (with a semaphore a newcomer could take it, and an unlucky run waited
    out its whole wait: the p95 of 30 students rose by a third)."""
    import threading
    import time

    from workbench.turns import _Line

    line = _Line(1)
    assert line.acquire(timeout=0.0)
    got = []
    waiter = threading.Thread(target=lambda: got.append(line.acquire(timeout=30)))
    waiter.start()
    end = time.monotonic() + 10
    while not line._waiting and time.monotonic() < end:   # until it waits in line
        time.sleep(0.01)
    assert len(line._waiting) == 1
    line.release()                          # handed to the waiter ...
    assert not line.acquire(timeout=0.0)    # ... not to this newcomer
    waiter.join(10)
    assert got == [True]
    line.release()
    assert line.acquire(timeout=0.0)        # free again once the waiter gave it back
    line.release()


def test_a_file_made_on_a_download_click_outlives_other_sessions_runs(monkeypatch):
    """workbench.serve.lasting_downloads: Streamlit deletes a file a deferred download made (the
    class's answers as CSV, made on the lecturer's click) once two script runs end anywhere; on a
    class server that could come before the browser asked for it. Served, the file stays until its
    session's next whole run (Streamlit's own bookkeeping, driven as its script runner does)."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.media_file_storage import MediaFileStorageError
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    from workbench.serve import lasting_downloads

    def click_then_two_runs_elsewhere(mgr) -> str:
        placeholder = mgr.add_deferred(lambda: "step,answer\n3,1\n", "text/csv", "1.2", "answers.csv")
        made = mgr.execute_deferred(placeholder).rsplit("/", 1)[-1].split(".")[0]
        mgr.remove_orphaned_files()   # another session's fragment ended ...
        mgr.remove_orphaned_files()   # ... and another
        return made

    streamlit_own = MediaFileManager(MemoryMediaFileStorage("/media"))
    made = click_then_two_runs_elsewhere(streamlit_own)
    with pytest.raises(MediaFileStorageError):   # Streamlit alone: gone
        streamlit_own._storage.get_file(made)

    monkeypatch.setattr(MediaFileManager, "execute_deferred", MediaFileManager.execute_deferred)
    lasting_downloads()
    lasting_downloads()   # twice: still one layer
    assert MediaFileManager.execute_deferred.__wrapped__.__name__ == "execute_deferred"
    served = MediaFileManager(MemoryMediaFileStorage("/media"))
    made = click_then_two_runs_elsewhere(served)
    assert served._storage.get_file(made).content == b"step,answer\n3,1\n"
    # the session's next whole run lets it go: gone after the next two
    served.clear_session_refs()
    served.remove_orphaned_files()
    served.remove_orphaned_files()
    with pytest.raises(MediaFileStorageError):
        served._storage.get_file(made)

    def session_ends():   # the browser closed while its file was being made
        served.clear_session_refs()
        served.remove_orphaned_files()
        return "late"

    served.execute_deferred(served.add_deferred(session_ends, "text/csv", "1.2", "late.csv"))
    assert not served._files_by_session_and_coord, "a file held for a session that has ended"
