"""Export tests import megatron-core lazily; its import warns about Apex, which is noise here."""

from __future__ import annotations

import warnings

warnings.filterwarnings("ignore", message=".*Transformer Engine and Apex.*")
warnings.filterwarnings("ignore", message=".*pad token id in the tokenizer collides.*")
