"""numba kernels of the numpy forward pass (``numpy_net``): everything between its matrix products.

A 3x3 convolution of ``NumpyNet`` at one position is a gather of every
point's window, one matrix product (numpy's, on BLAS: faster than a compiled
loop at these sizes) and the bias, the residual and ReLU: five numpy calls,
whose fixed costs were as much as the product's own time. These kernels do
all but the product in one call a convolution, writing into the caller's
buffers: ``gather_planes`` the input planes' windows, ``finish_and_gather``
a convolution's bias, residual and ReLU and the next convolution's windows;
``head_inputs`` and ``bias_relu`` do the same between the heads' products.
They add and compare float32 as the numpy path does, in the same order, so
the outputs are the same to the bit (``tests/test_numpy_net.py``).

Importing this module imports numba (ImportError when it is missing). The
kernels are compiled on their first call and cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def gather_planes(planes, window, cols):
    """The 3x3 windows of ``planes`` (``(B, C, points)``) into ``cols`` (``(B * points, 9 * C)``, each
    row its point's window cells in ``(kh, kw)`` order, channels innermost; 0 off the board, where
    ``window`` holds ``points``)."""
    B, C, N = planes.shape
    K = window.shape[1]
    for b in range(B):
        for p in range(N):
            row = b * N + p
            for k in range(K):
                q = window[p, k]
                if q < N:
                    for c in range(C):
                        cols[row, k * C + c] = planes[b, c, q]
                else:
                    for c in range(C):
                        cols[row, k * C + c] = np.float32(0.0)


@njit(cache=True)
def finish_and_gather(y, bias, residual, use_residual, out, window, cols, gather):
    """``out = max(y + bias (+ residual), 0)`` (``y``: a convolution's product ``(B * points, C)``,
    ``out`` and ``residual``: ``(B, points, C)``, possibly the same array), then, where ``gather``,
    the 3x3 windows of ``out`` into ``cols`` as ``gather_planes`` lays them out."""
    B, N, C = out.shape
    zero = np.float32(0.0)
    for b in range(B):
        for p in range(N):
            row = b * N + p
            for c in range(C):
                v = y[row, c] + bias[c]
                if use_residual:
                    v = residual[b, p, c] + v
                out[b, p, c] = v if v > zero or v != v else zero
    if not gather:
        return
    K = window.shape[1]
    for b in range(B):
        for p in range(N):
            row = b * N + p
            for k in range(K):
                q = window[p, k]
                if q < N:
                    for c in range(C):
                        cols[row, k * C + c] = out[b, q, c]
                else:
                    for c in range(C):
                        cols[row, k * C + c] = zero


@njit(cache=True)
def head_inputs(policy, policy_bias, value, value_bias, policy_out, value_out):
    """The heads' 1x1 convolutions finished: ``policy_out[b, c * points + p] = max(policy[b, p, c] +
    policy_bias[c], 0)`` (channels first, as the policy layer reads them) and ``value_out[b, p] =
    max(value[b, p, 0] + value_bias[0], 0)``."""
    B, N, C = policy.shape
    zero = np.float32(0.0)
    for b in range(B):
        for p in range(N):
            for c in range(C):
                v = policy[b, p, c] + policy_bias[c]
                policy_out[b, c * N + p] = v if v > zero or v != v else zero
            v = value[b, p, 0] + value_bias[0]
            value_out[b, p] = v if v > zero or v != v else zero


@njit(cache=True)
def bias_relu(x, bias):
    """``x = max(x + bias, 0)`` in place, ``x`` of shape ``(B, n)``."""
    zero = np.float32(0.0)
    for b in range(x.shape[0]):
        for i in range(x.shape[1]):
            v = x[b, i] + bias[i]
            x[b, i] = v if v > zero or v != v else zero


def call_and_bind(kernel, *args):
    """Call ``kernel(*args)`` and return its compiled entry point for these arguments' types.

    numba's dispatcher works out every argument's type at each call (about 40 ns an argument); a
    forward pass calls the same kernels on the same buffers again and again, so it calls the entry
    point directly, and must pass arguments of the first call's types (dtypes, dimensions, layout,
    flags) every time. The dispatcher itself comes back where it ran an overload of other types.
    """
    kernel(*args)
    types = tuple(kernel.typeof_pyval(a) for a in args)
    return kernel.get_overload(types) if types in kernel.overloads else kernel
