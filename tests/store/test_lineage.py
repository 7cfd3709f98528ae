"""Recursive lineage walks."""

from __future__ import annotations

from pathlib import Path

import pytest

from ortrex.store import Store, StoreError
from ortrex.store.db import utcnow
from ortrex.store.lineage import resolve_node, walk


def e(p: str, c: str, rel: str = "derived", op: str | None = None) -> dict:
    return {"id": f"{p}->{c}", "parent_id": p, "parent_kind": p[:3], "child_id": c,
            "child_kind": c[:3], "relation": rel, "operator": op, "created_at": utcnow()}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "s.duckdb", create=True)
    # seed -> (m1, m2) -> ins3 (a diamond) -> doc4 -> exp5; seed -> m1 -> ins6
    s.insert("lineage", [e("seed0", "mut1", op="domain_shift"), e("seed0", "mut2", op="scale"),
                         e("mut1", "ins3"), e("mut2", "ins3"), e("ins3", "doc4", "rendered"),
                         e("doc4", "exp5", "exported"), e("mut1", "ins6")])
    yield s
    s.close()


def test_ancestors(store: Store) -> None:
    df = walk(store, "exp5", "ancestors")
    got = {(d, p, c) for d, p, c in df.select("depth", "parent_id", "child_id").iter_rows()}
    assert got == {(1, "doc4", "exp5"), (2, "ins3", "doc4"), (3, "mut1", "ins3"),
                   (3, "mut2", "ins3"), (4, "seed0", "mut1"), (4, "seed0", "mut2")}
    assert walk(store, "exp5", "ancestors", depth=2)["depth"].max() == 2


def test_descendants(store: Store) -> None:
    df = walk(store, "seed0", "descendants")
    children = set(df["child_id"])
    assert children == {"mut1", "mut2", "ins3", "ins6", "doc4", "exp5"}
    # The diamond reaches ins3 twice at depth 2 (once per parent) but no edge repeats.
    assert df.height == len(set(zip(df["parent_id"], df["child_id"], strict=True)))
    ops = walk(store, "seed0", "descendants", depth=1)["operator"].to_list()
    assert sorted(ops) == ["domain_shift", "scale"]


def test_resolve_node(store: Store) -> None:
    assert resolve_node(store, "exp") == "exp5"
    assert resolve_node(store, "ins3") == "ins3"
    with pytest.raises(StoreError, match="ambiguous"):
        resolve_node(store, "mut")
    with pytest.raises(StoreError, match="no lineage node"):
        resolve_node(store, "zzz")
