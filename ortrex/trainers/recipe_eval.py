"""An ``ortrex eval`` score per checkpoint for recipe selection: the checkpoint is written as
a Hugging Face directory, served by the recipe's ``serve`` command (vLLM, SGLang, any
OpenAI-compatible server), scored by ``ortrex eval`` in a subprocess, and the server stopped."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from ortrex.trainers.errors import TrainError

EVAL_KEYS = {"serve", "port", "benchmarks", "limit", "startup_timeout", "stages", "max_tokens",
             "name", "args"}


def check_eval(spec: dict[str, Any], where: str) -> dict[str, Any]:
    """The recipe's ``eval`` section, checked."""
    if not isinstance(spec, dict):
        raise TrainError(f"{where}: 'eval' must be a mapping")
    for k in spec:
        if k not in EVAL_KEYS:
            raise TrainError(f"{where}: eval: unknown field {k!r}")
    if not isinstance(spec.get("serve"), str) or "{model_dir}" not in spec["serve"]:
        raise TrainError(f"{where}: eval.serve must be a command with {{model_dir}} (and "
                         "{port}), e.g. 'vllm serve {model_dir} --port {port}'")
    return spec


def _wait(url: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise TrainError(f"the serve command exited with {proc.returncode} before "
                             f"{url} answered")
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise TrainError(f"{url} did not answer within {timeout:.0f}s of the serve command")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def score(spec: dict[str, Any], hf_dir: Path, out: Path, db: str | None) -> float | None:
    """Mean pass@1 over the benchmarks for the model in ``hf_dir`` (cached in ``out``)."""
    summary = out / "summary.json"
    if summary.is_file():
        return mean_pass_at_1(summary)
    port = int(spec.get("port", 8000))
    name = str(spec.get("name", "ortrex-checkpoint"))
    cmd = spec["serve"].format(model_dir=shlex.quote(str(hf_dir)), port=port,
                               name=shlex.quote(name))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "serve.log", "wb") as logf:
        proc = subprocess.Popen(cmd, shell=True, stdout=logf, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            url = f"http://127.0.0.1:{port}/v1"
            _wait(url, proc, float(spec.get("startup_timeout", 600)))
            args = [sys.executable, "-m", "ortrex", "eval", "--base-url", url, "--model", name,
                    "--benchmarks", str(spec.get("benchmarks", "all")), "--output", str(out),
                    "--max-tokens", str(spec.get("max_tokens", 2048)), "--workers", "1"]
            if spec.get("limit"):
                args += ["--limit", str(spec["limit"])]
            if db:
                args += ["--db", db]
            args += [str(a) for a in spec.get("args") or []]
            r = subprocess.run(args, capture_output=True, text=True)
            if r.returncode != 0:
                line = (r.stderr.strip().splitlines() or ["no output"])[-1]
                raise TrainError(f"ortrex eval of {hf_dir} failed: {line}")
        finally:
            _stop(proc)
    return mean_pass_at_1(summary)


def mean_pass_at_1(summary: Path) -> float | None:
    """The mean pass@1 over the benchmarks of an eval summary (None: none scored)."""
    data = json.loads(summary.read_text(encoding="utf-8"))
    vals = [b["pass@1"] for b in (data.get("benchmarks") or {}).values()
            if b.get("pass@1") is not None]
    return sum(vals) / len(vals) if vals else None
