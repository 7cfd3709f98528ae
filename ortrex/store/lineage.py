"""Lineage walks over the edge table with recursive CTEs."""

from __future__ import annotations

from typing import Any

import polars as pl

from ortrex.store.db import Store
from ortrex.store.errors import StoreError

MAX_DEPTH = 1000

# One step follows edges against (ancestors) or along (descendants) their direction. UNION (not
# UNION ALL) drops repeated (edge, depth) rows so diamonds in the DAG do not multiply.
_WALK = """
WITH RECURSIVE walk(depth, parent_id, parent_kind, child_id, child_kind, relation, operator) AS (
    SELECT 1, parent_id, parent_kind, child_id, child_kind, relation, operator
    FROM lineage WHERE {start} = $id
  UNION
    SELECT w.depth + 1, l.parent_id, l.parent_kind, l.child_id, l.child_kind, l.relation,
           l.operator
    FROM lineage l JOIN walk w ON l.{join} = w.{next}
    WHERE w.depth < $depth
)
SELECT min(depth) AS depth, parent_id, parent_kind, child_id, child_kind, relation, operator
FROM walk
GROUP BY ALL
ORDER BY depth, parent_id, child_id
"""


def walk(store: Store, node_id: str, direction: str = "ancestors",
         depth: int | None = None) -> pl.DataFrame:
    """Edges reachable from ``node_id`` towards its ancestors or descendants, with their depth."""
    if direction == "ancestors":
        sql = _WALK.format(start="child_id", join="child_id", next="parent_id")
    elif direction == "descendants":
        sql = _WALK.format(start="parent_id", join="parent_id", next="child_id")
    else:
        raise ValueError(f"direction must be 'ancestors' or 'descendants', not {direction!r}")
    return store.query(sql, {"id": node_id, "depth": min(depth or MAX_DEPTH, MAX_DEPTH)})


def resolve_node(store: Store, prefix: str) -> str:
    """The full id of a lineage node given its id or an unambiguous prefix."""
    hits = store.query(
        "SELECT DISTINCT id FROM (SELECT parent_id AS id FROM lineage UNION ALL "
        "SELECT child_id FROM lineage) WHERE starts_with(id, $p) LIMIT 3", {"p": prefix})
    ids = hits["id"].to_list() if hits.height else []
    if prefix in ids:
        return prefix
    if not ids:
        raise StoreError(f"no lineage node with id {prefix!r}")
    if len(ids) > 1:
        raise StoreError(f"id prefix {prefix!r} is ambiguous ({', '.join(i[:16] for i in ids)}, "
                         "...); give more characters")
    return ids[0]


def node_labels(store: Store, ids: list[str]) -> dict[str, str]:
    """Human labels of nodes: a source's file name, an instance's model name."""
    if not ids:
        return {}
    df = store.query(
        "SELECT id, regexp_extract(path, '[^/]+$') AS label FROM sources WHERE id IN "
        "(SELECT unnest($ids)) UNION ALL SELECT id, name FROM instances WHERE id IN "
        "(SELECT unnest($ids))", {"ids": ids})
    return {i: lbl for i, lbl in df.iter_rows() if lbl}


def lineage_tree(edges: pl.DataFrame, root: str, direction: str,
                 labels: dict[str, str], max_nodes: int = 400) -> Any:
    """A rich Tree of a walk from ``root`` (children are parents when walking ancestors)."""
    from rich.tree import Tree

    up = direction == "ancestors"
    kinds: dict[str, str] = {}
    nexts: dict[str, list[tuple[str, str]]] = {}
    for p, pk, c, ck, rel, op in edges.select(
            "parent_id", "parent_kind", "child_id", "child_kind", "relation",
            "operator").iter_rows():
        kinds[p], kinds[c] = pk, ck
        a, b = (c, p) if up else (p, c)
        nexts.setdefault(a, []).append((b, rel if op is None else f"{rel}:{op}"))

    def text(nid: str, how: str = "") -> str:
        lbl = labels.get(nid)
        head = f"[dim]{how} {'<-' if up else '->'}[/] " if how else ""
        return f"{head}[bold]{kinds.get(nid, 'node')}[/] {nid[:16]}" + (
            f" ({lbl})" if lbl else "")

    tree = Tree(text(root))
    shown, seen = [0], set()

    def grow(node: Any, nid: str) -> None:
        for b, how in sorted(nexts.get(nid, [])):
            if shown[0] >= max_nodes:
                node.add("[dim]... more (use --format csv for every edge)[/]")
                return
            shown[0] += 1
            branch = node.add(text(b, how))
            if b in seen:  # a DAG reaches some nodes twice: expand them once
                branch.add("[dim](shown above)[/]")
                continue
            seen.add(b)
            grow(branch, b)

    grow(tree, root)
    return tree
