"""Seed import: programs run in the sandbox, models captured and verified, with provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ortrex.engine.ingest.seeds import (
    SeedFileError,
    extract_files,
    extract_program,
    import_seeds,
    read_seeds,
    reported_objective,
)
from ortrex.store import Store

PROGRAM = """import json
import gurobipy as gp
from gurobipy import GRB
data = json.load(open("data.json"))
model = gp.Model("toy")
x = model.addVar(ub=data["cap"], name="x")
y = model.addVar(ub=3, vtype=GRB.INTEGER, name="y")
model.addConstr(x + 2 * y <= 7, name="mix")
model.setObjective(3 * x + 4 * y, GRB.MAXIMIZE)
model.optimize()
print(f"optimal_value = {model.ObjVal}")
"""


def seed_line(k: int, cap: float, code: str = PROGRAM, printed_ok: bool = True) -> str:
    problem = (f"Toy problem {k}: choose x and y.\n\n### data.json\n```json\n"
               f'{{"cap": {cap}}}\n```\n')
    answer = f"<model>x, y</model>\n<python>\n{code}</python>"
    return json.dumps({"id": f"toy{k}", "problem": problem, "answer": answer,
                       "metadata": {"mode": "DPS", "structure": "toy", "domain": "test"}})


def test_parsing_helpers() -> None:
    answer = "text\n<python>\n```python\nprint(1)\n```\n</python>"
    assert extract_program(answer) == "print(1)\n"
    assert extract_program("print(2)") == "print(2)"
    files = extract_files("see\n### data.json\n```json\n{}\n```\n#### data/a.csv\n```csv\n"
                          "a,b\n1,2\n```")
    assert files == {"data.json": "{}\n", "data/a.csv": "a,b\n1,2\n"}
    assert reported_objective("Optimal objective: 12.5\n") == 12.5
    assert reported_objective("optimal_value = 1,234.5") == 1234.5
    assert reported_objective("nothing") is None


def test_import_runs_captures_and_verifies(tmp_path: Path) -> None:
    f = tmp_path / "seeds.jsonl"
    after = PROGRAM.replace("model.optimize()", "model.optimize()\nraise ValueError('boom')")
    before = PROGRAM.replace("model.optimize()", "raise ValueError('early')\nmodel.optimize()")
    f.write_text("\n".join([seed_line(1, 4.0), seed_line(2, 5.0), seed_line(3, 1.0, after),
                            seed_line(4, 1.0, before)]) + "\n")
    with Store(tmp_path / "s.duckdb", create=True) as s:
        rep = import_seeds(s, f)
        # The model is captured when the program asks for the solve: failing after that
        # costs the program, not the seed; failing before leaves nothing to verify.
        assert (rep.seeds, rep.ran, rep.captured, rep.solved, rep.accepted) == (4, 2, 3, 3, 3)
        assert rep.reasons == {"program_failed": 1}
        docs = s.query("SELECT kind, form, status, reject_reason, reject_detail, objective "
                       "FROM documents ORDER BY objective NULLS LAST").rows()
        assert docs == [("seed", "DPS", "accepted", None, None, 15.0),
                        ("seed", "DPS", "accepted", None, None, 17.0),
                        ("seed", "DPS", "accepted", None, None, 19.0),
                        ("seed", "DPS", "rejected", "program_failed", "ValueError: early", None)]
        sandbox = dict(s.query(
            "SELECT d.objective, v.details FROM verifications v JOIN documents d ON "
            "d.id = v.subject_id WHERE v.verifier = 'sandbox'").rows())
        assert json.loads(sandbox[15.0])["error"] == "ValueError: boom"
        assert json.loads(sandbox[15.0])["models_captured"] == 1
        # Provenance: the file -> the document -> the captured instance.
        rel = s.query("SELECT parent_kind, child_kind, relation FROM lineage "
                      "ORDER BY relation").rows()
        assert rel.count(("document", "instance", "captured")) == 3
        assert rel.count(("source", "document", "imported")) == 4
        inst = s.query("SELECT status, objective FROM instances ORDER BY objective").rows()
        assert inst == [("accepted", 15.0), ("accepted", 17.0), ("accepted", 19.0)]
        before_counts = s.counts()
        import_seeds(s, f)  # content ids: nothing changes on a second run
        assert s.counts() == before_counts


def test_malformed_seed_files(tmp_path: Path) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_text("\n".join([seed_line(1, 4.0), "{not json", json.dumps({"problem": "p"}),
                            "[1, 2]", seed_line(5, 2.0)]) + "\n")
    with pytest.raises(SeedFileError) as err:
        read_seeds(f)
    text = str(err.value)
    assert "bad.jsonl:2: not valid JSON" in text and "bad.jsonl:3: field 'answer'" in text
    assert "bad.jsonl:4: expected a JSON object" in text
    seeds, skipped = read_seeds(f, skip_bad=True)
    assert [s.line for s in seeds] == [1, 5] and len(skipped) == 3
    with pytest.raises(SeedFileError, match="cannot read"):
        read_seeds(tmp_path / "missing.jsonl")


@pytest.mark.shared
def test_public_seeds_sample(shared_benchmarks: Path, tmp_path: Path) -> None:
    src = shared_benchmarks.parent / "seeds" / "public_seed.jsonl"
    lines = src.read_text().splitlines()[:16]
    f = tmp_path / "sample.jsonl"
    f.write_text("\n".join(lines) + "\n")
    with Store(tmp_path / "p.duckdb", create=True) as s:
        rep = import_seeds(s, f, workers=2)
    assert rep.seeds == 16 and rep.ran >= 14 and rep.accepted >= 12


def test_hostile_seed_lines_are_bad_lines(tmp_path: Path) -> None:
    f = tmp_path / "hostile.jsonl"
    deep = '{"problem": "p", "answer": "a", "metadata": ' + "[" * 200_000 + "]" * 200_000 + "}"
    shallow_but_deep = json.dumps({"problem": "p", "answer": "a",
                                   "metadata": {"m": json.loads("[" * 100 + "]" * 100)}})
    f.write_bytes("\n".join([seed_line(1, 4.0), deep, shallow_but_deep]).encode() +
                  b"\n" + seed_line(4, 2.0).encode()[:40] + b"\xff\xfe" +
                  seed_line(4, 2.0).encode()[40:] + b"\n" + seed_line(5, 3.0).encode() + b"\n")
    with pytest.raises(SeedFileError) as err:
        read_seeds(f)
    text = str(err.value)
    assert "hostile.jsonl:2: JSON nests deeper than 64 levels" in text
    assert "hostile.jsonl:3: JSON nests deeper than 64 levels" in text
    assert "hostile.jsonl:4: not UTF-8 text (byte 41 of the line" in text
    seeds, skipped = read_seeds(f, skip_bad=True)
    assert [s.line for s in seeds] == [1, 5] and len(skipped) == 3


def test_seed_files_are_read_in_constant_memory(tmp_path: Path) -> None:
    import tracemalloc

    from ortrex.engine.ingest.seeds import iter_seeds, scan_seeds

    f = tmp_path / "big.jsonl"
    line = seed_line(1, 4.0).replace("Toy problem 1", "Toy problem " + "word " * 600)
    with open(f, "w") as out:
        for k in range(8000):  # about 30 MB
            out.write(line.replace('"toy1"', f'"toy{k}"') + "\n")
    assert f.stat().st_size > 25 << 20
    tracemalloc.start()
    scan = scan_seeds(f)
    n = sum(1 for _ in iter_seeds(f))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert scan.seeds == n == 8000
    assert peak < 2 << 20, peak  # a few lines at a time, whatever the file's size


# A real program's shape: a future import, a dataclass, the model built in a class, results
# printed by a method written before the one that solves, plots (matplotlib installed here,
# drawing off-screen; seaborn not installed here, a stand-in) and a second model built in a
# ``with`` block inside a function.
REAL_SHAPE = '''from __future__ import annotations

import json
from dataclasses import dataclass

import gurobipy as gp
import matplotlib.pyplot as plt
import seaborn as sns
from gurobipy import GRB


@dataclass
class Data:
    cap: float


class Planner:
    """Builds and solves the toy model."""

    def __init__(self, data: Data) -> None:
        self.model = gp.Model("toy")
        self.x = self.model.addVar(ub=data.cap, name="x")
        self.y = self.model.addVar(ub=3, vtype=GRB.INTEGER, name="y")

    def report(self) -> None:
        print(f"optimal_value = {self.model.ObjVal}")

    def solve(self) -> float:
        self.model.addConstr(self.x + 2 * self.y <= 7, name="mix")
        self.model.setObjective(3 * self.x + 4 * self.y, GRB.MAXIMIZE)
        self.model.optimize()
        return self.model.ObjVal


def bound(cap: float) -> float:
    with gp.Env(params={"OutputFlag": 0}) as env, gp.Model(env=env) as m:
        z = m.addVar(ub=cap, name="z")
        m.setObjective(z, GRB.MAXIMIZE)
        m.optimize()
        return m.ObjVal


def main() -> None:
    with open("data.json") as f:
        data = Data(**json.load(f))
    assert bound(data.cap) == data.cap
    planner = Planner(data)
    value = planner.solve()
    planner.report()
    sns.set_theme(style="whitegrid")
    fig, (left, right) = plt.subplots(1, 2, figsize=(6, 3))
    left.bar(["x", "y"], [planner.x.X, planner.y.X])
    right.set_title(f"objective {value:g}")
    sns.heatmap([[1, 2], [3, 4]], ax=right)
    plt.tight_layout()
    plt.savefig("plan.png")
    plt.show()


if __name__ == "__main__":
    main()
'''


def test_a_real_shaped_program_is_accepted_as_a_seed() -> None:
    from ortrex.engine.ingest.seeds import SEED_TOLERATED, Seed, process_seed
    from ortrex.verifiers.static import check_program

    obj = json.loads(seed_line(1, 4.0, REAL_SHAPE))
    found = {f.code for f in check_program(REAL_SHAPE, ("data.json",)).findings}
    assert found == {"import-plot", "model-name"} and found <= SEED_TOLERATED
    res = process_seed(Seed(1, obj["id"], obj["problem"], obj["answer"], obj["metadata"]))
    checks = {c.verifier: c for c in res.checks}
    assert checks["static"].ok and "[import-plot]" in checks["static"].details["notes"]
    assert checks["sandbox"].ok, checks["sandbox"].details
    assert checks["sandbox"].details["status"] == "ok"  # it ran to its end, plots and all
    assert res.captured == 2  # both models, each at its solve
    assert res.accepted, (res.reason, res.detail)
    assert res.objective == 17.0  # the last model solved: x = 3, y = 2
