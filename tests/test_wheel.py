"""The package installs like one: a built wheel in a fresh virtual environment runs the job."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*cmd: str | Path, cwd: Path | None = None, timeout: float = 900
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def test_a_built_wheel_installs_in_a_fresh_venv_and_runs_the_pipeline(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    r = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", ROOT, "-w", dist)
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = dist.glob("ortrex-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "ortrex/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith("/LICENSE")
               for n in names), sorted(n for n in names if "dist-info" in n)
    assert not any(n.startswith("tests/") for n in names)  # the package, not the checkout
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", venv).returncode == 0
    r = _run(venv / "bin" / "pip", "install", "-q", wheel)
    assert r.returncode == 0, r.stdout + r.stderr
    work = tmp_path / "work"  # away from the checkout: nothing can come from it
    work.mkdir()
    r = _run(venv / "bin" / "python", "-c", "import ortrex; print(ortrex.__file__)", cwd=work)
    assert r.returncode == 0 and str(venv) in r.stdout, r.stdout + r.stderr
    r = _run(venv / "bin" / "ortrex", "pipeline", "--count", "5", cwd=work)
    assert r.returncode == 0, r.stderr
    assert "accepted" in r.stdout and (work / "ortrex.duckdb").exists()
    r = _run(venv / "bin" / "ortrex", "sql", "SELECT count(*) AS n, count(*) FILTER (WHERE "
             "status = 'accepted') AS ok FROM documents", "--format", "csv", cwd=work)
    assert r.returncode == 0, r.stderr
    n, ok = (int(x) for x in r.stdout.split()[-1].split(","))
    assert n == 5 * 3 * 2 and ok > 0  # five instances, three forms, CPT and SFT each
