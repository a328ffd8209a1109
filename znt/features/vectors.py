"""Vectors for text at answer time, from the provider the index was embedded with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from znt.index.embed import TextKind


def query_vector(con: Any, meta: dict[str, str], query: str) -> tuple[Any, str]:
    """The query's vector from the provider the index was embedded with, or why not."""
    vectors, why = index_vectors(con, meta, [query], "query")
    return (vectors[0] if vectors else None), why


def index_vectors(
    con: Any, meta: dict[str, str], texts: list[str], purpose: TextKind
) -> tuple[list[list[float]] | None, str]:
    """Vectors for ``texts`` from the provider the index was embedded with (``purpose``
    "query" for a search, "document" for code compared with indexed code), or why not: the
    index has none, the configured provider differs from the index's, the provider failed,
    or it answered with another dimension."""
    from znt.config import load_provider_config
    from znt.index import store
    from znt.index.embed import ProviderError, make_embedder
    from znt.index.embed.stage import configured_name, has_embeddings

    if not meta.get("embed_model"):
        return None, "the index has no embeddings (run `znt scan` with a provider; see `znt setup`)"
    copy = store.read_copy(con)
    if not (copy is not None and copy.vectors is not None) and not has_embeddings(con):
        return None, "the index has no embeddings"
    config = load_provider_config()
    if config.mode == "bm25":
        return None, "the configured provider is bm25"
    if configured_name(config) != meta["embed_model"]:
        return None, (
            f"the index was embedded with {meta['embed_model']}, the configured provider is "
            f"{configured_name(config)}; run `znt scan` to re-embed"
        )
    try:
        embedder = make_embedder(config)
        if embedder is None:
            return None, "no embedder"
        vectors = [[float(x) for x in v] for v in embedder.embed(texts, purpose)]
    except ProviderError as exc:
        return None, exc.message
    dim = int(meta.get("embed_dim") or 0)
    for v in vectors:
        if len(v) != dim:
            return None, f"the provider returned {len(v)} dimensions, the index holds {dim}"
    return vectors, ""
