"""The run protocol's plumbing: registry, run history (SQLite), execute, sweeps (joblib, dask), CLI.

The algorithm run here is the tests' own small family ``treeflip`` (tests/runs_family.py),
registered through the registry hook; the workbench's families are covered as they land.
"""

import importlib.util
import json
import math
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import fields

import pytest

import engine
from engine.errors import EngineError, InvalidParameterError
from engine.runs import registry
from engine.runs.execute import execute, execute_sweep, expand_sweep
from engine.runs.protocol import RunCancelled
from engine.runs.registry import FAMILIES, family, load_config, register_family
from engine.runs.store import MIGRATIONS, SCHEMA_VERSION, RunStore, UnknownRunError, jsonable
from tests import runs_family
from tests.conftest import ROOT

BUILTIN = ["hedge", "ofde", "chowliu", "rta", "bhtmm"]

#: a tiny config of each family (seconds to run); the settings are checked against the family's
#: config class, so a renamed setting fails here once the family is merged
TINY = {
    "hedge": {"trials": 40, "backend": "bp", "snapshots": 5, "tree": {"generate": "path", "n": 7, "seed": 0}},
    "ofde": {"n_vars": 6, "n_train": 200, "n_test": 100, "n_valid": 50, "eval_points": 5},
    "chowliu": {"n_vars": 6, "n_train": 200, "n_test": 100, "n_valid": 50},
    "rta": {"data": {"synthetic": {"n_examples": 40, "n_features": 4, "n_labels": 3}}, "n_trees": 2,
            "max_k": 4, "C": 1.0, "folds": 2, "max_passes": 3},
    "bhtmm": {"iterations": 3, "states": 2, "synthetic_trees": 10},
    "treeflip": {"tree": {"generate": "path", "n": 20}},
}
#: metrics and curves that measure time, not results: they differ between two runs of one config
TIMING = re.compile(r"seconds|(^|_)ms($|_)|time")


def merged(name: str) -> bool:
    """Whether the family's run module is in this checkout (the others skip)."""
    module = FAMILIES[name][0]
    return importlib.util.find_spec(module.rsplit(".", 1)[0]) is not None and importlib.util.find_spec(module) is not None


def untimed(obj):
    """``obj`` without the entries, at any depth, whose key names a timing."""
    if isinstance(obj, dict):
        return {k: untimed(v) for k, v in obj.items() if not TIMING.search(str(k))}
    if isinstance(obj, list):
        return [untimed(v) for v in obj]
    return obj


def results(rec_or_result) -> tuple:
    """Metrics and curves without the timings, as strict JSON: what two runs of a config share."""
    return untimed(jsonable(rec_or_result.metrics)), untimed(jsonable(rec_or_result.curves))


@pytest.fixture(autouse=True)
def treeflip():
    register_family(*runs_family.FAMILY)
    yield
    registry.unregister_family("treeflip")


@pytest.fixture
def store(db_target):
    """A fresh history on each backend (SQLite, PostgreSQL: tests/postgres.py)."""
    s = RunStore(db_target)
    yield s
    s.close()


def cli(*args, db, check=True, timeout=120):
    env = dict(os.environ, TREE_WORKBENCH_DB=str(db), TREE_WORKBENCH_FAMILIES=runs_family.ENV)
    r = subprocess.run([sys.executable, "-m", "engine", *map(str, args)], capture_output=True, text=True,
                       cwd=ROOT, env=env, timeout=timeout)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def cli_in(capsys, *args, db, code=0):
    """The CLI in this process (faster than a subprocess): ``(stdout, stderr)``."""
    from engine.cli import main

    got = main([*map(str, args), "--db", str(db)])
    out = capsys.readouterr()
    assert got == code, out.err
    return out.out, out.err


def direct(config: dict):
    """The family's own run, outside the history: the oracle for what a record must hold."""
    cfg = runs_family.TreeFlipConfig.from_dict(config)
    return runs_family.run(cfg)


# -- registry and configs --------------------------------------------------------------------------

def test_builtin_families_are_the_five_of_the_issue():
    assert BUILTIN == [n for n in FAMILIES if n in BUILTIN] and set(BUILTIN) <= set(FAMILIES)


@pytest.mark.parametrize("name", BUILTIN + ["treeflip"])
def test_config_round_trips_through_json(name):
    if not merged(name):
        pytest.skip(f"{FAMILIES[name][0]} is not merged yet")
    cls = family(name).config_class
    assert cls.algorithm == name
    cfg = cls()
    assert isinstance(cfg.seed, int) or cfg.seed is None
    text = cfg.to_json()
    back = load_config(json.loads(text))
    assert back == cfg and type(back) is cls
    assert cls.from_json(text) == cfg
    assert json.loads(back.to_json()) == json.loads(text)
    # a changed seed survives too
    seeded = cls(**{**{f.name: getattr(cfg, f.name) for f in fields(cfg)}, "seed": 12345})
    assert load_config(json.loads(seeded.to_json())).seed == 12345


@pytest.mark.parametrize("name", BUILTIN + ["treeflip"])
def test_family_quick_run_is_recorded(name, store):
    if not merged(name):
        pytest.skip(f"{FAMILIES[name][0]} is not merged yet")
    if name not in TINY:
        pytest.skip(f"no tiny config for {name} yet: add one to TINY")
    cfg = load_config({"algorithm": name, **TINY[name]})
    seen = []
    rec = execute(cfg, lambda f, m: seen.append(f), store)
    assert rec.status == "finished" and rec.algorithm == name and rec.config == json.loads(cfg.to_json())
    assert rec.seed == cfg.seed and rec.metrics
    assert seen and all(0 <= f <= 1 for f in seen)
    assert results(rec) == results(family(name).run(cfg))  # the record holds what the run returns
    json.dumps(rec.to_dict(), allow_nan=False)  # and exports as strict JSON


def test_missing_family_is_one_clear_line():
    register_family("ghost", "engine.nonexistent.run", "GhostConfig")
    try:
        with pytest.raises(InvalidParameterError, match=r"'ghost' is not installed.*engine.nonexistent.run"):
            load_config({"algorithm": "ghost"})
    finally:
        registry.unregister_family("ghost")
    with pytest.raises(InvalidParameterError, match="unknown algorithm 'nope'; expected one of hedge"):
        load_config({"algorithm": "nope"})
    with pytest.raises(InvalidParameterError, match="no 'algorithm'"):
        load_config({"seed": 1})
    with pytest.raises(InvalidParameterError, match="unknown treeflip setting 'flp'"):
        load_config({"algorithm": "treeflip", "flp": 0.1})
    with pytest.raises(InvalidParameterError, match="is a sweep"):
        load_config({"algorithm": "treeflip", "sweep": {"seed": [0, 1]}})


def test_env_hook_registers_families(monkeypatch):
    monkeypatch.setenv(registry.FAMILIES_ENV, "x1=a.b:C, x2=d.e:F")
    try:
        registry._register_from_env()
        assert FAMILIES["x1"] == ("a.b", "C") and FAMILIES["x2"] == ("d.e", "F")
    finally:
        registry.unregister_family("x1")
        registry.unregister_family("x2")
    monkeypatch.setenv(registry.FAMILIES_ENV, "broken")
    with pytest.raises(InvalidParameterError, match="'broken' is not of the form"):
        registry._register_from_env()


def test_config_file_paths_are_relative_to_the_file(tmp_path):
    from engine.trees import generate, write_tree

    (tmp_path / "sub").mkdir()
    write_tree(generate("path", 9), tmp_path / "sub" / "t.csv")
    (tmp_path / "sub" / "c.json").write_text(json.dumps({"algorithm": "treeflip", "tree": "t.csv", "seed": 2}))
    cfg = load_config(tmp_path / "sub" / "c.json")
    assert cfg.tree == str((tmp_path / "sub" / "t.csv").resolve())
    assert runs_family.run(cfg).metrics["n_edges"] == 8
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(EngineError, match="bad.json: invalid JSON"):
        load_config(tmp_path / "bad.json")


def test_test_family_is_a_real_learner():
    # KT's regret against the best fixed Bernoulli is in [0, 1/2 ln T + ln 2]
    for seed in range(5):
        m = direct({"tree": {"generate": "random", "n": 200, "seed": seed}, "seed": seed, "flip": 0.3}).metrics
        assert 0 <= m["regret"] <= 0.5 * math.log(m["n_edges"]) + math.log(2)


# -- execute and the history -----------------------------------------------------------------------

def test_execute_records_what_the_run_returns(store):
    config = {"algorithm": "treeflip", "tree": {"generate": "path", "n": 40}, "seed": 3, "flip": 0.25}
    seen = []
    rec = execute(config, lambda f, m: seen.append(f), store, label="first")
    want = direct(config)
    assert rec.status == "finished" and rec.algorithm == "treeflip" and rec.seed == 3 and rec.label == "first"
    assert rec.metrics == want.metrics and rec.curves == want.curves and rec.artefacts == want.artefacts
    assert rec.config == load_config(config).to_dict()
    assert rec.code_version.startswith(engine.__version__)
    assert rec.ended >= rec.started and rec.seconds >= 0 and rec.error is None
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)
    again = store.get(rec.id)
    assert again == rec and again.result.metrics == want.metrics


def test_a_failing_run_is_recorded_failed(store):
    with pytest.raises(InvalidParameterError, match=r"flip must be in \[0, 1\], got 1.5") as info:
        execute({"algorithm": "treeflip", "flip": 1.5}, None, store)
    rec = store.get(info.value.run_id)
    assert rec.status == "failed" and "flip must be in [0, 1]" in rec.error and rec.metrics == {}


def test_cancel_from_the_progress_callback(store):
    def cancel_halfway(f, m):
        if f >= 0.5:
            raise RunCancelled("stop")

    with pytest.raises(RunCancelled) as info:
        execute({"algorithm": "treeflip", "steps": 10}, cancel_halfway, store)
    rec = store.get(info.value.run_id)
    assert rec.status == "cancelled" and rec.metrics == {} and rec.ended is not None


def test_list_filters(store):
    a = execute({"algorithm": "treeflip", "seed": 1}, None, store, label="alpha")
    with pytest.raises(EngineError):
        execute({"algorithm": "treeflip", "flip": -1}, None, store, label="beta")
    assert [r.id for r in store.list()] == [a.id + 1, a.id]
    assert [r.id for r in store.list(status="finished")] == [a.id]
    assert [r.id for r in store.list(status=["failed", "cancelled"])] == [a.id + 1]
    assert [r.id for r in store.list(text="ALPHA")] == [a.id]
    assert [r.id for r in store.list(text="flip must")] == [a.id + 1]
    assert store.list(algorithm="hedge") == []
    assert len(store.list(since=a.started - 1, until=time.time() + 1)) == 2
    assert store.list(since="2999-01-01") == []
    with pytest.raises(InvalidParameterError, match="not ISO 8601"):
        store.list(since="yesterday")
    store.delete(a.id)
    with pytest.raises(UnknownRunError, match=f"no run {a.id}"):
        store.get(a.id)


def test_interrupted_only_when_the_owner_is_gone(tmp_path):
    db = tmp_path / "runs.sqlite"
    with RunStore(db) as s:
        mine = s.start({"algorithm": "treeflip", "seed": 0})
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        c = sqlite3.connect(db)
        with c:  # a run owned by another live process, and one by a process that is gone
            c.execute("INSERT INTO runs (algorithm, config, code_version, status, started, pid, host) "
                      "SELECT algorithm, config, code_version, 'running', started, ?, host FROM runs", (proc.pid,))
            c.execute("INSERT INTO runs (algorithm, config, code_version, status, started, pid, host) "
                      "SELECT algorithm, config, code_version, 'running', started, 999999999, host FROM runs "
                      "WHERE id = ?", (mine,))
        c.close()
        with RunStore(db) as s:
            st = {r.id: r.status for r in s.list()}
        assert st == {mine: "running", mine + 1: "running", mine + 2: "interrupted"}
    finally:
        proc.kill()
        proc.wait()
    with RunStore(db) as s:  # the sleeper is gone now (reaped), and so is its run
        assert s.get(mine + 1).status == "interrupted"
        assert s.get(mine).status == "running"  # still owned by this live test process


@pytest.mark.slow
def test_killed_run_leaves_a_consistent_database_marked_interrupted(tmp_path):
    db = tmp_path / "runs.sqlite"
    done = cli("run", _write(tmp_path / "quick.json", {"algorithm": "treeflip", "seed": 4}), "--json", db=db)
    finished = json.loads(done.stdout)
    env = dict(os.environ, TREE_WORKBENCH_DB=str(db), TREE_WORKBENCH_FAMILIES=runs_family.ENV)
    with runs_family.slow_run_in_progress(tmp_path / "slow.json", env, db) as (proc, running):
        assert running.pid == proc.pid  # alive: opening the store did not mark it interrupted
        os.kill(proc.pid, signal.SIGKILL)
    with RunStore(db) as s:
        assert s.integrity_check() == "ok"
        rec = s.get(running.id)
        assert rec.status == "interrupted" and rec.ended is not None and "stopped" in rec.error
        assert 0 < rec.progress < 1
        assert s.get(finished["id"]).metrics == finished["metrics"]
        assert [r.status for r in s.list()] == ["interrupted", "finished"]


def _write(path, obj):
    path.write_text(json.dumps(obj))
    return path


# -- schema migrations -----------------------------------------------------------------------------

def test_migration_from_schema_1_keeps_the_runs(tmp_path):
    db = tmp_path / "old.sqlite"
    c = sqlite3.connect(db)
    c.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    c.execute("INSERT INTO schema_version VALUES (1)")
    for sql in MIGRATIONS[0]:
        c.execute(sql)
    c.execute("INSERT INTO runs (algorithm, config, seed, code_version, status, started, ended, seconds, metrics) "
              "VALUES ('treeflip', '{\"algorithm\": \"treeflip\", \"seed\": 9}', 9, '0.0.1', 'finished', 1.7e9, "
              "1.7e9 + 2, 2.0, '{\"log_loss\": 1.5}')")
    c.execute("INSERT INTO runs (algorithm, config, code_version, status, started) "
              "VALUES ('treeflip', '{}', '0.0.1', 'running', 1.7e9)")
    c.commit()
    c.close()
    with RunStore(db) as s:
        assert s.schema_version == SCHEMA_VERSION >= 2
        old = s.get(1)
        assert (old.status, old.seed, old.metrics, old.seconds, old.label) == ("finished", 9, {"log_loss": 1.5}, 2.0, "")
        # a schema-1 run has no owner to check: left as it is
        assert s.get(2).status == "running" and s.get(2).pid is None
        new = execute({"algorithm": "treeflip", "seed": 9}, None, s, label="after migration")
        assert new.id == 3 and new.label == "after migration" and new.pid == os.getpid()
        cols = {row[1] for row in s._conn.execute("PRAGMA table_info(runs)")}
        assert {"pid", "host", "label", "sweep", "progress", "message"} <= cols


def test_a_newer_schema_is_refused(tmp_path):
    db = tmp_path / "new.sqlite"
    RunStore(db).close()
    c = sqlite3.connect(db)
    c.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    c.commit()
    c.close()
    with pytest.raises(InvalidParameterError, match="newer than this workbench"):
        RunStore(db)


def test_every_migration_prefix_upgrades(tmp_path):
    for start in range(SCHEMA_VERSION):
        db = tmp_path / f"v{start}.sqlite"
        c = sqlite3.connect(db)
        c.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        c.execute("INSERT INTO schema_version VALUES (?)", (start,))
        for step in MIGRATIONS[:start]:
            for sql in step:
                c.execute(sql)
        c.commit()
        c.close()
        with RunStore(db) as s:
            assert s.schema_version == SCHEMA_VERSION
            assert execute({"algorithm": "treeflip"}, None, s).status == "finished"


# -- sweeps ----------------------------------------------------------------------------------------

def test_sweep_expansion():
    base = {"algorithm": "treeflip", "tree": {"generate": "path", "n": 9}, "flip": 0.1}
    pts = expand_sweep({**base, "sweep": {"flip": [0.1, 0.2, 0.3], "seed": [0, 1]}})
    assert [(p.config["flip"], p.config["seed"]) for p in pts] == [
        (0.1, 0), (0.1, 1), (0.2, 0), (0.2, 1), (0.3, 0), (0.3, 1)]
    assert pts[3].label == "flip=0.2 seed=1" and all("sweep" not in p.config for p in pts)
    pts = expand_sweep({**base, "sweep": {"tree.n": [5, 7]}})
    assert [p.config["tree"] for p in pts] == [{"generate": "path", "n": 5}, {"generate": "path", "n": 7}]
    assert base["tree"]["n"] == 9  # the base config is not touched
    # a list-valued setting: a plain list is a value, a sweep over it is a list of lists
    pts = expand_sweep({"algorithm": "x", "sizes": [1, 2], "sweep": {"sizes": [[1], [1, 2, 3]]}})
    assert [p.config["sizes"] for p in pts] == [[1], [1, 2, 3]]
    assert [p.config for p in expand_sweep({"algorithm": "x", "sizes": [1, 2]})] == [{"algorithm": "x", "sizes": [1, 2]}]
    pts = expand_sweep({**base, "sweep": [{"flip": 0.2, "seed": 4}, {"flip": 0.4}]})
    assert [(p.config["flip"], p.config.get("seed")) for p in pts] == [(0.2, 4), (0.4, None)]
    for bad, msg in [({"seed": 3}, "must be a non-empty list"), ({"seed": []}, "must be a non-empty list"),
                     ({}, "'sweep' is empty"), ({"flip.x": [1]}, "'flip' is not a dict-valued"),
                     ([], "non-empty list of dicts"), (3, "dict of lists or a list of dicts")]:
        with pytest.raises(InvalidParameterError, match=msg):
            expand_sweep({**base, "sweep": bad})


SWEEP = {"algorithm": "treeflip", "tree": {"generate": "random", "n": 60, "seed": 1},
         "sweep": {"flip": [0.1, 0.3], "seed": [0, 1]}}


def _check_sweep(recs):
    assert len(recs) == 4 and len({r.sweep for r in recs}) == 1 and recs[0].sweep.startswith("sw-")
    assert all(r.status == "finished" for r in recs)
    for r, p in zip(recs, expand_sweep(SWEEP)):
        assert r.metrics == direct(p.config).metrics and r.config["flip"] == p.config["flip"]
        assert r.label == p.label


@pytest.mark.slow
@pytest.mark.parametrize("backend,n_jobs", [("loky", 2), ("threading", 2), ("loky", 1)])
def test_sweep_of_four_runs_makes_four_records(store, backend, n_jobs):
    seen = []
    recs = execute_sweep(SWEEP, lambda f, m: seen.append(f), store, n_jobs=n_jobs, backend=backend)
    _check_sweep(recs)
    assert len(store.list(sweep=recs[0].sweep)) == 4 and seen[-1] == 1.0


def test_sweep_on_a_dask_cluster(store):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster):
        recs = execute_sweep(SWEEP, None, store, backend="dask")
        _check_sweep(recs)
        addr = cluster.scheduler_address
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        _check_sweep(execute_sweep(SWEEP, None, store, backend="dask", scheduler=cluster.scheduler_address))
    before = len(store.list())
    with pytest.raises(InvalidParameterError, match="needs a scheduler address"):
        execute_sweep(SWEEP, None, store, backend="dask")
    assert len(store.list()) == before == 8 and addr  # checked before any record is written


def test_sweep_failures_and_cancel(store):
    recs = execute_sweep({"algorithm": "treeflip", "sweep": {"flip": [0.2, 7.0]}}, None, store, n_jobs=2,
                         backend="threading")
    assert [r.status for r in recs] == ["finished", "failed"] and "got 7.0" in recs[1].error

    def stop(f, m):  # the first report of the third run
        if f > 0.5:
            raise RunCancelled("enough")

    with pytest.raises(RunCancelled):
        execute_sweep({"algorithm": "treeflip", "sweep": {"seed": [0, 1, 2, 3]}}, stop, store, n_jobs=1)
    last4 = sorted(store.list(limit=4), key=lambda r: r.id)
    assert [r.status for r in last4] == ["finished", "finished", "cancelled", "cancelled"]
    with pytest.raises(InvalidParameterError, match=r"unknown treeflip setting 'flp'; .* \(sweep point flp=1\)$"):
        execute_sweep({"algorithm": "treeflip", "sweep": {"flp": [1]}}, None, store)


# -- the CLI ---------------------------------------------------------------------------------------

def test_cli_run_list_show_export_delete(tmp_path, capsys):
    db = tmp_path / "runs.sqlite"
    config = {"algorithm": "treeflip", "seed": 11, "tree": {"generate": "star", "n": 30}}
    out, err = cli_in(capsys, "run", _write(tmp_path / "c.json", config), "--json", db=db)
    out = json.loads(out)
    assert out["status"] == "finished" and out["metrics"] == json.loads(json.dumps(direct(config).metrics))
    assert "[100.0%]" in err  # progress on stderr, JSON alone on stdout
    rid = out["id"]
    listed = json.loads(cli_in(capsys, "runs", "list", "--json", db=db)[0])["runs"]
    assert [x["id"] for x in listed] == [rid] and "curves" not in listed[0]
    assert "flip_estimate" in cli_in(capsys, "runs", "show", rid, db=db)[0]
    shown = json.loads(cli_in(capsys, "runs", "show", rid, "--json", db=db)[0])
    assert shown["curves"]["log_loss"] == out["curves"]["log_loss"]
    cli_in(capsys, "runs", "export", rid, "-o", tmp_path / "e.csv", db=db)
    import csv

    rows = list(csv.DictReader(open(tmp_path / "e.csv")))
    assert {r["section"] for r in rows} == {"run", "config", "metric", "curve"}
    assert sum(r["section"] == "curve" and r["name"] == "log_loss" for r in rows) == out["metrics"]["n_edges"]
    ll = [r for r in rows if r["section"] == "metric" and r["name"] == "log_loss"][0]["value"]
    assert float(ll) == pytest.approx(out["metrics"]["log_loss"], rel=1e-12)
    exported = json.loads(cli_in(capsys, "runs", "export", rid, "--format", "json", db=db)[0])
    assert exported["runs"][0]["metrics"] == out["metrics"]
    cli_in(capsys, "runs", "delete", rid, db=db)
    assert cli_in(capsys, "runs", "show", rid, db=db, code=2)[1] == f"error: no run {rid} in the history {db}\n"


def test_cli_sweep_and_bad_input(tmp_path, capsys):
    db = tmp_path / "runs.sqlite"
    sweep = {**SWEEP, "tree": {"generate": "path", "n": 20}}
    out = json.loads(cli_in(capsys, "run", _write(tmp_path / "s.json", sweep), "--json", "--jobs", "2",
                            "--backend", "threading", db=db)[0])
    assert len(out["runs"]) == 4 and all(r["status"] == "finished" for r in out["runs"])
    assert len(json.loads(cli_in(capsys, "runs", "list", "--json", "--sweep", out["sweep"], db=db)[0])["runs"]) == 4
    for config, msg in [({"algorithm": "hedgehog"}, "error: unknown algorithm 'hedgehog'"),
                        ({"algorithm": "treeflip", "flip": 3}, "error: flip must be in [0, 1], got 3")]:
        err = cli_in(capsys, "run", _write(tmp_path / "bad.json", config), db=db, code=2)[1]
        assert msg in err and err.strip().splitlines()[-1].startswith("error:")
    failed = json.loads(cli_in(capsys, "runs", "list", "--json", "--status", "failed", db=db)[0])["runs"]
    assert [x["status"] for x in failed] == ["failed"]


@pytest.mark.slow
def test_cli_subprocess_streams_and_one_line_errors(tmp_path):
    db = tmp_path / "runs.sqlite"
    r = cli("run", _write(tmp_path / "c.json", {"algorithm": "treeflip"}), "--json", db=db)
    assert json.loads(r.stdout)["status"] == "finished" and "[100.0%]" in r.stderr
    r = cli("run", tmp_path / "missing.json", db=db, check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "missing.json" in r.stderr
