"""Differentiation: one module per family (fft, stft, conv, matmul), each with the
autograd.Functions of its ops (backward, jvp, vmap), the differentiable
dispatchers the layers above call, and the ops' Autograd-key kernels,
registered on import. Depends on complexext._ops only.
"""
from . import fft, stft, conv, matmul  # noqa: F401
