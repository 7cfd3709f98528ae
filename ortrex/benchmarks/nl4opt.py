"""NL4OPT: the test split's questions, scored by their optimal objective."""

from __future__ import annotations

import io

from ortrex.benchmarks.base import BenchmarkSource, Item, Reader, number, register


@register
class NL4OPT(BenchmarkSource):
    """``nl4opt/test.parquet``: ``en_question`` and ``en_answer``."""

    name = "nl4opt"
    title = "NL4OPT"
    files = ("nl4opt/test.parquet",)

    def load(self, r: Reader) -> list[Item]:
        """One item per row, ``nl4opt_<row>``."""
        import pyarrow.parquet as pq

        table = pq.read_table(io.BytesIO(r.bytes(self.files[0]))).to_pylist()
        items = []
        for k, row in enumerate(table):
            ans, why = number(row.get("en_answer"))
            items.append(Item(self.name, f"nl4opt_{k}", str(row["en_question"]), self.scoring,
                              ans, unscoreable=why))
        return items

    def text_key(self, index: int, item: Item) -> str:
        """The row number (decontamination's key since before the registry)."""
        return str(index)
