"""benchmarks/bench_kernels.py on a machine without a GPU: it says it needs one and exits 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_without_a_gpu_it_says_so_and_exits_0(tmp_path):
    csv = tmp_path / "rows.csv"
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_kernels.py"), "--csv",
                        str(csv)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("bench_kernels needs a CUDA GPU")
    assert not csv.exists()
