"""Backend choice: automatic, overridden, and a requested backend that cannot run (one clear
error, never a silent fallback); ``ortrex kernels info``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

from ortrex.kernels import registry

NO_CUDA = pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")


def _python(code: str, **env: str | None) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with ``env`` changes (None removes a variable)."""
    full = dict(os.environ, COLUMNS="120")
    for k, v in env.items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, timeout=120)


def _cli(*args: str, **env: str | None) -> subprocess.CompletedProcess[str]:
    return _python("import sys; from ortrex.cli import main; sys.exit(main(sys.argv[1:]))"
                   .replace("sys.argv[1:]", repr(list(args))), **env)


@NO_CUDA
def test_triton_requested_without_cuda_or_interpreter_raises_one_clear_error(monkeypatch):
    from transformers.models.deepseek_v4 import modeling_deepseek_v4 as hf

    from ortrex.kernels import apply_ortrex_kernels

    monkeypatch.setenv("ORTREX_KERNELS", "triton")
    monkeypatch.delenv("TRITON_INTERPRET")
    before = dict(vars(hf))
    with pytest.raises(registry.KernelBackendError) as e:
        apply_ortrex_kernels(None)
    assert str(e.value) == (
        "ORTREX_KERNELS=triton cannot run on this machine: the Triton kernels need a CUDA device "
        "(torch.cuda.is_available() is False) or TRITON_INTERPRET=1 for Triton's CPU interpreter")
    assert dict(vars(hf)) == before  # nothing was patched before the refusal


@NO_CUDA
def test_cli_reports_the_unrunnable_backend_in_one_line():
    r = _cli("kernels", "info", ORTREX_KERNELS="triton", TRITON_INTERPRET=None)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "error: ORTREX_KERNELS=triton cannot run on this machine: the Triton kernels need a CUDA "
        "device (torch.cuda.is_available() is False) or TRITON_INTERPRET=1 for Triton's CPU "
        "interpreter"]


def test_interpreter_set_after_import_is_named():
    code = ("import os\nimport ortrex.kernels.swiglu_limit\nos.environ['TRITON_INTERPRET'] = '1'\n"
            "from ortrex.kernels.registry import backend\nbackend('triton')")
    r = _python(code, TRITON_INTERPRET=None)
    assert "set it before the import" in r.stderr


@pytest.mark.skipif(registry.torch_npu() is not None, reason="torch_npu is installed")
def test_npu_requested_without_torch_npu_raises():
    with pytest.raises(registry.KernelBackendError, match="backend=npu cannot run on this "
                                                          "machine: torch_npu is not installed"):
        registry.backend("npu")


def test_unknown_backend_lists_the_choices(monkeypatch):
    monkeypatch.setenv("ORTREX_KERNELS", "cuda")
    with pytest.raises(registry.KernelBackendError, match=r"ORTREX_KERNELS=cuda: unknown kernel "
                                                          r"backend \(choose one of eager, "
                                                          r"triton, npu\)"):
        registry.backend()


@NO_CUDA
def test_automatic_choice_here_is_eager_and_never_the_interpreter(monkeypatch):
    monkeypatch.delenv("ORTREX_KERNELS", raising=False)
    assert os.environ["TRITON_INTERPRET"] == "1"
    if registry.npu_status()[0]:
        pytest.skip("this machine has an NPU")
    assert registry.backend() == "eager"
    monkeypatch.setenv("ORTREX_KERNELS", "triton")
    assert registry.backend() == "triton"  # explicit: the interpreter may run it
    assert registry.backend("eager") == "eager"  # an argument beats the variable


@NO_CUDA
def test_kernels_info_says_which_backend_each_op_uses_and_why():
    r = _cli("kernels", "info", ORTREX_KERNELS=None, TRITON_INTERPRET=None)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("backend eager: no NPU (")
    for op in registry.OPS:
        row = next(ln for ln in lines if f" {op} " in ln)
        assert "eager" in row and "PyTorch reference" in row
    assert any("liger V4 patch" in ln and "off" in ln for ln in lines)
    assert any(ln.startswith("triton: unavailable (the Triton kernels need a CUDA device")
               for ln in lines)
def test_kernels_info_json_for_a_requested_backend(capsys):
    import json

    from ortrex.cli.kernel_cmds import info_cmd

    info_cmd(backend="triton", as_json=True)
    info = json.loads(capsys.readouterr().out)
    assert info["backend"] == "triton" and info["liger"]["composed"] is True
    assert [o["op"] for o in info["ops"]] == list(registry.OPS)
    assert {o["backend"] for o in info["ops"]} == {"triton"}
    assert info["available"]["triton"][0] is True


def test_every_op_is_one_row_of_the_table_and_its_row_is_what_patch_replaces():
    """The table names each op's module, its NPU functions and the transformers attributes it
    replaces; ``explain`` and ``apply_ortrex_kernels`` read nothing else."""
    import importlib

    from transformers.models.deepseek_v4 import modeling_deepseek_v4 as hf

    from ortrex.kernels import apply_ortrex_kernels, remove_ortrex_kernels
    from ortrex.kernels import deepseek_v4 as v4

    assert registry.OPS == ("swiglu_limit", "rms_norm", "rope", "moe_permute")
    assert [op.name for op in registry.ops()] == list(registry.OPS)
    for op in registry.ops():
        importlib.import_module(op.module)
        assert op.npu and all(key in v4.SWAPS for key in op.swaps)
        assert all(callable(getattr(v4, fn)) and hasattr(hf, fn) for fn in op.functions)
    with pytest.raises(ValueError, match="kernel op 'rope' registered twice"):
        registry.register_kernel(registry.KERNELS["rope"])
    try:
        apply_ortrex_kernels(None, backend="eager", liger=False, swiglu=False,
                             moe_permute=False)
        assert hf.DeepseekV4MLP is v4.HF_MLP and hf.DeepseekV4Experts is v4.HF_EXPERTS
        assert hf.DeepseekV4UnweightedRMSNorm is v4.SWAPS["rms_norm"][2]
        assert hf.apply_rotary_pos_emb is v4.apply_rotary_pos_emb
    finally:
        remove_ortrex_kernels()
    assert hf.apply_rotary_pos_emb is v4.HF_ROPE
