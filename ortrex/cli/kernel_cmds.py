"""`ortrex kernels info`: which backend runs each fused DeepSeek-V4 op here, and why."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from ortrex.cli.app import app

kernels_app = typer.Typer(rich_markup_mode=None, no_args_is_help=True,
                          help="Fused DeepSeek-V4 kernels (limited SwiGLU, RMSNorm, RoPE, "
                               "MoE permute).")
app.add_typer(kernels_app, name="kernels")


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


@kernels_app.command("info")
def info_cmd(
    backend: Annotated[str | None, typer.Option(
        help="Ask about this backend (eager, triton, npu) instead of $ORTREX_KERNELS / the "
             "automatic choice.", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Which backend each op uses here and why; whether Liger's V4 patch composes with it."""
    from ortrex.kernels import registry
    from ortrex.ui import console

    choices = registry.explain(backend)
    name = choices[0].backend
    liger_ok, liger_why = registry.liger_status(name)
    triton_ok, triton_why = registry.triton_status()
    npu_ok, npu_why = registry.npu_status()
    facts = {
        "torch": _version("torch"), "triton": _version("triton"),
        "transformers": _version("transformers"), "liger-kernel": _version("liger-kernel"),
        "torch_npu": _version("torch_npu"),
    }
    if as_json:
        print(json.dumps({
            "backend": name,
            "ops": [vars(c) for c in choices],
            "liger": {"composed": liger_ok, "why": liger_why},
            "available": {"eager": [True, "always"], "triton": [triton_ok, triton_why],
                          "npu": [npu_ok, npu_why]},
            "versions": facts,
        }, indent=2))
        return
    console.print(f"backend [bold]{name}[/]: {choices[0].why}")
    t = Table(title="ortrex kernels on this machine")
    t.add_column("op")
    t.add_column("backend")
    t.add_column("implementation")
    for c in choices:
        t.add_row(c.op, c.backend, c.impl)
    t.add_row("liger V4 patch", "liger" if liger_ok else "off",
              "RMSNorm, fused linear cross-entropy" if liger_ok else liger_why)
    console.print(t)
    for other, (ok, why) in (("triton", (triton_ok, triton_why)), ("npu", (npu_ok, npu_why))):
        console.print(f"{other}: {'available' if ok else 'unavailable'} ({why})")
    console.print(", ".join(f"{k} {v}" for k, v in facts.items()))
