"""Fused kernels for DeepSeek-V4 training: eager reference, Triton and torch_npu, one file per op.

``apply_ortrex_kernels(model_or_None, ...)`` swaps them into a ``transformers`` DeepSeek-V4
model; ``registry.backend()`` says which backend runs them here.
"""

from ortrex.kernels.patch import apply_ortrex_kernels, remove_ortrex_kernels
from ortrex.kernels.registry import KernelBackendError, backend

__all__ = ["KernelBackendError", "apply_ortrex_kernels", "backend", "remove_ortrex_kernels"]
