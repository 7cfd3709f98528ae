"""Fused kernels: eager reference, Triton and torch_npu implementations, one file per op."""
