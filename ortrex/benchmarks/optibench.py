"""OptiBench: its questions, scored by their optimal objective."""

from __future__ import annotations

import json

from ortrex.benchmarks.base import BenchmarkSource, Item, Reader, number, register


@register
class OptiBench(BenchmarkSource):
    """``optibench/OptiBench.json``: a list of ``en_question`` and ``en_answer``."""

    name = "optibench"
    title = "OptiBench"
    files = ("optibench/OptiBench.json",)

    def load(self, r: Reader) -> list[Item]:
        """One item per entry, ``optibench_<index>``."""
        rows = json.loads(r.bytes(self.files[0]))
        items = []
        for k, row in enumerate(rows):
            ans, why = number(row.get("en_answer"))
            items.append(Item(self.name, f"optibench_{k}", str(row["en_question"]),
                              self.scoring, ans, unscoreable=why))
        return items

    def text_key(self, index: int, item: Item) -> str:
        """The entry's index (decontamination's key since before the registry)."""
        return str(index)
