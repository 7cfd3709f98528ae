"""Optional LLM paraphrase of statements through any OpenAI-compatible chat endpoint.

Requests are cached on disk (key: endpoint, model, messages, temperature), retried with
exponential backoff on rate limits, server errors and network failures, and never trusted: the
caller runs the same fidelity check on the result and keeps the template statement when it fails.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

SYSTEM = ("You rewrite optimization problem statements. Keep every number, every name of an "
          "item, every table and every file name exactly as written; change only the wording "
          "and sentence order. Do not add numbers. Answer with the rewritten statement only.")
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class LLMError(RuntimeError):
    """The endpoint could not give an answer (after the retries)."""


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to ask."""

    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.7
    timeout_s: float = 60.0
    retries: int = 4
    backoff_s: float = 0.5
    cache_dir: Path | None = None


class Paraphraser:
    """Chat-completion client with a disk cache and retries."""

    def __init__(self, cfg: LLMConfig) -> None:
        self.cfg = cfg
        key = cfg.api_key or os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.client = httpx.Client(base_url=cfg.base_url.rstrip("/"), headers=headers,
                                   timeout=cfg.timeout_s)
        self.cache = cfg.cache_dir
        if self.cache is not None:
            self.cache.mkdir(parents=True, exist_ok=True)
        self.requests = 0  # HTTP requests made (cache hits make none)

    def close(self) -> None:
        """Close the HTTP client."""
        self.client.close()

    def _key(self, messages: list[dict[str, str]]) -> str:
        blob = json.dumps([self.cfg.base_url, self.cfg.model, messages, self.cfg.temperature],
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()

    def chat(self, messages: list[dict[str, str]]) -> str:
        """The assistant's reply (from the cache when the same request was made before)."""
        path = self.cache / f"{self._key(messages)}.json" if self.cache else None
        if path is not None and path.exists():
            return json.loads(path.read_text())["content"]
        body = {"model": self.cfg.model, "messages": messages,
                "temperature": self.cfg.temperature}
        last = ""
        for attempt in range(self.cfg.retries + 1):
            if attempt:
                time.sleep(self.cfg.backoff_s * 2 ** (attempt - 1) * (1 + random.random() / 4))
            try:
                self.requests += 1
                r = self.client.post("/chat/completions", json=body)
            except httpx.TransportError as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            if r.status_code in RETRY_STATUS:
                last = f"HTTP {r.status_code}"
                continue
            if r.status_code != 200:
                raise LLMError(f"{self.cfg.base_url}: HTTP {r.status_code}: {r.text[:200]}")
            try:
                content = r.json()["choices"][0]["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                raise LLMError(f"{self.cfg.base_url}: unexpected reply ({exc})") from None
            if path is not None:
                tmp = path.with_suffix(".tmp")
                tmp.write_text(json.dumps({"content": content}))
                os.replace(tmp, path)
            return str(content)
        raise LLMError(f"{self.cfg.base_url}: no answer after {self.cfg.retries + 1} tries "
                       f"({last})")

    def paraphrase(self, statement: str) -> str:
        """A rewording of ``statement`` (unchecked: run the fidelity check on it)."""
        return self.chat([{"role": "system", "content": SYSTEM},
                          {"role": "user", "content": statement}]).strip() + "\n"
