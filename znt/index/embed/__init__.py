"""Embedding providers behind one small interface.

A provider turns texts into unit-length float32 vectors. ``make_embedder`` builds the one a
``ProviderConfig`` names; heavy libraries (onnxruntime, sentence-transformers, numpy) are
imported only there, so nothing pays for them unless it embeds.

Providers:

* ``bm25``   no vectors (``make_embedder`` returns ``None``);
* ``local``  a sentence-transformers model run on this machine (``local.py``);
* ``ollama`` an Ollama server's ``/api/embed`` (``remote.py``);
* ``openai`` any OpenAI-compatible ``/v1/embeddings`` endpoint (``remote.py``);
* ``gemini`` the Gemini embedding API, ``models/<m>:batchEmbedContents`` (``gemini.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from znt.errors import ZntError

if TYPE_CHECKING:
    import numpy as np

MODES = ("bm25", "local", "ollama", "openai", "gemini")
DEFAULT_LOCAL_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
TextKind = Literal["document", "query"]


class ProviderError(ZntError):
    """The embedding provider failed (unreachable, bad answer, model missing).

    Messages name the provider, URL and model, never a key."""

    code = "provider_error"


@dataclass(frozen=True)
class ProviderConfig:
    """Which provider embeds, resolved from the config files (``znt.config``).

    ``token_env``/``token_ref`` name where the key lives; the key itself is never held here.
    ``source`` says where the settings came from (``default``, ``managed``, ``ZNT_CONFIG``)."""

    mode: str = "bm25"
    model: str | None = None
    url: str | None = None
    token_env: str | None = None
    token_ref: str | None = None
    timeout_s: float = 60.0
    batch_size: int = 64
    max_batch_bytes: int = 32768
    source: str = "default"


class Embedder(Protocol):
    """What the scan and the search need from a provider."""

    provider: str  # "local" | "ollama" | "openai" | "gemini"
    model: str  # the model name as configured (stored in the index with the dimension)

    def embed(self, texts: Sequence[str], kind: TextKind = "document") -> np.ndarray:
        """Vectors for ``texts``: float32 array of shape (len(texts), dim), rows L2-normalised.

        Raises ``ProviderError`` with a clear message on any failure."""
        ...


# Local embedders by (model, export cache folder): one per process. Opening the ONNX session
# and the tokenizer costs a long-lived process (``znt mcp``) ~130 ms per hybrid search on
# two cores, against ~3 ms to embed the query itself; the session is safe to share.
_local: dict[tuple[str, str], Embedder] = {}
_local_lock = threading.Lock()


def make_embedder(config: ProviderConfig) -> Embedder | None:
    """The embedder for ``config`` (``None`` for ``bm25``). Loading may raise ProviderError.
    A local model is loaded once per process (a failed load is not remembered)."""
    if config.mode == "bm25":
        return None
    if config.mode == "local":
        from znt.index.embed.local import LocalEmbedder, cache_root

        model = config.model or DEFAULT_LOCAL_MODEL
        key = (model, str(cache_root()))
        with _local_lock:
            embedder = _local.get(key)
            if embedder is None:
                embedder = _local[key] = LocalEmbedder(model)
        return embedder
    if config.mode in ("ollama", "openai"):
        from znt.index.embed.remote import RemoteEmbedder

        return RemoteEmbedder(config)
    if config.mode == "gemini":
        from znt.index.embed.gemini import GeminiEmbedder

        return GeminiEmbedder(config)
    raise ProviderError(f"unknown embedding provider {config.mode!r}; choose one of {MODES}")
