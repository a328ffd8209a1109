"""The Gemini embedding driver against a real HTTP server on 127.0.0.1 that speaks the Gemini
API (``models/<m>:embedContent`` / ``:batchEmbedContents``, ``x-goog-api-key``): batching,
normalisation, the dimension check and a clear ProviderError for every way it can fail, as
for the Ollama and OpenAI-compatible drivers (tests/test_providers_http.py runs the failures all three share)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.embed_server import EmbedServer, vector
from znt.index.embed import ProviderConfig, ProviderError, make_embedder
from znt.index.embed.gemini import MAX_BATCH, GeminiEmbedder

MODEL = "gemini-embedding-001"


def server(**kw: object) -> EmbedServer:
    return EmbedServer(models=(MODEL, "text-embedding-004"), **kw)  # type: ignore[arg-type]


def gemini(url: str, model: str = MODEL, **kw: object) -> GeminiEmbedder:
    cfg = ProviderConfig(mode="gemini", model=model, url=url, **kw)  # type: ignore[arg-type]
    return GeminiEmbedder(cfg, retries=2, backoff_s=0.01)


def expected(texts: list[str], dim: int) -> np.ndarray:
    arr = np.array([vector(t, dim) for t in texts])
    return arr / np.linalg.norm(arr, axis=1, keepdims=True)


def embed_posts(s: EmbedServer) -> list[dict]:
    return [r for r in s.requests if r["method"] == "POST"]


def test_batch_vectors_in_order_normalised_with_the_key_in_a_header(monkeypatch) -> None:
    monkeypatch.setenv("ZNT_TEST_GEMINI_KEY", "AIzaTestKey-0123456789")
    texts = [f"def f{i}(): return {i}" for i in range(5)]
    with server(dim=12, require_token="AIzaTestKey-0123456789") as s:
        emb = gemini(s.gemini_url, token_env="ZNT_TEST_GEMINI_KEY")
        out = emb.embed(texts)
        posts = embed_posts(s)
    assert out.dtype == np.float32 and out.shape == (5, 12)
    assert np.allclose(out, expected(texts, 12), atol=1e-6)
    assert emb.dim == 12 and emb.provider == "gemini" and emb.model_id == f"gemini:{MODEL}"
    [post] = posts
    assert post["path"] == f"/v1beta/models/{MODEL}:batchEmbedContents"
    assert post["headers"]["x-goog-api-key"] == "AIzaTestKey-0123456789"
    assert "authorization" not in post["headers"]
    assert "key=" not in post["path"]  # never in the URL
    reqs = post["json"]["requests"]
    assert [r["content"]["parts"][0]["text"] for r in reqs] == texts
    assert {r["model"] for r in reqs} == {f"models/{MODEL}"}
    assert {r["taskType"] for r in reqs} == {"RETRIEVAL_DOCUMENT"}


def test_one_query_goes_to_embed_content_as_a_code_retrieval_query() -> None:
    with server(dim=6) as s:
        out = gemini(s.gemini_url, model=f"models/{MODEL}").embed(["retry backoff"], "query")
        [post] = embed_posts(s)
    assert post["path"] == f"/v1beta/models/{MODEL}:embedContent"
    assert post["json"]["taskType"] == "CODE_RETRIEVAL_QUERY"
    assert post["json"]["content"]["parts"][0]["text"] == "retry backoff"
    assert np.allclose(out, expected(["retry backoff"], 6), atol=1e-6)


def test_make_embedder_builds_the_gemini_driver() -> None:
    with server() as s:
        emb = make_embedder(ProviderConfig(mode="gemini", model=MODEL, url=s.gemini_url))
        assert isinstance(emb, GeminiEmbedder)
        assert emb.embed(["x", "y"]).shape == (2, 8)


def test_batching_by_count_is_capped_at_the_api_limit_of_100() -> None:
    texts = [f"t{i}" for i in range(230)]
    with server() as s:
        out = gemini(s.gemini_url, batch_size=4096).embed(texts)
        sent = [r["json"]["requests"] for r in embed_posts(s)]
    assert [len(b) for b in sent] == [MAX_BATCH, MAX_BATCH, 30]
    assert [r["content"]["parts"][0]["text"] for b in sent for r in b] == texts
    assert out.shape == (230, 8)


def test_batching_by_configured_count_and_bytes() -> None:
    texts = ["a" * 300] * 5 + ["é" * 2500] + ["b" * 10, "c"]
    with server() as s:
        out = gemini(s.gemini_url, max_batch_bytes=1000, batch_size=3).embed(texts)
        sent = [r for r in embed_posts(s)]
    assert out.shape == (8, 8)
    sizes = [
        len(r["json"]["requests"]) if r["path"].endswith("batchEmbedContents") else 1 for r in sent
    ]
    assert sizes == [3, 2, 1, 2]
    # the long text is cut to the byte bound, not dropped, and went alone to embedContent
    assert sent[2]["path"].endswith(":embedContent")
    assert sent[2]["json"]["content"]["parts"][0]["text"] == "é" * 500


def test_empty_input_makes_no_request() -> None:
    with server() as s:
        out = gemini(s.gemini_url).embed([])
        assert s.requests == []
    assert out.shape[0] == 0 and out.dtype == np.float32


def test_http_503_is_retried_then_reported_in_google_error_shape() -> None:
    with server(status=503) as s:
        with pytest.raises(ProviderError) as err:
            gemini(s.gemini_url).embed(["a", "b"])
        assert s.embed_requests == 3  # one try and two retries
    msg = err.value.message
    assert f"Gemini at {s.gemini_url}/models/{MODEL}:batchEmbedContents answered HTTP 503" in msg
    assert "server failure number 3" in msg
    assert err.value.exit_code == 5


def test_a_transient_429_is_retried_and_succeeds() -> None:
    with server(status=429, status_times=1) as s:
        out = gemini(s.gemini_url).embed(["a", "b"])
        assert s.embed_requests == 2
    assert out.shape == (2, 8)


def test_an_invalid_key_http_400_is_not_retried_names_the_key_and_is_redacted(
    monkeypatch,
) -> None:
    monkeypatch.setenv("ZNT_TEST_GEMINI_KEY", "AIzaWrongKey-987654321")
    with server(require_token="AIzaRightKey", echo_auth=True) as s:
        with pytest.raises(ProviderError) as err:
            gemini(s.gemini_url, token_env="ZNT_TEST_GEMINI_KEY").embed(["a"])
        assert s.embed_requests == 1
    msg = err.value.message
    assert "answered HTTP 400" in msg and "check the key" in msg
    assert "API key not valid" in msg
    assert "AIzaWrongKey-987654321" not in msg  # the server echoed it; znt does not


def test_unknown_model_404_says_what_to_check() -> None:
    with server() as s, pytest.raises(ProviderError) as err:
        gemini(s.gemini_url, model="no-such-model").embed(["a"])
    msg = err.value.message
    assert "answered HTTP 404" in msg and "models/no-such-model is not found" in msg
    assert "is no-such-model a Gemini embedding model?" in msg


def test_a_single_text_answer_without_an_embedding_object() -> None:
    with server(wrong_count=True) as s, pytest.raises(ProviderError) as err:
        gemini(s.gemini_url).embed(["a"])
    assert "no 'embedding': {'values': [...]} object" in err.value.message


def test_model_names_that_are_not_ids_are_refused() -> None:
    with pytest.raises(ProviderError) as err:
        gemini("http://127.0.0.1:1/v1beta", model="../../files?x=1")
    assert "is not a model id" in err.value.message
    with pytest.raises(ProviderError) as err:
        GeminiEmbedder(ProviderConfig(mode="gemini", url="http://127.0.0.1:1"))
    assert "no embedding model configured" in err.value.message


def test_list_models_follows_pages_and_keeps_embedding_models() -> None:
    with server() as s:
        names = gemini(s.gemini_url).list_models()
        pages = [r["path"] for r in s.requests]
    assert names == [MODEL, "text-embedding-004"]  # gemini-pro (page 2) cannot embed
    assert len(pages) == 2 and "pageToken=page2" in pages[1]


def test_setup_probe_lists_gemini_models(tmp_path, monkeypatch) -> None:
    from znt.features import setup

    with server() as s:
        check = setup.probe(ProviderConfig(mode="gemini", model=MODEL, url=s.gemini_url))
    assert check["ok"] and check["dimension"] == 8 and check["model_listed"] is True


def test_a_scan_and_a_vector_search_through_gemini(tmp_path, monkeypatch) -> None:
    """End to end: the managed config says gemini, the scan embeds documents in batches, a
    vector search embeds its query with embedContent, and the index records the model."""
    from tests.conftest import query
    from znt import api

    root = tmp_path / "p"
    root.mkdir()
    (root / "h.py").write_text(
        "\n\n".join(
            f"def handler_{i}(r):\n    '''Handle kind {i}.'''\n    return r\n" for i in range(4)
        )
    )
    monkeypatch.setenv("ZNT_TEST_GEMINI_KEY", "AIzaScanKey-42")
    with server(require_token="AIzaScanKey-42") as s:
        cfg = tmp_path / "cfg.yaml"
        cfg.write_text(
            "embedding:\n  provider: gemini\n  model: gemini-embedding-001\n"
            f"  url: {s.gemini_url}\n  token_env: ZNT_TEST_GEMINI_KEY\n"
        )
        monkeypatch.setenv("ZNT_CONFIG", str(cfg))
        doc = api.scan(str(root))
        assert doc["embeddings"]["status"] == "completed" and doc["warnings"] == 0
        res = api.search("Handle kind 2", mode="vector", project_path=str(root))
        posts = embed_posts(s)
        paths = [r["path"] for r in posts]
    assert posts[-1]["json"]["taskType"] == "CODE_RETRIEVAL_QUERY"
    assert res["answered_by"] == "vector" and res["results"]
    assert paths[-1].endswith(":embedContent")  # the query
    assert any(p.endswith(":batchEmbedContents") for p in paths[:-1])  # the documents
    meta = dict(query(root, "SELECT key, value FROM meta WHERE key LIKE 'embed_%'"))
    assert meta["embed_model"] == f"gemini:{MODEL}" and meta["embed_dim"] == "8"
