"""The Ollama, OpenAI-compatible and Gemini providers against a real HTTP server on
127.0.0.1: batching, normalisation, and a clear ProviderError for every way a server can
fail (what only Gemini does is in tests/test_provider_gemini.py)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tests.embed_server import EmbedServer, dead_port, vector
from znt.index.embed import ProviderConfig, ProviderError, make_embedder
from znt.index.embed.gemini import GeminiEmbedder
from znt.index.embed.remote import RemoteEmbedder, batches, truncate_utf8

KINDS = ["ollama", "openai", "gemini"]
LABELS = {"ollama": "Ollama", "openai": "the OpenAI-compatible endpoint", "gemini": "Gemini"}


def ollama(server_url: str, **kw: object) -> RemoteEmbedder:
    cfg = ProviderConfig(mode="ollama", model="nomic-embed-text", url=server_url, **kw)  # type: ignore[arg-type]
    return RemoteEmbedder(cfg, retries=2, backoff_s=0.01)


def openai(server_url: str, **kw: object) -> RemoteEmbedder:
    cfg = ProviderConfig(mode="openai", model="text-embedding-3-small", url=server_url, **kw)  # type: ignore[arg-type]
    return RemoteEmbedder(cfg, retries=2, backoff_s=0.01)


def base_url(kind: str, server: EmbedServer) -> str:
    return {"ollama": server.url, "openai": server.openai_url, "gemini": server.gemini_url}[kind]


def driver(kind: str, url: str, **kw: object) -> RemoteEmbedder:
    """The ``kind`` driver for the base ``url`` (see ``base_url``)."""
    if kind == "ollama":
        return ollama(url, **kw)
    if kind == "openai":
        return openai(url, **kw)
    cfg = ProviderConfig(mode="gemini", model="gemini-embedding-001", url=url, **kw)  # type: ignore[arg-type]
    return GeminiEmbedder(cfg, retries=2, backoff_s=0.01)


def expected(texts: list[str], dim: int) -> np.ndarray:
    arr = np.array([vector(t, dim) for t in texts])
    return arr / np.linalg.norm(arr, axis=1, keepdims=True)


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_vectors_are_in_order_normalised_float32(kind: str) -> None:
    texts = [f"def f{i}(): return {i}" for i in range(10)]
    with EmbedServer(dim=12) as server:
        emb = ollama(server.url) if kind == "ollama" else openai(server.openai_url)
        out = emb.embed(texts)
        paths = {r["path"] for r in server.requests}
    assert out.dtype == np.float32 and out.shape == (10, 12)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    # The server answers OpenAI requests in reverse order: rows must follow "index".
    assert np.allclose(out, expected(texts, 12), atol=1e-6)
    assert emb.dim == 12 and emb.provider == kind
    assert emb.model_id == f"{kind}:{emb.model}"
    assert paths == ({"/api/embed"} if kind == "ollama" else {"/v1/embeddings"})


def test_make_embedder_builds_the_remote_provider() -> None:
    with EmbedServer() as server:
        cfg = ProviderConfig(mode="ollama", model="m", url=server.url)
        emb = make_embedder(cfg)
        assert isinstance(emb, RemoteEmbedder)
        assert emb.embed(["x"]).shape == (1, 8)


def test_batching_by_count() -> None:
    texts = [f"t{i}" for i in range(10)]
    with EmbedServer() as server:
        emb = ollama(server.url, batch_size=4)
        out = emb.embed(texts)
        sent = [r["json"]["input"] for r in server.requests]
    assert [len(b) for b in sent] == [4, 4, 2]
    assert [t for b in sent for t in b] == texts
    assert all(r["json"]["model"] == "nomic-embed-text" for r in server.requests)
    assert out.shape == (10, 8)


def test_batching_by_bytes_and_a_long_text_is_cut_not_dropped() -> None:
    # 300 B texts under a 1000 B limit: three per request; a 5000 B text is cut to 1000 B.
    texts = ["a" * 300] * 5 + ["é" * 2500] + ["b" * 10]
    with EmbedServer() as server:
        emb = openai(server.openai_url, max_batch_bytes=1000, batch_size=64)
        out = emb.embed(texts)
        sent = [r["json"]["input"] for r in server.requests]
    assert out.shape == (7, 8)
    assert [len(b) for b in sent] == [3, 2, 1, 1]
    for batch in sent:
        assert sum(len(t.encode()) for t in batch) <= 1000
    long_text = sent[2][0]
    assert long_text == "é" * 500 and len(long_text.encode()) == 1000


def test_truncate_keeps_whole_characters() -> None:
    assert truncate_utf8("aé", 2) == "a"  # é is two bytes: not split in half
    assert truncate_utf8("abc", 10) == "abc"
    assert list(batches(["x"] * 3, 2, 100)) == [["x", "x"], ["x"]]


def test_empty_input_makes_no_request() -> None:
    with EmbedServer() as server:
        out = ollama(server.url).embed([])
        assert server.requests == []
    assert out.shape[0] == 0 and out.dtype == np.float32


@pytest.mark.parametrize("kind", KINDS)
def test_dimension_mismatch_between_batches(kind: str) -> None:
    with EmbedServer(wrong_dim_on=2) as server:
        emb = driver(kind, base_url(kind, server), batch_size=2)
        with pytest.raises(ProviderError) as err:
            emb.embed(["a", "b", "c", "d"])
    assert f"dimension mismatch: {LABELS[kind]} at" in err.value.message
    assert "dimension 11 after 8" in err.value.message


def test_http_500_is_retried_then_reported() -> None:
    with EmbedServer(status=500) as server:
        emb = ollama(server.url)
        with pytest.raises(ProviderError) as err:
            emb.embed(["a"])
        assert server.embed_requests == 3  # one try and two retries
    msg = err.value.message
    assert f"Ollama at {server.url}/api/embed answered HTTP 500" in msg
    assert "server failure number 3" in msg
    assert err.value.exit_code == 5


def test_a_transient_503_is_retried_and_succeeds() -> None:
    with EmbedServer(status=503, status_times=1) as server:
        out = openai(server.openai_url).embed(["a", "b"])
        assert server.embed_requests == 2
    assert out.shape == (2, 8)


def test_http_401_is_not_retried_and_names_the_key_setting(monkeypatch) -> None:
    monkeypatch.setenv("ZNT_TEST_KEY", "wrong-key-123456")
    with EmbedServer(require_token="right-key") as server:
        emb = openai(server.openai_url, token_env="ZNT_TEST_KEY")
        with pytest.raises(ProviderError) as err:
            emb.embed(["a"])
        assert server.embed_requests == 1
        assert server.requests[0]["headers"]["authorization"] == "Bearer wrong-key-123456"
    msg = err.value.message
    assert "answered HTTP 401" in msg and "check the key" in msg
    assert "Incorrect API key provided" in msg


@pytest.mark.parametrize("kind", KINDS)
def test_timeout(kind: str) -> None:
    with EmbedServer(sleep_s=2.0) as server:
        emb = driver(kind, base_url(kind, server), timeout_s=0.3)
        started = time.monotonic()
        with pytest.raises(ProviderError) as err:
            emb.embed(["a"])
        elapsed = time.monotonic() - started
    assert f"{LABELS[kind]} at" in err.value.message
    assert "did not answer within 0.3s" in err.value.message
    assert elapsed < 1.5  # timeouts are not retried


@pytest.mark.parametrize("kind", KINDS)
def test_connection_refused(kind: str) -> None:
    url = f"http://127.0.0.1:{dead_port()}/v1"
    with pytest.raises(ProviderError) as err:
        driver(kind, url).embed(["a"])
    assert err.value.message.startswith(f"cannot reach {LABELS[kind]} at {url}: connection refused")


@pytest.mark.parametrize("kind", KINDS)
def test_connection_closed_without_answer_is_retried(kind: str) -> None:
    with EmbedServer(close_times=1) as server:
        out = driver(kind, base_url(kind, server)).embed(["a"])
        assert server.embed_requests == 2
    assert out.shape == (1, 8)


def test_connection_closed_every_time() -> None:
    with EmbedServer(close_times=100) as server:
        with pytest.raises(ProviderError) as err:
            ollama(server.url).embed(["a"])
        assert server.embed_requests == 3
    assert "closed the connection without an answer (after 3 attempts)" in err.value.message


def test_server_that_disappears_midway() -> None:
    server = EmbedServer(stop_after=2).start()
    try:
        emb = ollama(server.url, batch_size=2)
        with pytest.raises(ProviderError) as err:
            emb.embed([f"t{i}" for i in range(8)])
        # the server stops listening just after its second answer; a third request may
        # already have been accepted by then on a loaded machine
        assert 2 <= server.embed_requests <= 3
    finally:
        server.stop()
    assert f"cannot reach Ollama at {server.url}: connection refused" in err.value.message


@pytest.mark.parametrize("kind", KINDS)
def test_malformed_json(kind: str) -> None:
    with EmbedServer(not_json=True) as server, pytest.raises(ProviderError) as err:
        driver(kind, base_url(kind, server)).embed(["a"])
    assert "sent an answer that is not JSON" in err.value.message
    assert "Bad gateway" in err.value.message


@pytest.mark.parametrize("kind", KINDS)
def test_wrong_number_of_vectors(kind: str) -> None:
    with EmbedServer(wrong_count=True) as server, pytest.raises(ProviderError) as err:
        driver(kind, base_url(kind, server)).embed(["a", "b", "c"])
    assert "returned 2 vectors for 3 texts" in err.value.message


@pytest.mark.parametrize("kind", KINDS)
def test_non_finite_values(kind: str) -> None:
    with EmbedServer(nan=True) as server, pytest.raises(ProviderError) as err:
        driver(kind, base_url(kind, server)).embed(["a", "b"])
    assert "non-finite values" in err.value.message


@pytest.mark.parametrize("kind", KINDS)
def test_redirects_are_refused_so_the_key_stays_put(kind: str, monkeypatch) -> None:
    monkeypatch.setenv("ZNT_TEST_KEY", "sk-test-redirect-secret-0001")
    with EmbedServer() as target, EmbedServer(redirect_to=base_url(kind, target)) as s:
        emb = driver(kind, base_url(kind, s), token_env="ZNT_TEST_KEY")
        with pytest.raises(ProviderError) as err:
            emb.embed(["a"])
        assert target.requests == []  # the key never reached the other address
    assert "redirected (HTTP 307)" in err.value.message


def test_model_is_required() -> None:
    with pytest.raises(ProviderError) as err:
        RemoteEmbedder(ProviderConfig(mode="openai", url="http://127.0.0.1:1"))
    assert "no embedding model configured" in err.value.message


def test_list_models() -> None:
    with EmbedServer() as server:
        assert "nomic-embed-text:latest" in ollama(server.url).list_models()
        assert "all-minilm:latest" in openai(server.openai_url).list_models()
