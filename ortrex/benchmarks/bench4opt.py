"""The bench4opt reader shared by B4O-Feasible and B4O-ORGEval.

Each row has a problem, its ``data.json`` and a reference program; B4O-Feasible adds the
optimum, B4O-ORGEval the reference LP the program's model must be equivalent to. Bench4opt
describes each reference LP twice; the two items are paraphrase twins (``twin``), excluded from
each other's few-shot pools.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path
from typing import ClassVar

from ortrex.benchmarks.base import BenchmarkSource, Item, Reader, number


class Bench4Opt(BenchmarkSource):
    """A bench4opt folder: ``<folder>/test.jsonl`` and the files its rows name."""

    folder: ClassVar[str]

    def load(self, r: Reader) -> list[Item]:
        """One item per row, keyed by the row's id; twins linked by identical reference LPs."""
        folder, kind = self.folder, self.scoring
        rows = r.jsonl(f"{folder}/test.jsonl")
        items = []
        for row in rows:
            files = {"data.json": r.bytes(f"{folder}/{row['data_path']}").decode("utf-8")}
            ans, why = (None, None)
            if kind == "objective":
                ans, why = number(row.get("optimal_value"))
            ref_lp = str(r.root / folder / row["reference_lp_path"]) \
                if row.get("reference_lp_path") else None
            if kind == "lp" and ref_lp and not Path(ref_lp).is_file():
                why = f"reference LP {row['reference_lp_path']} is missing"
            items.append(Item(self.name, str(row["id"]), str(row["problem"]), kind, ans, files,
                              row.get("reference_code"), ref_lp, unscoreable=why))
        # Twins: items whose reference LPs are the same bytes (each LP is described twice).
        by_lp: dict[bytes, list[Item]] = defaultdict(list)
        for it, row in zip(items, rows, strict=True):
            if it.reference_lp and Path(it.reference_lp).is_file():
                lp = r.bytes(f"{folder}/{row['reference_lp_path']}")
                by_lp[hashlib.sha256(lp).digest()].append(it)
        for group in by_lp.values():
            if len(group) == 2:
                group[0].twin, group[1].twin = group[1].id, group[0].id
        return items
