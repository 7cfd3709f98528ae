"""Which backend runs the fused ops: ``npu``, ``triton`` or ``eager``, and why.

Automatic choice: ``npu`` when ``torch_npu`` imports and an NPU is present, ``triton`` when
CUDA is available, ``eager`` otherwise. ``ORTREX_KERNELS=eager|triton|npu`` (or an explicit
``backend=``) overrides it; a requested backend that cannot run raises
:class:`KernelBackendError` (never a silent fallback).

The ops are rows of one table (``KERNELS``): the module that implements each, what runs on
each backend, the ``transformers`` DeepSeek-V4 attributes it replaces and the switch of
``apply_ortrex_kernels`` that turns it on. ``explain`` and ``patch`` read the table; a plugin
(``ortrex.plugins``) adds an op with :func:`register_kernel`.
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
from ortrex.plugins import Registry

BACKENDS = ("eager", "triton", "npu")
ENV = "ORTREX_KERNELS"


@dataclass(frozen=True)
class KernelOp:
    """One fused op: ``module`` implements it (eager reference, Triton kernels, NPU path);
    ``npu`` names the ``torch_npu`` functions its NPU path needs and ``npu_impl`` says what
    runs when they are all there (else the PyTorch reference); ``swaps`` are the keys of
    ``deepseek_v4.SWAPS`` (transformers classes) and ``functions`` the module-level functions
    of ``modeling_deepseek_v4`` it replaces; ``flag`` is its ``apply_ortrex_kernels`` switch."""

    name: str
    module: str
    flag: str
    npu: tuple[str, ...] = ()
    npu_impl: str = ""
    swaps: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    eager_impl: str = "PyTorch reference"
    triton_impl: str = "Triton fwd/bwd kernels"


# Every read loads the plugins first, so a plugin's op is listed (and patched) like these.
KERNELS: Registry[KernelOp] = Registry()


def register_kernel(op: KernelOp) -> KernelOp:
    """Add ``op`` to the kernel table (once)."""
    KERNELS.add(op.name, op, "kernel op")
    return op


BUILTIN: tuple[KernelOp, ...] = (
    KernelOp("swiglu_limit", "ortrex.kernels.swiglu_limit", "swiglu", ("npu_swiglu",),
             "clamp + torch_npu.npu_swiglu", swaps=("swiglu", "experts")),
    KernelOp("rms_norm", "ortrex.kernels.rms_norm", "rms_norm", ("npu_rms_norm",),
             "torch_npu.npu_rms_norm", swaps=("rms_norm",)),
    KernelOp("rope", "ortrex.kernels.rope", "rope", ("npu_rotary_mul",),
             "torch_npu.npu_rotary_mul(interleave) for batch-shared cos/sin, else PyTorch "
             "reference", functions=("apply_rotary_pos_emb",)),
    KernelOp("moe_permute", "ortrex.kernels.moe_permute", "moe_permute",
             ("npu_moe_token_permute", "npu_moe_token_unpermute"),
             "torch_npu.npu_moe_token_permute/_unpermute", swaps=("experts",)),
)
for _op in BUILTIN:
    register_kernel(_op)

# The built-in ops, in table order (named without reading the table: reading loads plugins).
OPS: tuple[str, ...] = tuple(op.name for op in BUILTIN)


def ops() -> tuple[KernelOp, ...]:
    """Every op of the table: the built-in ones, then the plugins'."""
    return tuple(KERNELS.values())


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


def _impl(op: KernelOp, backend_: str) -> str:
    if backend_ == "eager":
        return op.eager_impl
    if backend_ == "triton":
        return op.triton_impl
    if op.npu and all(_npu_has(f) for f in op.npu):
        return op.npu_impl
    return f"PyTorch reference (no {op.npu[0]})" if op.npu else "PyTorch reference"


def explain(requested: str | None = None) -> list[OpChoice]:
    """How each op runs with ``requested`` (or the environment's) backend, and why."""
    name, why = resolve(requested)
    return [OpChoice(op.name, name, _impl(op, name), why) for op in ops()]


def liger_status(name: str) -> tuple[bool, str]:
    """Whether Liger's DeepSeek-V4 patch can be composed with backend ``name``, and why."""
    if importlib.util.find_spec("liger_kernel") is None:
        return False, "liger-kernel is not installed (pip install -e '.[kernels]')"
    if name == "eager":
        return False, "Liger's kernels are Triton kernels; the eager backend does not run them"
    return True, f"Liger's V4 patch (RMSNorm, fused linear cross-entropy) on {name}"
