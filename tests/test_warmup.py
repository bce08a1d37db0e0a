"""The warm-up of ``workbench.serve`` (``engine.warmup``) compiles every entry-point kernel, so no
student's first click pays a compilation (which holds the interpreter for seconds)."""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

_PROBE = """
import json
from engine.warmup import compile_kernels, uncompiled_kernels
compile_kernels()
print(json.dumps(uncompiled_kernels()))
"""


def test_warm_up_leaves_no_kernel_to_compile_on_first_use():
    # in a fresh process: in this one, earlier tests may have compiled what the warm-up misses
    # (the compiled tree readers and the batch verbs once were; only a fresh server showed it)
    done = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=dict(os.environ),
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_stamp_names_the_same_sources_run_as_a_command_or_imported(monkeypatch):
    """``python -m engine.warmup`` (``make test``) and a server that imports it write one stamp: when
    they listed different kernel modules, each reset what the other had recorded as compiled, and the
    next ``make test`` or server start loaded every stage again. Run as a command, the module's
    ``__name__`` is ``"__main__"``."""
    from engine import warmup

    imported = warmup.kernel_modules()
    monkeypatch.setitem(vars(warmup), "__name__", "__main__")
    assert warmup.kernel_modules() == imported
    assert "engine.warmup" not in imported and "engine.trees._kernels" in imported
