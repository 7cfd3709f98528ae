"""A machine that defeats every task ends the job with one line and a non-zero exit."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli


def _broken_site(tmp_path: Path) -> dict[str, str]:
    """A site hook that works for the user's own Python (its marker is set) but fails in the
    sandbox's fork server, whose environment is allow-listed: a real, broken environment."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import os\nif not os.environ.get('SITE_MARKER'):\n"
        "    raise SystemExit('this site hook cannot find its data')\n")
    return {"PYTHONPATH": str(site), "SITE_MARKER": "1"}


def test_a_sandbox_that_cannot_start_refuses_the_job_at_its_start(tmp_path: Path) -> None:
    env = _broken_site(tmp_path)
    db = tmp_path / "s.duckdb"
    for args in (("pipeline", "--count", "3", "--families", "knapsack_01"),
                 ("render", "--limit", "1")):
        r = run_cli(*args, "--db", str(db), env=env)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert lines == ["error: sandboxed programs cannot run on this machine: sandbox fork "
                         "server did not start: SystemExit: this site hook cannot find its "
                         "data (`ortrex doctor` says more)"], r.stderr
    assert not db.exists()  # refused before anything was written


def test_doctor_names_the_cause_whole(tmp_path: Path) -> None:
    r = run_cli("doctor", "--json", env=_broken_site(tmp_path))
    assert r.returncode == 1, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert out["problems"] == ["the probe did not run: sandbox fork server did not start: "
                               "SystemExit: this site hook cannot find its data"]
    assert "Traceback" not in r.stdout + r.stderr and "Fatal Python error" not in r.stderr


def test_a_broken_solver_licence_stops_generation_with_one_line(tmp_path: Path) -> None:
    lic = tmp_path / "gurobi.lic"
    lic.write_text("this is not a licence\n")
    db = tmp_path / "g.duckdb"
    r = run_cli("generate", "--count", "3", "--families", "knapsack_01", "--workers", "1",
                "--db", str(db), env={"GRB_LICENSE_FILE": str(lic)}, timeout=300)
    assert r.returncode == 1, r.stderr
    (line,) = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert line.startswith("error: all 64 tasks of this run ended the same way (failed: "
                           "GurobiError:"), line
    assert "nothing was accepted" in line and "licence" in line
    rows = json.loads(run_cli("sql", "SELECT outcome, count(*) AS n FROM run_tasks GROUP BY 1",
                              "--db", str(db), "--format", "json").stdout)
    assert rows == [{"outcome": "failed", "n": 64}]  # it stopped, not drew tasks for ever
    # The same job on a working machine then continues and succeeds.
    r = run_cli("generate", "--count", "3", "--families", "knapsack_01", "--workers", "1",
                "--db", str(db), timeout=300)
    assert r.returncode == 0, r.stderr
