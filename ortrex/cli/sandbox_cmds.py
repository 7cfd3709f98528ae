"""``ortrex doctor``: which isolation layers this machine gives sandboxed programs."""

from __future__ import annotations

import json
import platform
from typing import Annotated, Any

import typer
from rich.table import Table

from ortrex.cli.app import app

# A program that reports what it can see; the doctor compares it with what is claimed.
_PROBE = """
import json, os, socket
seen = {"uid": os.getuid(), "pids": len([p for p in os.listdir("/proc") if p.isdigit()]),
        "root": sorted(os.listdir("/"))}
try:
    socket.socket(socket.AF_UNIX)
    seen["unix_socket"] = True
except OSError:
    seen["unix_socket"] = False
print(json.dumps(seen))
"""


@app.command("doctor")
def doctor_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Which isolation layers sandboxed programs get on this machine and which are missing,
    checked by running a probe program in the sandbox."""
    from ortrex.ui import console
    from ortrex.verifiers.sandbox import cgroups, isolation, landlock, syscalls
    from ortrex.verifiers.sandbox.preflight import last_line
    from ortrex.verifiers.sandbox.server import Job, Sandbox

    p = isolation.plan()
    support = isolation.support(p)
    seen: dict[str, Any]
    try:
        with Sandbox() as sb:
            r = sb.run(Job(_PROBE, capture=False))
    except (RuntimeError, OSError) as exc:  # the fork server itself could not start
        seen = {"error": str(exc)}
    else:
        try:
            seen = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            # The exception's own line, whole: the tail of a traceback cut at 300 characters
            # began mid-word and often missed the line that says what went wrong.
            seen = {"error": f"the probe ended {r.status}: "
                             f"{last_line(r.stderr) or 'with no output'}"}
    facts = {"kernel": platform.release(), "mode": p.mode, "landlock_abi": landlock.abi(),
             "seccomp": "libseccomp" if syscalls.available() else "missing",
             "cgroups": cgroups.available(), "probe": seen}
    problems = []
    if p.namespaces and seen.get("pids") not in (1, None):
        problems.append(f"the probe saw {seen.get('pids')} processes in its PID namespace")
    if p.seccomp and seen.get("unix_socket"):
        problems.append("the probe could create a Unix socket")
    if "error" in seen:
        problems.append(f"the probe did not run: {seen['error']}")
    if as_json:
        print(json.dumps({"layers": support, "facts": facts, "problems": problems}, indent=2))
    else:
        t = Table(title=f"sandbox isolation on this machine (mode: {p.mode})")
        t.add_column("layer")
        t.add_column("provided by")
        t.add_column("status")
        weak = isolation.gaps(support)
        for layer, text in support.items():
            if layer != "mode":
                t.add_row(layer, text, "[yellow]weak or missing[/]" if layer in weak else
                          "[green]present[/]")
        console.print(t)
        console.print(f"kernel {facts['kernel']}, Landlock ABI {facts['landlock_abi']}, "
                      f"seccomp {facts['seccomp']}, cgroups "
                      f"{', '.join(f'{k}: {v}' for k, v in facts['cgroups'].items()) or 'none'}")
        console.print(f"probe program: {json.dumps(seen)}")
        for line in problems:
            console.print(f"[red]problem:[/] {line}")
    if problems:
        raise typer.Exit(1)
