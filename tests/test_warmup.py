"""The warm-up of ``workbench.serve`` (``engine.warmup``) compiles every entry-point kernel, so no
student's first click pays a compilation (which holds the interpreter for seconds)."""

import pytest

pytestmark = pytest.mark.slow


def test_warm_up_leaves_no_kernel_to_compile_on_first_use():
    from engine.warmup import compile_kernels, uncompiled_kernels

    compile_kernels()
    assert uncompiled_kernels() == []
