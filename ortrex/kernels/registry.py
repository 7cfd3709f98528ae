"""Which backend runs the fused ops: ``npu``, ``triton`` or ``eager``, and why.

Automatic choice: ``npu`` when ``torch_npu`` imports and an NPU is present, ``triton`` when
CUDA is available, ``eager`` otherwise. ``ORTREX_KERNELS=eager|triton|npu`` (or an explicit
``backend=``) overrides it; a requested backend that cannot run raises
:class:`KernelBackendError` (never a silent fallback).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from dataclasses import dataclass
from types import ModuleType

import torch

from ortrex.kernels import utils

BACKENDS = ("eager", "triton", "npu")
OPS = ("swiglu_limit", "rms_norm", "rope", "moe_permute")
ENV = "ORTREX_KERNELS"


class KernelBackendError(RuntimeError):
    """A kernel backend was requested that cannot run on this machine."""


@dataclass(frozen=True)
class OpChoice:
    """How one op runs: the backend, the implementation and the reason."""

    op: str
    backend: str
    impl: str
    why: str


@functools.cache
def torch_npu() -> ModuleType | None:
    """The ``torch_npu`` module, or None when it is not installed."""
    try:
        return importlib.import_module("torch_npu")
    except ImportError:
        return None


def npu_status() -> tuple[bool, str]:
    """Whether the npu backend can run here, and why (not)."""
    mod = torch_npu()
    if mod is None:
        return False, "torch_npu is not installed"
    npu = getattr(torch, "npu", None)
    if npu is None or not npu.is_available():
        return False, f"torch_npu {getattr(mod, '__version__', '?')} imports but no NPU is present"
    return True, f"torch_npu {getattr(mod, '__version__', '?')} with {npu.device_count()} NPU(s)"


def triton_status() -> tuple[bool, str]:
    """Whether the triton backend can run here, and why (not)."""
    if utils.triton is None:
        return False, "triton is not installed (pip install -e '.[kernels]')"
    if torch.cuda.is_available():
        return True, f"CUDA device {torch.cuda.get_device_name(0)}"
    if utils.interpreting():
        # A kernel is compiled or interpreted according to the variable at import time.
        if type(utils.cast_rtne).__name__ != "InterpretedFunction":
            return False, ("TRITON_INTERPRET=1 was set after ortrex.kernels was imported; "
                           "set it before the import")
        return True, ("no CUDA device; TRITON_INTERPRET=1 runs the kernels in Triton's CPU "
                      "interpreter")
    return False, ("the Triton kernels need a CUDA device (torch.cuda.is_available() is False) "
                   "or TRITON_INTERPRET=1 for Triton's CPU interpreter")


def _auto() -> tuple[str, str]:
    ok, why = npu_status()
    if ok:
        return "npu", why
    ok_t, why_t = triton_status()
    if ok_t and torch.cuda.is_available():
        return "triton", why_t
    return "eager", f"no NPU ({why}) and no CUDA device"


def resolve(requested: str | None = None) -> tuple[str, str]:
    """``(backend, why)``: ``requested``, else ``$ORTREX_KERNELS``, else the automatic choice."""
    source = "backend="
    if requested is None:
        requested = os.environ.get(ENV) or None
        source = f"{ENV}="
    if requested is None:
        return _auto()
    if requested not in BACKENDS:
        raise KernelBackendError(f"{source}{requested}: unknown kernel backend "
                                 f"(choose one of {', '.join(BACKENDS)})")
    if requested == "eager":
        return "eager", f"{source}eager requested"
    ok, why = triton_status() if requested == "triton" else npu_status()
    if not ok:
        raise KernelBackendError(f"{source}{requested} cannot run on this machine: {why}")
    return requested, f"{source}{requested} requested: {why}"


def backend(requested: str | None = None) -> str:
    """The backend the ops use: ``requested``, else ``$ORTREX_KERNELS``, else automatic."""
    return resolve(requested)[0]


def _npu_has(name: str) -> bool:
    mod = torch_npu()
    return mod is not None and hasattr(mod, name)


def explain(requested: str | None = None) -> list[OpChoice]:
    """How each op runs with ``requested`` (or the environment's) backend, and why."""
    name, why = resolve(requested)
    if name == "eager":
        return [OpChoice(op, "eager", "PyTorch reference", why) for op in OPS]
    if name == "triton":
        return [OpChoice(op, "triton", "Triton fwd/bwd kernels", why) for op in OPS]
    return [
        OpChoice("swiglu_limit", "npu", "clamp + torch_npu.npu_swiglu"
                 if _npu_has("npu_swiglu") else "PyTorch reference (no npu_swiglu)", why),
        OpChoice("rms_norm", "npu", "torch_npu.npu_rms_norm"
                 if _npu_has("npu_rms_norm") else "PyTorch reference (no npu_rms_norm)", why),
        OpChoice("rope", "npu", "torch_npu.npu_rotary_mul(interleave) for batch-shared cos/sin, "
                 "else PyTorch reference" if _npu_has("npu_rotary_mul")
                 else "PyTorch reference (no npu_rotary_mul)", why),
        OpChoice("moe_permute", "npu", "torch_npu.npu_moe_token_permute/_unpermute"
                 if _npu_has("npu_moe_token_permute") and _npu_has("npu_moe_token_unpermute")
                 else "PyTorch reference (no npu_moe_token_permute)", why),
    ]


def liger_status(name: str) -> tuple[bool, str]:
    """Whether Liger's DeepSeek-V4 patch can be composed with backend ``name``, and why."""
    if importlib.util.find_spec("liger_kernel") is None:
        return False, "liger-kernel is not installed (pip install -e '.[kernels]')"
    if name == "eager":
        return False, "Liger's kernels are Triton kernels; the eager backend does not run them"
    return True, f"Liger's V4 patch (RMSNorm, fused linear cross-entropy) on {name}"
