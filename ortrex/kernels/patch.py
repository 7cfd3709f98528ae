"""``apply_ortrex_kernels``: the fused ops in a ``transformers`` DeepSeek-V4 model, composed
with Liger's own V4 patch (fused linear cross-entropy, weighted RMSNorm).

Like Liger's ``apply_liger_kernel_to_*``: with ``model=None`` the module-level classes are
replaced, so models built afterwards get the fused ops; with a model, its existing modules are
switched too. RoPE is a module-level function in ``modeling_deepseek_v4``, so it is replaced
for every V4 model in the process either way (as Liger does for RoPE).
``remove_ortrex_kernels`` undoes both (tests compare patched and unpatched models).
"""

from __future__ import annotations

import logging
from typing import Any

from torch import nn

from ortrex.kernels import registry

log = logging.getLogger(__name__)

# (owner, attribute) -> the value before the first patch, so it can be put back.
_ORIGINALS: dict[tuple[Any, str], Any] = {}
_MISSING = object()
_LIGER_METHODS = ("forward", "extra_repr", "_get_name")


def _remember(owner: Any, attr: str) -> None:
    key = (owner, attr)
    if key not in _ORIGINALS:
        _ORIGINALS[key] = vars(owner).get(attr, _MISSING)


def _set(owner: Any, attr: str, value: Any) -> None:
    _remember(owner, attr)
    setattr(owner, attr, value)


def apply_ortrex_kernels(model: nn.Module | None = None, *, swiglu: bool = True,
                         rms_norm: bool = True, rope: bool = True, moe_permute: bool = True,
                         liger: bool = True, backend: str | None = None,
                         weighted_rms_norm: bool = False, rope_inplace: bool = True) -> None:
    """Swap the fused ops into DeepSeek-V4 (class-level, plus ``model``'s modules if given).

    ``swiglu``: limited SwiGLU in the dense MLP, shared and routed experts (the experts' gate
    hook); ``moe_permute``: the routed experts' grouped path over permuted tokens (routing
    probability fused into the activation); ``rope``: interleaved partial RoPE; ``rms_norm``:
    the weightless norms; ``liger``: Liger's V4 patch (fused linear cross-entropy and, unless
    ``weighted_rms_norm``, the weighted RMSNorm) where Liger can run (not on ``eager``);
    ``weighted_rms_norm``: ortrex's weighted RMSNorm (V4's exact fp32 chain) instead of
    Liger's; ``backend``: ``eager|triton|npu`` (default: ``$ORTREX_KERNELS``, else automatic;
    one that cannot run raises :class:`~ortrex.kernels.registry.KernelBackendError`).
    """
    name, why = registry.resolve(backend)
    from ortrex.kernels import deepseek_v4 as v4

    hf = v4.hf
    v4.STATE.backend = name
    v4.STATE.swiglu = swiglu
    v4.STATE.moe_permute = moe_permute
    v4.STATE.rope_inplace = rope_inplace
    # What each op replaces is its row of the kernel table; an op no switch names (a
    # plugin's) is on.
    switches = {"swiglu": swiglu, "rms_norm": rms_norm, "rope": rope, "moe_permute": moe_permute}
    chosen = [op for op in registry.ops() if switches.get(op.flag, True)]
    wanted = {key: any(key in op.swaps for op in chosen)
              for op in registry.ops() for key in op.swaps}
    # Not an op of its own: ortrex's weighted RMSNorm instead of Liger's.
    wanted["weighted_rms_norm"] = weighted_rms_norm
    for key, on in wanted.items():
        attr, _, ours = v4.SWAPS[key]
        if on:
            _set(hf, attr, ours)
    for op in chosen:
        for fn in op.functions:
            _set(hf, fn, getattr(v4, fn))

    use_liger, liger_why = registry.liger_status(name) if liger else (False, "liger=False")
    if use_liger:
        from liger_kernel.transformers import apply_liger_kernel_to_deepseek_v4

        _remember(hf, "DeepseekV4RMSNorm")
        _remember(hf.DeepseekV4ForCausalLM, "forward")
        apply_liger_kernel_to_deepseek_v4(rope=False, swiglu=False,
                                          rms_norm=not weighted_rms_norm,
                                          fused_linear_cross_entropy=True, model=model)
    log.info("ortrex kernels on %s (%s); liger: %s", name, why, liger_why)

    if model is not None:
        for module in model.modules():
            for key, on in wanted.items():
                _, base, ours = v4.SWAPS[key]
                if on and type(module) is base:
                    module.__class__ = ours


def remove_ortrex_kernels(model: nn.Module | None = None) -> None:
    """Undo :func:`apply_ortrex_kernels` (and the Liger patch it applied)."""
    for (owner, attr), value in list(_ORIGINALS.items()):
        if value is _MISSING:
            if attr in vars(owner):
                delattr(owner, attr)
        else:
            setattr(owner, attr, value)
    _ORIGINALS.clear()
    if model is None:
        return
    from ortrex.kernels import deepseek_v4 as v4

    ours = {o: base for _, base, o in v4.SWAPS.values()}
    for module in model.modules():
        if type(module) in ours:
            module.__class__ = ours[type(module)]
        for attr in _LIGER_METHODS:
            fn = module.__dict__.get(attr)
            if fn is not None and str(getattr(fn, "__module__", "")).startswith("liger_kernel"):
                del module.__dict__[attr]
