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

# Which provider embeds is configuration (znt/config.py, its one home); the names are
# importable from here as well.
from znt.config import DEFAULT_LOCAL_MODEL, MODES, ProviderConfig, ProviderError
from znt.index.embed.provider import Embedder, TextKind

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "MODES",
    "Embedder",
    "ProviderConfig",
    "ProviderError",
    "TextKind",
    "make_embedder",
]

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
