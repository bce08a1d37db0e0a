"""Fast start: registering the commands imports no numerical library (``--help`` answers at once)."""

import subprocess
import sys

HEAVY = ("numpy", "scipy", "numba", "pandas", "sklearn", "networkx", "joblib", "streamlit", "plotly")


def test_help_imports_no_numerical_library():
    code = ("import sys\nfrom engine.cli import build_parser\nbuild_parser()\n"
            f"print(','.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == ""


def test_help_lists_every_command():
    out = subprocess.run([sys.executable, "-m", "engine", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    for cmd in ("bench", "cover", "info", "generate", "rta"):
        assert cmd in out.stdout


def test_bench_help_is_handed_to_the_benchmarks_parser():
    out = subprocess.run([sys.executable, "-m", "engine", "bench", "--help"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and "online" in out.stdout
    out = subprocess.run([sys.executable, "-m", "engine", "bench", "nope"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2 and out.stderr.startswith("error: ") and "nope" in out.stderr


def test_generator_names_match_the_generators():
    from engine.cli.trees import GENERATOR_NAMES
    from engine.trees.generators import GENERATORS

    assert GENERATOR_NAMES == tuple(sorted(GENERATORS))
