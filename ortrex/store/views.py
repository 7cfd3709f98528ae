"""SQL views and table macros over the lineage table (created with every store, schema v4).

* ``lineage_ancestors(id [, max_depth := n])`` / ``lineage_descendants(id [, max_depth := n])``:
  the edges reachable from a node, with their depth (diamonds counted once).
* ``lineage_path(from_id, to_id)``: the edges on any path from one node down to another, i.e.
  the operator path from a seed to an instance or a document.
* ``operator_stats``: verified mutation children and acceptance rate per operator.
"""

from __future__ import annotations

_WALK = """
CREATE OR REPLACE MACRO lineage_{name}(node_id, max_depth := 1000) AS TABLE
WITH RECURSIVE walk(depth, parent_id, parent_kind, child_id, child_kind, relation, operator) AS (
    SELECT 1, parent_id, parent_kind, child_id, child_kind, relation, operator
    FROM lineage WHERE {start} = node_id
  UNION
    SELECT w.depth + 1, l.parent_id, l.parent_kind, l.child_id, l.child_kind, l.relation,
           l.operator
    FROM lineage l JOIN walk w ON l.{join} = w.{next}
    WHERE w.depth < max_depth
)
SELECT min(depth) AS depth, parent_id, parent_kind, child_id, child_kind, relation, operator
FROM walk GROUP BY ALL
"""

LINEAGE_SQL = (
    _WALK.format(name="ancestors", start="child_id", join="child_id", next="parent_id"),
    _WALK.format(name="descendants", start="parent_id", join="parent_id", next="child_id"),
    """
CREATE OR REPLACE MACRO lineage_path(from_id, to_id) AS TABLE
-- Walk up from the target once (a small set), then down from the source within that set.
WITH RECURSIVE up AS MATERIALIZED (SELECT * FROM lineage_ancestors(to_id)),
down(depth, parent_id, parent_kind, child_id, child_kind, relation, operator) AS (
    SELECT 1, parent_id, parent_kind, child_id, child_kind, relation, operator
    FROM up WHERE parent_id = from_id
  UNION
    SELECT d.depth + 1, u.parent_id, u.parent_kind, u.child_id, u.child_kind, u.relation,
           u.operator
    FROM up u JOIN down d ON u.parent_id = d.child_id
)
SELECT min(depth) AS depth, parent_id, parent_kind, child_id, child_kind, relation, operator
FROM down GROUP BY ALL ORDER BY depth, parent_id, child_id
""",
    """
CREATE OR REPLACE VIEW operator_stats AS
SELECT l.operator,
       count(DISTINCT l.child_id) AS children,
       count(DISTINCT l.child_id) FILTER (WHERE i.status = 'accepted') AS accepted,
       round(count(DISTINCT l.child_id) FILTER (WHERE i.status = 'accepted')
             / count(DISTINCT l.child_id), 3) AS acceptance_rate
FROM lineage l
JOIN lineage g ON g.parent_id = l.child_id AND g.relation = 'grounded'
JOIN instances i ON i.id = g.child_id
WHERE l.relation = 'mutated'
GROUP BY l.operator
ORDER BY l.operator
""",
)
