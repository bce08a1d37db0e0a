"""The engine on its own: ``pip install .`` (no extra) is the engine and its command line, without
Streamlit, Plotly, pandas, matplotlib, segno, orjson or psycopg (the ``app`` and ``postgres``
extras of pyproject.toml; ``make run`` installs the app).

What is guaranteed, from the cheapest check to the most faithful:

* every import anywhere in ``engine/`` (inside functions too) is the standard library, the engine,
  or a package that the core dependencies install; any other is optional, named in
  :data:`OPTIONAL` with the extra that installs it, and guarded by ``except ImportError``;
* without pandas the large-file readers give the same numbers (its fast paths are optional), without
  pgmpy ``bench online`` leaves its pgmpy column empty, and a ``postgresql://`` run history without
  psycopg is one error line naming the extra to install;
* in a fresh virtual environment holding the project (built and installed with
  ``pip install --no-deps``) and only the core dependencies, ``import engine`` and a few engine
  commands work and ``streamlit``, ``plotly`` and ``psycopg`` cannot be imported (a slow test).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from functools import cache
from importlib.metadata import Distribution, distribution, packages_distributions
from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = canonicalize_name(PYPROJECT["project"]["name"])

#: the modules only the app (or the reports it draws) imports: never installed by ``pip install .``
APP_ONLY = ("streamlit", "plotly", "pandas", "matplotlib", "segno", "orjson", "psycopg", "psycopg_pool")

#: the modules the engine may import without depending on them: import name -> the extra that
#: installs it, and what the engine does without it
OPTIONAL = {
    "pandas": ("app", "the large tree and ARFF readers' C fast paths; without it the same numbers, slower"),
    "psycopg": ("postgres", "a postgresql:// run history or class store; without it one error line"),
    "psycopg_pool": ("postgres", "as psycopg"),
    "pgmpy": ("test", "bench online's pgmpy column (n <= 300); without it the column is empty"),
    "distributed": ("test", "the dask backend of sweeps (dask[distributed]); without it one error line"),
}


# -- the dependency layout, read from pyproject.toml and the installed packages' metadata ---------

def closure(requirements, extras=("",)) -> dict[str, Distribution]:
    """Every distribution that ``requirements`` install (their own requirements too, extras followed;
    this project's own extras read from pyproject.toml), by canonical name, as this environment has
    them: what pip would install for them."""
    found: dict[str, Distribution] = {}
    todo = [(Requirement(r), tuple(extras)) for r in requirements]
    done = set()
    while todo:
        req, active = todo.pop()
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in active):
            continue
        name = canonicalize_name(req.name)
        key = (name, tuple(sorted(req.extras)))
        if key in done:
            continue
        done.add(key)
        if name == PROJECT:   # a self-reference (app -> postgres): the extras as declared here
            optional = PYPROJECT["project"]["optional-dependencies"]
            todo += [(Requirement(r), ("",)) for e in req.extras for r in optional[e]]
            continue
        dist = distribution(req.name)
        found[name] = dist
        todo += [(Requirement(r), ("", *req.extras)) for r in dist.requires or ()]
    return found


@cache
def core() -> dict[str, Distribution]:
    """What ``pip install .`` installs besides the project: the closure of ``dependencies``."""
    return closure(PYPROJECT["project"]["dependencies"])


def extra(name: str) -> dict[str, Distribution]:
    return closure(PYPROJECT["project"]["optional-dependencies"][name])


@cache
def _module_index() -> dict[str, list[str]]:
    return packages_distributions()   # (a walk over every installed package's file list)


def module_distributions(module: str) -> set[str]:
    return {canonicalize_name(d) for d in _module_index().get(module, ())}


def test_the_core_dependencies_hold_no_app_package():
    app_dists = set().union(*(module_distributions(m) for m in APP_ONLY))
    assert app_dists, "the app's packages are installed here (make test installs .[app,test])"
    assert not app_dists & set(core()), sorted(app_dists & set(core()))
    assert app_dists <= set(extra("app")), sorted(app_dists - set(extra("app")))


def _guarded(tree: ast.AST) -> set[int]:
    """The ids of the import nodes inside a ``try`` whose handlers catch ImportError."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                h.type is not None and {n.id for n in ast.walk(h.type) if isinstance(n, ast.Name)}
                & {"ImportError", "ModuleNotFoundError"} for h in node.handlers):
            out |= {id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return out


def engine_imports() -> list[tuple[str, str, int, bool]]:
    """(top-level module, file, line, guarded by ``except ImportError``) for every absolute import
    of a third-party module anywhere in engine/ (inside functions too)."""
    out = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded = _guarded(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("engine", "__future__"):
                    out.append((top, str(path.relative_to(ROOT)), node.lineno, id(node) in guarded))
    return out


def test_every_engine_import_is_a_core_dependency_or_optional_and_guarded():
    core_dists = set(core())
    imports = engine_imports()
    assert any(top == "numpy" for top, *_ in imports)   # the walk sees the engine
    bad = []
    for top, where, line, guarded in imports:
        if module_distributions(top) & core_dists:
            continue
        if top not in OPTIONAL:
            bad.append(f"{where}:{line} imports {top}, which `pip install .` does not install: make it a core "
                       "dependency (pyproject.toml) or optional (OPTIONAL here, an extra, except ImportError)")
        elif not guarded:
            bad.append(f"{where}:{line} imports the optional {top} outside a try/except ImportError")
    assert not bad, "\n".join(bad)


def test_each_optional_module_is_in_the_extra_named_for_it():
    for module, (name, _why) in OPTIONAL.items():
        dists = module_distributions(module)
        assert dists and dists & set(extra(name)), f"{module} is not installed by the {name!r} extra"
        assert not dists & set(core()), f"{module} is optional but a core dependency installs it"


# -- what the engine does without each optional module -------------------------------------------

@pytest.fixture
def without(monkeypatch):
    """``without("pandas")``: importing the module raises ImportError for the rest of the test."""
    def block(*modules):
        for m in modules:
            for name in [k for k in sys.modules if k == m or k.startswith(m + ".")]:
                monkeypatch.delitem(sys.modules, name)
            monkeypatch.setitem(sys.modules, m, None)
    return block


def test_large_named_trees_are_numbered_the_same_without_pandas(without):
    from engine.trees.formats.common import tree_from_names

    rng = np.random.default_rng(3)
    n = 30_000   # above the 20,000 names of tree_from_names' fast path
    labels = [f"v{x}" for x in rng.permutation(n)]
    pairs = [(labels[int(rng.integers(0, i))], labels[i]) for i in range(1, n)]
    vertices = ["lonely", labels[7]]
    pairs.append(("lonely", labels[0]))
    root = labels[n // 2]
    with_pandas = tree_from_names(pairs, vertices=vertices, root=root)
    without("pandas")
    alone = tree_from_names(pairs, vertices=vertices, root=root)
    assert alone.names == with_pandas.names and alone.names[:2] == ("lonely", labels[7])
    assert np.array_equal(alone.parent, with_pandas.parent) and alone.root == with_pandas.root
    from engine.errors import UnknownVertexError

    with pytest.raises(UnknownVertexError, match="root nobody is not a vertex"):
        tree_from_names(pairs, vertices=vertices, root="nobody")


def test_arff_files_read_the_same_without_pandas(tmp_path, without):
    from engine.multilabel import data as md

    rng = np.random.default_rng(5)
    m = 300
    x = rng.standard_normal((m, 3)) * 10.0 ** rng.integers(-12, 12, (m, 3))
    colour = rng.choice(["red", "green", "blue"], m)
    y = rng.integers(0, 2, (m, 2))
    rows = [f"{float(x[i, 0])!r},{colour[i]},{float(x[i, 1])!r}, {x[i, 2]:.17g},{y[i, 0]},{y[i, 1]}" for i in range(m)]
    head = ["@relation toy", "@attribute a numeric", "@attribute colour {red,green,blue}", "@attribute b numeric",
            "@attribute c numeric", "@attribute l1 {0,1}", "@attribute l2 {0,1}", "@data"]
    path = tmp_path / "toy.arff"
    path.write_text("\n".join(head + rows) + "\n")
    nominal = {1: {"red": 0, "green": 1, "blue": 2}, 4: {"0": 0, "1": 1}, 5: {"0": 0, "1": 1}}
    assert md._dense_block(rows, 6, nominal) is not None   # pandas read it
    with_pandas = md.read_arff(path, labels=2)
    without("pandas")
    assert md._dense_block(rows, 6, nominal) is None   # the line reader's turn
    alone = md.read_arff(path, labels=2)
    assert np.array_equal(alone.X, with_pandas.X) and np.array_equal(alone.Y, with_pandas.Y)
    assert alone.X.dtype == with_pandas.X.dtype and alone.Y.dtype == with_pandas.Y.dtype
    assert (alone.feature_names, alone.label_names) == (with_pandas.feature_names, with_pandas.label_names)


def test_bench_online_leaves_the_pgmpy_column_empty_without_pgmpy(without, capsys):
    from engine.bench import online

    without("pgmpy")
    online._say_no_pgmpy.cache_clear()
    assert online._pgmpy_time(None, None, None) is None and online._pgmpy_time(None, None, None) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pgmpy is not installed" in err, err   # said once


def test_a_postgres_history_without_psycopg_is_one_line_naming_the_extra(without):
    from engine.db import POSTGRES_EXTRA, open_database
    from engine.errors import InvalidParameterError

    assert canonicalize_name(Requirement(POSTGRES_EXTRA).name) == PROJECT
    assert Requirement(POSTGRES_EXTRA).extras <= set(PYPROJECT["project"]["optional-dependencies"])
    without("psycopg", "psycopg_pool")
    with pytest.raises(InvalidParameterError) as exc:
        open_database("postgresql://ana:s3cret@127.0.0.1:1/runs", component="runs", migrations=[])
    msg = str(exc.value)
    assert "\n" not in msg and f"pip install '{POSTGRES_EXTRA}'" in msg and "s3cret" not in msg, msg


# -- a fresh virtual environment with the engine's dependencies only -----------------------------

def engine_only_venv(where: Path) -> Path:
    """A virtual environment under ``where`` holding this checkout's project, built and installed by
    pip (``--no-deps``, not editable), and the core dependencies only: ``python -m venv`` without
    system site-packages, and one ``.pth`` file naming a folder of links to exactly the packages of
    :func:`core` as this environment has them (no download; pip fetches only the build backend,
    setuptools, from the package index or its cache). Returns the environment's ``python``."""
    deps = where / "core-dependencies"
    deps.mkdir(parents=True)
    for dist in core().values():
        assert dist.files, f"{dist.metadata['Name']} lists no files (RECORD): cannot expose it alone"
        for top in sorted({p.parts[0] for p in dist.files}):
            if top not in ("..", "__pycache__") and not top.endswith(".pth"):
                (deps / top).symlink_to(Path(dist.locate_file(top)))
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "core_dependencies.pth").write_text(f"{deps}\n")
    # the project as `pip install .` builds it, from a copy (a build in the checkout would leave build/
    # beside other processes' work)
    src = where / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in ("engine", "workbench"):
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    built = subprocess.run([*pip, "install", "-qq", "--no-deps", "--no-compile", str(src)],
                           capture_output=True, text=True)
    assert built.returncode == 0, f"pip could not build and install the project: {built.stderr[-2000:]}"
    checked = subprocess.run([*pip, "check"], capture_output=True, text=True)   # the core closure is whole
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return python


@pytest.mark.slow
def test_the_engine_and_its_commands_without_the_app(tmp_path):
    t0 = time.perf_counter()
    python = engine_only_venv(tmp_path)
    built = time.perf_counter() - t0
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "TREE_WORKBENCH_DB_URL")}
    env |= {"PYTHONNOUSERSITE": "1", "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
            "TREE_WORKBENCH_DB": str(work / "runs.sqlite")}

    def run(*args):   # in the work folder: the checkout is not on the path
        return subprocess.run([str(python), *map(str, args)], cwd=work, env=env, capture_output=True, text=True)

    probe = run("-c", """if True:
        import importlib, importlib.util, json, pkgutil, sys
        import engine
        absent = [m for m in %r if importlib.util.find_spec(m) is None]
        for m in pkgutil.walk_packages(engine.__path__, "engine."):   # every module of the engine imports
            if m.name != "engine.__main__":
                importlib.import_module(m.name)
        print(json.dumps({"engine": engine.__file__, "absent": absent}))
        """ % (APP_ONLY,))
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout)
    assert Path(seen["engine"]).is_relative_to(python.parent.parent), seen   # the installed copy
    assert seen["absent"] == list(APP_ONLY), seen   # streamlit, plotly, psycopg, ...: none importable

    out = run("-m", "engine", "--help")   # lessons: the app's declarations need no app package
    assert out.returncode == 0 and "convert" in out.stdout and "lessons" in out.stdout, out.stderr
    out = run("-m", "engine", "convert", ROOT / "sample_trees" / "primates.nwk", "primates.graphml")
    assert out.returncode == 0, out.stderr
    out = run("-m", "engine", "convert", "primates.graphml", "primates.json")
    assert out.returncode == 0, out.stderr
    out = run("-m", "engine", "info", "primates.json")
    assert out.returncode == 0 and "leaves" in out.stdout, out.stderr
    (work / "chowliu.json").write_text('{"algorithm": "chowliu", "seed": 0}')
    out = run("-m", "engine", "run", "chowliu.json", "--quiet")
    assert out.returncode == 0 and "finished" in out.stdout, out.stderr
    out = run("-m", "engine", "runs", "list")
    assert out.returncode == 0 and "chowliu" in out.stdout, out.stderr
    out = run("-m", "engine", "runs", "list", "--db", "postgresql://ana:s3cret@127.0.0.1:1/runs")
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "pip install 'tree-inference-workbench[postgres]'" in out.stderr and "s3cret" not in out.stderr
    print(f"engine-only venv: built and installed in {built:.1f} s, "
          f"{time.perf_counter() - t0 - built:.1f} s for the import probe and 8 commands")
