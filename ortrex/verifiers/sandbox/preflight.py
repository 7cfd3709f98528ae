"""Can this machine run sandboxed programs at all? One probe before a job that needs them."""

from __future__ import annotations

from functools import cache

_PROBE = "print('ortrex-sandbox-ok')"


def last_line(text: str) -> str:
    """The last non-empty line of ``text`` (a traceback's exception), whole."""
    return next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")


@cache
def why_not() -> str | None:
    """None when a trivial program runs in the sandbox here, else one line saying why not
    (the fork server's or the program's own last error line)."""
    from ortrex.verifiers.sandbox.server import Job, Sandbox

    try:
        with Sandbox() as sb:
            r = sb.run(Job(_PROBE, capture=False))
    except (RuntimeError, OSError) as exc:
        return str(exc)
    if r.status == "ok" and "ortrex-sandbox-ok" in r.stdout:
        return None
    return f"a probe program ended {r.status}: {last_line(r.stderr) or 'with no output'}"
