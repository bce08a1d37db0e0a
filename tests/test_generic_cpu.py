"""The pinned tests pass on the code paths of another CPU: numba compiling for a baseline CPU, NumPy
without its SIMD loops, OpenBLAS on its oldest kernels.

A test that checks numbers recorded on one machine (:data:`PINNED`) must pass on any x86-64 or
arm64 machine: exact where the maths is exact, within a stated tolerance where the last bits depend
on the CPU. One machine cannot be another CPU, but it can take the code paths another CPU takes:

- ``NUMBA_CPU_NAME=generic``: numba compiles every kernel for the baseline of the architecture
  (SSE2 on x86-64, no AVX) instead of for this CPU, into a cache of its own (``generic-cpu`` inside
  the kernel cache, so machine code for two CPUs is not mixed and ``make clean`` removes it);
- ``NPY_DISABLE_CPU_FEATURES``: NumPy leaves the SIMD loops it would pick for this CPU (AVX2 and
  AVX-512 here: ``exp``, ``log``, ...) for its baseline loops;
- ``OPENBLAS_CORETYPE``: OpenBLAS (NumPy's and SciPy's) runs its Prescott kernels (SSE3) on x86-64
  and ARMV8 on arm64 instead of the ones it picks for this CPU (SkylakeX here). A BLAS that does not
  read the variable runs as usual; the lane prints which kernels ran (threadpoolctl's names).

``make test-generic-cpu`` (``python -m tests.test_generic_cpu``) runs the lane; the test below runs
it in a subprocess as part of ``make test`` (marked slow: it is not in ``make test-fast``).
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PINNED = ("tests/test_multilabel_pins.py", "tests/test_link_states.py",
          "tests/test_htmm_models.py::test_sp_defaults_unchanged_by_the_authors_options")
BASELINE_BLAS = {"x86_64": "Prescott", "AMD64": "Prescott", "aarch64": "ARMV8", "arm64": "ARMV8"}
LIMIT = 600   # seconds; about 60 s with the generic kernels cached, about 2 min compiling them first

# what the lane runs in its own process: which code paths it took, then the pinned tests (not the
# slow ones: the CLI's two processes compile nothing numba does not compile in the tests before)
_LANE = """
import sys
import numba, numpy, scipy.linalg, threadpoolctl, pytest
blas = sorted({f"{i.get('internal_api')} {i.get('architecture')}" for i in threadpoolctl.threadpool_info()
               if i.get("user_api") == "blas"})
print(f"generic-CPU lane: numba compiles for {numba.config.CPU_NAME!r} (features {numba.config.CPU_FEATURES!r}) "
      f"into {numba.config.CACHE_DIR}; NumPy's SIMD loops: "
      f"{numpy.show_config(mode='dicts').get('SIMD Extensions', {}).get('found') or 'baseline only'}; "
      f"BLAS kernels: {', '.join(blas)}", flush=True)
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-m", "not slow", *sys.argv[1:]]))
"""


def generic_cpu_env(base: dict | None = None) -> dict:
    """``base`` (the environment) with numba, NumPy and OpenBLAS on their baseline code paths."""
    import numpy as np

    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}   # the lane is a pytest of its own
    cache = Path(env.get("NUMBA_CACHE_DIR") or ROOT / ".numba_cache") / "generic-cpu"
    found = np.show_config(mode="dicts").get("SIMD Extensions", {}).get("found") or []
    env.update(NUMBA_CPU_NAME="generic", NUMBA_CACHE_DIR=str(cache), NPY_DISABLE_CPU_FEATURES=" ".join(found))
    env.pop("NUMBA_CPU_FEATURES", None)     # generic means no features: numba's default for it
    blas = BASELINE_BLAS.get(platform.machine())
    if blas:
        env["OPENBLAS_CORETYPE"] = blas
    else:
        env.pop("OPENBLAS_CORETYPE", None)
    return env


def run_lane(args=(), **options) -> subprocess.CompletedProcess:
    """The pinned tests (or ``args``: pytest's) in a new process on the baseline code paths."""
    return subprocess.run([sys.executable, "-c", _LANE, *(args or PINNED)], cwd=ROOT, env=generic_cpu_env(),
                          **options)


@pytest.mark.slow
def test_the_pinned_tests_pass_on_baseline_code_paths():
    start = time.monotonic()
    try:
        r = run_lane(capture_output=True, text=True, timeout=LIMIT)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
        pytest.fail(f"the pinned tests on baseline code paths (make test-generic-cpu) did not finish within "
                    f"{LIMIT} s; compiling the generic kernels the first time takes about 2 min of CPU. "
                    f"Output so far:\n{out[-3000:]}")
    seconds = time.monotonic() - start
    print(r.stdout.splitlines()[0] if r.stdout else "", f"({seconds:.0f} s)")
    assert r.returncode == 0, (f"the pinned tests fail on baseline code paths (numba for a generic CPU, NumPy "
                               f"and OpenBLAS without their SIMD kernels); run make test-generic-cpu:\n"
                               f"{r.stdout[-6000:]}\n{r.stderr[-2000:]}")


if __name__ == "__main__":
    sys.exit(run_lane(sys.argv[1:]).returncode)
