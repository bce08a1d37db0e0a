"""House rules: the engine never imports the UI, and the CLI answers bad input in one line."""

import subprocess
import sys

from tests.conftest import ROOT


def test_engine_does_not_import_ui():
    code = ("import sys, engine, engine.trees, engine.cli, engine.runs.protocol\n"
            "import pkgutil, importlib\n"
            "for m in pkgutil.walk_packages(engine.__path__, 'engine.'):\n"
            "    if not m.name.endswith('__main__'): importlib.import_module(m.name)\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_only_the_command_line_imports_the_command_line():
    """The CLI sits on top: no engine module outside ``engine/cli`` (and ``__main__``) imports it."""
    import ast

    offenders = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("engine/cli/") or rel == "engine/__main__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{rel}: {n}" for n in names if n == "engine.cli" or n.startswith("engine.cli.")]
    assert not offenders, offenders


def test_cli_help_lists_commands():
    out = subprocess.run([sys.executable, "-m", "engine", "--help"], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    for cmd in ("info", "convert", "generate", "lessons"):   # lessons: the declarations' entry point
        assert cmd in out


def test_cli_unknown_command_is_one_line():
    r = subprocess.run([sys.executable, "-m", "engine", "frobnicate"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2
    assert r.stderr.startswith("error:") and r.stderr.count("\n") == 1


def test_print_json_writes_non_finite_numbers_as_null(capsys):
    import json

    import numpy as np

    from engine.jsonio import print_json

    print_json({"a": float("nan"), "b": [1.0, np.inf, np.float64("nan")], "c": np.array([0.5, -np.inf])})
    assert json.loads(capsys.readouterr().out) == {"a": None, "b": [1.0, None, None], "c": [0.5, None]}


def test_generator_spec_without_seed_is_reproducible():
    from engine.trees.spec import tree_from_spec

    a = tree_from_spec({"generate": "random", "n": 31})
    b = tree_from_spec({"generate": "random", "n": 31})
    assert a == b


def test_ruff_is_clean():
    """``ruff check .`` with the rules of pyproject.toml (also run by ``make lint`` and ``.ci/run``)."""
    import importlib.util

    import pytest

    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    r = subprocess.run([sys.executable, "-m", "ruff", "check", ".", "--output-format", "concise"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-500:]
