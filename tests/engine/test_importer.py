"""The import job: provenance, duplicates, idempotent reruns, bad files, HiGHS verdicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from ortrex.engine.ingest.models import import_files
from ortrex.ir.formats import ModelFileError
from ortrex.store import Store
from tests.samples import write_samples


def test_import_records_provenance_and_duplicates(tmp_path: Path) -> None:
    paths = write_samples(tmp_path / "in")
    with Store(tmp_path / "s.duckdb", create=True) as s:
        report = import_files(s, [tmp_path / "in"], family="toy", solve=True)
        assert report.files == 4 and report.imported == 4
        assert report.new_instances == 2 and report.duplicate_files == 2
        assert report.statuses == {"optimal": 2}
        counts = s.counts()
        assert counts["instances"] == 2 and counts["sources"] == 4 and counts["lineage"] == 4
        assert counts["verifications"] == 2 and counts["runs"] == 1
        objs = dict(s.query("SELECT i.name, v.objective FROM verifications v JOIN instances i "
                            "ON i.id = v.subject_id").iter_rows())
        # knapsack: items 0 and 1 fill the capacity of 5 for a value of 9
        assert objs["knapsack"] == 9.0
        # transport: f00 = 10, f10 = 2, f11 = 5
        assert objs["transport"] == pytest.approx(2 * 10 + 3 * 2 + 1 * 5)
        src = s.query("SELECT l.params->>'$.path' AS path, i.name FROM lineage l "
                      "JOIN instances i ON i.id = l.child_id ORDER BY path")
        assert sorted(src["path"].to_list()) == sorted(str(p.resolve()) for p in paths.values())
        assert set(s.query("SELECT family FROM instances")["family"]) == {"toy"}


def test_rerun_changes_nothing(tmp_path: Path) -> None:
    write_samples(tmp_path / "in")
    with Store(tmp_path / "s.duckdb", create=True) as s:
        first = import_files(s, [tmp_path / "in"])
        before = s.counts()
        second = import_files(s, [tmp_path / "in"])
        assert s.counts() == before
        assert second.new_instances == 0 and second.known_instances == 2
        assert second.run_id == first.run_id


def test_bad_file_stops_everything(tmp_path: Path) -> None:
    write_samples(tmp_path / "in")
    (tmp_path / "in" / "zz_bad.lp").write_text("Minimize\n x\nSubject To\n c: x >= \nEnd\n")
    with Store(tmp_path / "s.duckdb", create=True) as s:
        with pytest.raises(ModelFileError, match=r"zz_bad\.lp:4"):
            import_files(s, [tmp_path / "in"])
        assert sum(s.counts().values()) == 0
        report = import_files(s, [tmp_path / "in"], skip_bad=True)
        assert report.imported == 4 and len(report.skipped) == 1
        assert "zz_bad.lp:4" in report.skipped[0]


def test_parallel_workers_give_the_same_result(tmp_path: Path) -> None:
    write_samples(tmp_path / "in")
    for k in range(6):
        (tmp_path / "in" / f"extra{k}.lp").write_text(
            f"Minimize\n x + {k + 2} y\nSubject To\n c: x + y >= {k + 1}\nEnd\n")
    results = []
    for workers in (1, 2):
        with Store(tmp_path / f"s{workers}.duckdb", create=True) as s:
            import_files(s, [tmp_path / "in"], workers=workers, solve=True)
            results.append(s.query("SELECT i.id, v.status, v.objective FROM instances i JOIN "
                                   "verifications v ON v.subject_id = i.id ORDER BY i.id"))
    assert results[0].equals(results[1]) and results[0].height == 8


def test_empty_folder_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with Store(tmp_path / "s.duckdb", create=True) as s, pytest.raises(
            ModelFileError, match=r"holds no \.lp"):
        import_files(s, [tmp_path / "empty"])
