"""Extended-exponent arithmetic for the inference kernels: a number is a mantissa and an exponent.

A value is ``m * 2**e`` with ``m`` a double in [2^-128, 2^128] (or exactly 0) and ``e`` an integer
held in a double, so products never under- or overflow (a product of three mantissas stays
within 2^±384) and the exponent range is, in practice, unbounded. A sum of non-negative terms
is aligned on the largest exponent: a term more than 2^1099 below it is dropped, and relative to
the sum (which is at least 2^-384 times 2^F) it is below 2^-331, far under double precision. So
sums and products of non-negative numbers are exact to a few ulps at any magnitude, and a result
is zero only when every term is exactly zero: zero means zero mass, never an underflow.

Scaling by 2^d (d <= 0) is a table look-up (``POW2``), not ``ldexp``: in compiled code that is as
cheap as a multiply, where ``ldexp``/``frexp`` are library calls (``frexp`` is used only to
renormalise a mantissa that left its range, which is rare). A zero carries the exponent
``ZERO_E`` (-2^62), so it never wins the search for the largest exponent and needs no branch.

One source, two builds, like the kernels that use it: compiled by numba when imported as
``engine.inference._extended``, plain Python when loaded by :func:`pure_module`.
"""

from __future__ import annotations

import math

import numpy as np

from engine.jit import kernel, load_pure

__all__ = ["HI", "LO", "ZERO_E", "CLAMP", "POW2", "norm", "split", "pow2", "to_log", "to_doubles",
           "prefetch_row", "c_view", "c_view_i32", "load_pure", "pure_module"]

_PURE = __name__.endswith("_pure")

if _PURE:
    def prefetch_row(a, i):
        """A hint for the processor's cache: nothing to do in plain Python."""

    def c_view(a, start, shape):
        """``a[start:]`` seen as a C-ordered array of ``shape`` (here an ordinary NumPy view)."""
        return a[start:start + math.prod(shape)].reshape(shape)

    def c_view_i32(a, start, shape):
        """The int64 array ``a`` from item ``start`` on, seen as int32 of ``shape`` (a NumPy view)."""
        size = math.prod(shape)
        return a[start:start - (-size // 2)].view(np.int32)[:size].reshape(shape)
else:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic
    from numba.np.arrayobj import populate_array

    @intrinsic
    def c_view(typingctx, a, start, shape):
        """``a[start:]`` (a contiguous 1-d array) seen as a C-ordered array of ``shape`` (a tuple of
        integers), sharing its memory: what ``a[start:start + size].reshape(shape)`` gives, without
        reshape's checks (a call into numba's runtime, ≈ 30 ns a view). The caller guarantees that
        the range lies within ``a``.

        The view is borrowed: it holds no reference to ``a``'s memory (no reference counting, which
        for the thirteen views of an online operation cost ≈ 0.3 µs a call). So it is for compiled
        code only, used while ``a`` is alive — never returned to Python, where nothing would keep
        ``a``'s memory alive under it."""
        return _view(a, start, shape, None)

    @intrinsic
    def c_view_i32(typingctx, a, start, shape):
        """As ``c_view``, for an int64 array ``a`` seen as int32 from its item ``start`` on (the
        online model keeps node numbers of its vertices' paths at half the width); borrowed too."""
        if not (isinstance(a, types.Array) and a.dtype == types.int64):
            return None
        return _view(a, start, shape, types.int32)

    def _view(a, start, shape, dtype):
        """Signature and code of the borrowed views: ``a`` (1-d, C-ordered) from item ``start``
        on as a C-ordered array of ``shape``, of ``a``'s dtype or of ``dtype``."""
        if not (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"
                and isinstance(start, types.Integer) and isinstance(shape, types.UniTuple)
                and isinstance(shape.dtype, types.Integer)):
            return None
        nd = shape.count
        retty = a.copy(dtype=dtype or a.dtype, ndim=nd, layout="C", readonly=False)

        def codegen(context, builder, signature, args):
            src = context.make_array(signature.args[0])(context, builder, args[0])
            first = context.cast(builder, args[1], signature.args[1], types.intp)
            dims = [context.cast(builder, builder.extract_value(args[2], d), signature.args[2].dtype, types.intp)
                    for d in range(nd)]
            itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(retty.dtype)))
            strides = [itemsize] * nd
            for d in range(nd - 2, -1, -1):
                strides[d] = builder.mul(strides[d + 1], dims[d + 1])
            data = builder.bitcast(builder.gep(src.data, [first], inbounds=True),
                                   context.get_data_type(retty.dtype).as_pointer())
            out = context.make_array(retty)(context, builder)
            populate_array(out, data=data, shape=cgutils.pack_array(builder, dims),
                           strides=cgutils.pack_array(builder, strides), itemsize=itemsize,
                           meminfo=None, parent=None)
            return out._getvalue()

        return retty(a, start, shape), codegen

    @intrinsic
    def prefetch_row(typingctx, a, i):
        """Ask the processor to bring row ``i`` of the 2-d array ``a`` into its cache (LLVM's
        ``prefetch`` hint: it never faults, changes nothing and may be ignored): the lines of its
        first and its last entry, so the whole row when it spans at most two lines (a row of the
        online model's node index, 80 bytes, always spans two). The online walks issue these for
        the tables of a whole path of the decomposition tree before computing on it, so that the
        cache misses of its levels overlap instead of following each other. ``i`` must be a row
        of ``a`` (the address is formed without a bounds check)."""
        if not (isinstance(a, types.Array) and a.ndim == 2 and isinstance(i, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            aty = signature.args[0]
            ary = context.make_array(aty)(context, builder, args[0])
            zero = context.get_constant(types.intp, 0)
            last = builder.sub(builder.extract_value(ary.shape, 1), context.get_constant(types.intp, 1))
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            # named by llvmlite for its pointer mode ("llvm.prefetch.p0i8" or ".p0")
            fn = builder.module.declare_intrinsic("llvm.prefetch", [i8p], fnty)
            for col in (zero, last):
                row = context.cast(builder, args[1], signature.args[1], types.intp)
                ptr = cgutils.get_item_pointer(context, builder, aty, ary, [row, col],
                                               wraparound=False)
                # read, high temporal locality, data cache
                builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        return types.void(a, i), codegen

#: Mantissas are kept in [LO, HI] (renormalised by ``frexp`` when they leave it).
HI = 2.0 ** 128
LO = 2.0 ** -128
#: The exponent of an exact zero: far below any real exponent, finite, exact in a double.
ZERO_E = -(2.0 ** 62)
#: Terms more than 2^CLAMP below the largest one contribute exactly 0 (``POW2[CLAMP]`` is 0).
CLAMP = 1099.0
#: POW2[i] = 2^-i for i = 0..1099 (the last ones underflow to 0).
POW2 = np.ldexp(1.0, -np.arange(int(CLAMP) + 1))
LN2 = math.log(2.0)


@kernel
def norm(m, e):
    """(m, e) with the mantissa back in [LO, HI]; (0, ZERO_E) for zero."""
    if m == 0.0:
        return 0.0, ZERO_E
    if m > HI or m < LO:
        f, x = math.frexp(m)
        return f, e + x
    return m, e


@kernel
def split(x):
    """A double (0 or normal) as (mantissa, exponent)."""
    return norm(x, 0.0)


@kernel
def pow2(d):
    """2^d for d <= 0 (a float holding an integer); exactly 0 below 2^-1099.

    Callers align on the largest exponent, so d > 0 is their bug; it still never reads outside
    ``POW2`` (which compiled code would not check): 2^d, inf above 2^1023, NaN for NaN."""
    if d < -CLAMP:
        d = -CLAMP
    elif not d <= 0.0:
        return math.ldexp(1.0, int(d)) if d <= 1023.0 else (math.inf if d > 0.0 else math.nan)
    return POW2[int(-d)]


@kernel
def to_log(m, e):
    """ln(m 2^e); -inf for zero."""
    if m == 0.0:
        return -np.inf
    return np.log(m) + e * LN2


@kernel
def to_doubles(xm, xe, out, k):
    """out[a] = x[a] / 2^F in doubles for a common F, every entry down to 2^-1022 of the largest a
    normal double (smaller ones may flush to 0). Usually F is the largest exponent: then the
    entries, mantissas times 2^-(at most 800), are exact. A wider vector first has its mantissas
    normalised in place (``frexp``), since alignment on exponents alone is off by up to the
    mantissa range."""
    F = ZERO_E
    for a in range(k):
        if xm[a] > 0.0 and xe[a] > F:
            F = xe[a]
    narrow = True
    for a in range(k):
        if xm[a] > 0.0 and xe[a] - F < -800.0:
            narrow = False
    if not narrow:
        F = ZERO_E
        for a in range(k):
            if xm[a] > 0.0:
                f, x = math.frexp(xm[a])
                xm[a] = f
                xe[a] += x
                if xe[a] > F:
                    F = xe[a]
    for a in range(k):
        out[a] = xm[a] * pow2(xe[a] - F) if xm[a] > 0.0 else 0.0


def pure_module():
    """This file loaded again as plain Python (no numba): the reference build."""
    return load_pure(__name__, __file__)
