"""Optional LLM paraphrase of statements through any OpenAI-compatible chat endpoint.

Requests are cached on disk (key: endpoint, model, messages, temperature), sent by the
``openai`` package's client, the one HTTP stack ortrex uses for OpenAI-compatible endpoints
(``ortrex eval`` and ``distill`` use it too: it retries 408, 409, 429, 5xx and connection
errors with exponential backoff), and never trusted: the caller runs the same fidelity check on
the result and keeps the template statement when it fails.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SYSTEM = ("You rewrite optimization problem statements. Keep every number, every name of an "
          "item, every table and every file name exactly as written; change only the wording "
          "and sentence order. Do not add numbers. Answer with the rewritten statement only.")


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
    cache_dir: Path | None = None


class Paraphraser:
    """Chat-completion client with a disk cache and retries."""

    def __init__(self, cfg: LLMConfig) -> None:
        from openai import OpenAI

        self.cfg = cfg
        # A local server needs no key; the client insists on one, so it gets a placeholder.
        key = cfg.api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.client: Any = OpenAI(base_url=cfg.base_url.rstrip("/"), api_key=key,
                                  timeout=cfg.timeout_s, max_retries=cfg.retries)
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
        import openai

        self.requests += 1
        try:
            r = self.client.chat.completions.create(
                model=self.cfg.model, messages=messages, temperature=self.cfg.temperature)
        except openai.APIStatusError as exc:
            raise LLMError(f"{self.cfg.base_url}: HTTP {exc.status_code}: "
                           f"{str(exc.message)[:200]}") from None
        except openai.APIConnectionError as exc:  # timeouts too, after the client's retries
            raise LLMError(f"{self.cfg.base_url}: no answer after {self.cfg.retries + 1} tries "
                           f"({type(exc).__name__}: {exc})") from None
        try:
            content = r.choices[0].message.content
        except (AttributeError, IndexError, TypeError) as exc:
            raise LLMError(f"{self.cfg.base_url}: unexpected reply ({exc})") from None
        if not isinstance(content, str):
            raise LLMError(f"{self.cfg.base_url}: unexpected reply (no message content)")
        if path is not None:
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"content": content}))
            os.replace(tmp, path)
        return content

    def paraphrase(self, statement: str) -> str:
        """A rewording of ``statement`` (unchecked: run the fidelity check on it)."""
        return self.chat([{"role": "system", "content": SYSTEM},
                          {"role": "user", "content": statement}]).strip() + "\n"
