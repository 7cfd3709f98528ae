"""Completions from any OpenAI-compatible endpoint (vLLM, SGLang, MindIE, hosted APIs), with a
disk cache keyed on the full request.

The ``openai`` package does the HTTP: its client retries 429, 5xx, connection errors and
timeouts with exponential backoff (honouring ``Retry-After``). Every completion is written to
the cache (temp-then-rename) before it is scored, so a crashed run re-asks nothing it already
has.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


class EndpointError(Exception):
    """The endpoint cannot be used (unreachable, or it does not serve the model)."""


@dataclass(frozen=True)
class Sampling:
    """How completions are drawn."""

    model: str
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 8192
    seed: int = 42
    k: int = 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly."""
        return asdict(self)


@dataclass
class Completion:
    """One completion (or why there is none)."""

    text: str | None
    error: str | None = None
    cached: bool = False
    seconds: float = 0.0
    usage: dict[str, int] | None = None


class Client:
    """An async client for one endpoint and model, with a disk cache."""

    def __init__(self, base_url: str, sampling: Sampling, cache_dir: Path | None,
                 api_key: str | None = None, timeout: float = 600.0, retries: int = 4,
                 concurrency: int = 16) -> None:
        from openai import AsyncOpenAI

        self.base_url = base_url.rstrip("/")
        self.sampling = sampling
        self.cache_dir = cache_dir
        self.api = AsyncOpenAI(base_url=self.base_url,
                               api_key=api_key or os.environ.get("OPENAI_API_KEY") or "none",
                               timeout=timeout, max_retries=retries)
        self.limit = asyncio.Semaphore(concurrency)

    async def check(self) -> None:
        """Fail early (``EndpointError``) when the endpoint is down or lacks the model."""
        import openai

        try:
            # The raw reply: servers answer GET /models in many shapes, and the SDK's parsed
            # page crashes (TypeError) on anything but OpenAI's own.
            raw = await self.api.with_options(
                max_retries=1, timeout=15).models.with_raw_response.list()
        except openai.APIConnectionError as exc:
            raise EndpointError(f"{self.base_url}: cannot reach the endpoint ({exc})") from None
        except openai.NotFoundError:
            return  # no model listing here: the first request will tell
        except openai.APIStatusError as exc:
            raise EndpointError(f"{self.base_url}: the endpoint answered HTTP "
                                f"{exc.status_code} to GET /models") from None
        try:
            served = served_models(raw.content)
        except ValueError as exc:
            raise EndpointError(f"{self.base_url}: GET /models answered {exc}") from None
        if served and self.sampling.model not in served:
            shown = ", ".join(" ".join(m.split()) for m in served[:10])  # one line, whatever
            raise EndpointError(f"{self.base_url}: model {self.sampling.model!r} is not served "
                                f"(served: {shown})")

    def request(self, messages: list[dict[str, str]], sample: int) -> dict[str, Any]:
        """The full request of one sample (what the cache is keyed on)."""
        s = self.sampling
        return {"base_url": self.base_url, "model": s.model, "messages": messages,
                "temperature": s.temperature, "top_p": s.top_p, "max_tokens": s.max_tokens,
                "seed": s.seed + sample}

    def _cache_path(self, req: dict[str, Any]) -> Path | None:
        if self.cache_dir is None:
            return None
        key = hashlib.sha256(json.dumps(req, sort_keys=True).encode()).hexdigest()
        return self.cache_dir / key[:2] / f"{key}.json"

    async def complete(self, messages: list[dict[str, str]], sample: int) -> Completion:
        """The completion of one sample: from the cache, else from the endpoint."""
        import openai  # imported where used: Completion and Sampling alone need no HTTP stack

        req = self.request(messages, sample)
        path = self._cache_path(req)
        if path is not None and path.is_file():
            try:
                got = json.loads(path.read_text())
                return Completion(got["text"], cached=True, usage=got.get("usage"))
            except (OSError, ValueError, KeyError):
                pass  # a damaged entry is asked again
        async with self.limit:
            t0 = time.perf_counter()  # the request's own time, not its wait for a slot
            try:
                resp = await self.api.chat.completions.create(
                    model=req["model"], messages=messages,  # type: ignore[arg-type]
                    temperature=req["temperature"], top_p=req["top_p"],
                    max_tokens=req["max_tokens"], seed=req["seed"])
            except openai.APITimeoutError:
                return Completion(None, "timeout", seconds=time.perf_counter() - t0)
            except openai.APIStatusError as exc:
                return Completion(None, f"HTTP {exc.status_code}",
                                  seconds=time.perf_counter() - t0)
            except openai.APIConnectionError as exc:
                return Completion(None, f"connection: {exc}", seconds=time.perf_counter() - t0)
            except (openai.APIError, ValueError) as exc:  # a body that is not a completion
                return Completion(None, f"bad reply: {type(exc).__name__}: {exc}"[:300],
                                  seconds=time.perf_counter() - t0)
        try:
            msg = resp.choices[0].message if resp.choices else None
            text = (msg.content or "") if msg is not None else ""
            reasoning = getattr(msg, "reasoning_content", None) if msg is not None else None
        except (AttributeError, IndexError, TypeError) as exc:
            return Completion(None, f"bad reply: not a chat completion ({exc})"[:300],
                              seconds=time.perf_counter() - t0)
        if not isinstance(text, str) or (reasoning is not None and not isinstance(reasoning, str)):
            return Completion(None, "bad reply: the message content is not text",
                              seconds=time.perf_counter() - t0)
        if reasoning:
            text = f"<think>\n{reasoning}\n</think>\n{text}"
        usage = resp.usage.model_dump() if resp.usage else None
        usage = {k: v for k, v in (usage or {}).items() if isinstance(v, int)} or None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp-{os.getpid()}")
            tmp.write_text(json.dumps({"request": req, "text": text, "usage": usage}))
            os.replace(tmp, path)
        return Completion(text, seconds=time.perf_counter() - t0, usage=usage)

    async def close(self) -> None:
        """Close the HTTP connections."""
        await self.api.close()


_NAME_KEYS = ("id", "name", "model")  # OpenAI, vLLM, SGLang: "id"; Ollama's tags: "name"/"model"


def _kind(value: object) -> str:
    """What a JSON value is, as a noun: "string", "object", "null"..."""
    if value is None:
        return "null"
    return {bool: "boolean", int: "number", float: "number", str: "string", list: "list",
            dict: "object"}.get(type(value), type(value).__name__)


def _a(value: object) -> str:
    """A JSON value's kind with its article: "a string", "an object", "null"."""
    kind = _kind(value)
    return kind if kind == "null" else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def served_models(body: bytes) -> list[str]:
    """The model names in a ``GET /models`` reply; ``ValueError`` says what is wrong with it."""
    # The OpenAI shape {"data": [{"id": ...}]}, and the variants servers answer: a bare list,
    # {"models": [...]}, items that are plain names or objects naming the model by
    # "id", "name" or "model". The error's text follows "GET /models answered ".
    try:
        got = json.loads(body)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None
    except ValueError:  # UnicodeDecodeError included
        head = body.lstrip()[:64].lower()
        if not head:
            raise ValueError("an empty body, not a JSON model list") from None
        if head.startswith(b"<!doctype html") or b"<html" in head:
            raise ValueError("an HTML page, not a JSON model list") from None
        raise ValueError("a body that is not JSON") from None
    if isinstance(got, dict):
        present = [k for k in ("data", "models") if k in got]
        lists = [k for k in present if isinstance(got[k], list)]
        if not lists:
            if present:
                raise ValueError(f'a JSON object whose "{present[0]}" is '
                                 f"{_a(got[present[0]])}, not a model list")
            raise ValueError("a JSON object with no model list")
        items = got[lists[0]]
    elif isinstance(got, list):
        items = got
    else:
        raise ValueError(f"a JSON {_kind(got)}, not a model list")
    names = []
    for i, item in enumerate(items):
        if isinstance(item, str) and item:
            names.append(item)
            continue
        if isinstance(item, dict):
            name = next((item[k] for k in _NAME_KEYS
                         if isinstance(item.get(k), str) and item[k]), None)
            if name is not None:
                names.append(name)
                continue
            raise ValueError(f'a model list whose item {i} has no "id", "name" or "model"')
        what = "an empty string" if item == "" else _a(item)
        raise ValueError(f"a model list whose item {i} is {what}, not a model name or object")
    return names
