"""The embedding stage of a scan: vectors for the texts that have none yet.

It runs after the scan has published its lexical index and graph, so a provider that fails,
hangs or disappears costs only vectors: search keeps working lexically, and the next scan
resumes where this one stopped. Vectors are keyed by the hash of the embedded text, so only
new or changed texts are ever embedded. The model is loaded only when something is missing
(a one-file rescan that changed no embedded text never loads it).

Writes are short transactions, one per ``FLUSH_TEXTS`` texts or ``FLUSH_SECONDS``, so
readers are locked out briefly and a crash loses at most one chunk. The model's name and
dimension are stored in ``meta``; vectors from another model are dropped and redone, never
mixed with new ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from znt.config import ProviderConfig, ProviderError
from znt.index.embed import Embedder, make_embedder

FLUSH_TEXTS = 512
FLUSH_SECONDS = 10.0

Progress = Callable[[str, int, int], None]


@dataclass
class EmbedReport:
    status: str  # completed | up_to_date | skipped | partial | failed
    provider: str
    model: str | None
    embedded: int = 0
    total_texts: int = 0
    missing: int = 0
    seconds: float = 0.0
    message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def configured_name(config: ProviderConfig) -> str:
    """What identifies the configured model before it is loaded."""
    from znt.config import DEFAULT_LOCAL_MODEL

    return f"{config.mode}:{config.model or DEFAULT_LOCAL_MODEL}"


def has_embeddings(con: Any) -> bool:
    """Whether the open index (its main database) has an ``embeddings`` table."""
    row = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'embeddings' "
        "AND database_name = current_database()"
    ).fetchone()
    return bool(row and row[0])


def _missing(con: Any, same_model: bool) -> tuple[list[tuple[str, str]], int]:
    row = con.execute("SELECT count(DISTINCT text_hash) FROM embed_docs").fetchone()
    total = row[0] if row else 0
    if same_model and has_embeddings(con):
        rows = con.execute(
            "SELECT text_hash, any_value(text) FROM embed_docs "
            "WHERE text_hash NOT IN (SELECT hash FROM embeddings) GROUP BY text_hash"
        ).fetchall()
    else:
        rows = con.execute(
            "SELECT text_hash, any_value(text) FROM embed_docs GROUP BY text_hash"
        ).fetchall()
    return [(r[0], r[1]) for r in rows], int(total)


def run(
    index_path: Path,
    config: ProviderConfig | None,
    *,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
) -> EmbedReport:
    """Embed every text of the index that has no vector from the configured model."""
    from znt.index import store

    if config is None or config.mode == "bm25":
        return EmbedReport("skipped", "bm25", None, message="provider bm25: no vectors")
    started = time.monotonic()
    name = configured_name(config)
    with store.open_index(index_path, read_only=True) as con:
        meta = store.get_meta(con)
        same = meta.get("embed_model") == name
        todo, total = _missing(con, same)
    report = EmbedReport("up_to_date", config.mode, config.model, total_texts=total)
    if not todo:
        return report
    try:
        emb = embedder or make_embedder(config)
    except ProviderError as exc:
        report.status, report.missing, report.message = "failed", len(todo), exc.message
        return report
    except Exception as exc:  # a broken model install must not fail the scan
        report.status, report.missing = "failed", len(todo)
        report.message = f"the embedding model could not be loaded: {type(exc).__name__}: {exc}"
        return report
    if emb is None:
        return EmbedReport("skipped", config.mode, config.model)
    model_id = str(getattr(emb, "model_id", name))
    reset = not same or meta.get("embed_model_id") not in (None, model_id)
    if reset and same:
        # Same name, other weights (an updated model): everything is redone.
        with store.open_index(index_path, read_only=True) as con:
            todo, total = _missing(con, False)
    todo.sort(key=lambda item: len(item[1]))
    progress = progress or (lambda _p, _d, _t: None)
    done = 0
    pending: list[tuple[str, Any]] = []
    last_flush = time.monotonic()
    try:
        # Chunks of the provider's batch size: what a failing provider already answered
        # is kept.
        step = max(1, min(int(config.batch_size or 64), 256))
        for start in range(0, len(todo), step):
            chunk = todo[start : start + step]
            vectors = emb.embed([text for _h, text in chunk], "document")
            pending.extend(zip((h for h, _t in chunk), vectors.tolist(), strict=True))
            done += len(chunk)
            progress("embedding", done, len(todo))
            if len(pending) >= FLUSH_TEXTS or time.monotonic() - last_flush > FLUSH_SECONDS:
                _write(index_path, pending, name, model_id, reset)
                report.embedded += len(pending)
                pending, reset, last_flush = [], False, time.monotonic()
        if pending:
            _write(index_path, pending, name, model_id, reset)
            report.embedded += len(pending)
        report.status = "completed"
    except ProviderError as exc:
        if pending:
            _write(index_path, pending, name, model_id, reset)
            report.embedded += len(pending)
        report.status = "partial" if report.embedded else "failed"
        report.message = exc.message
    report.missing = len(todo) - report.embedded
    report.seconds = round(time.monotonic() - started, 2)
    return report


def _write(
    index_path: Path, items: list[tuple[str, Any]], name: str, model_id: str, reset: bool
) -> None:
    from znt.index import store

    dim = len(items[0][1])
    con = store.connect(index_path, read_only=False)
    try:
        store.check_schema(con)
        con.execute("BEGIN")
        if reset or not has_embeddings(con):
            con.execute("DROP TABLE IF EXISTS embeddings")
            con.execute(f"CREATE TABLE embeddings (hash VARCHAR, vec FLOAT[{int(dim)}])")
            store.set_meta(
                con, {"embed_model": name, "embed_model_id": model_id, "embed_dim": str(dim)}
            )
        con.execute(
            f"INSERT INTO embeddings SELECT unnest(?::VARCHAR[]), unnest(?::FLOAT[{int(dim)}][])",
            [[h for h, _v in items], [v for _h, v in items]],
        )
        con.execute("COMMIT")
    finally:
        con.close()


def carry_over(con: Any, old_index: Path) -> int:
    """Copy the vectors a rebuilt index can reuse from the file it replaces (same texts,
    same model); returns how many. Any problem with the old file just means none."""
    if not old_index.exists():
        return 0
    try:
        quoted = str(old_index).replace("'", "''")  # a project path may hold a quote
        con.execute(f"ATTACH '{quoted}' AS old_index (READ_ONLY)")
    except Exception:
        return 0
    try:
        row = con.execute(
            "SELECT count(*) FROM duckdb_tables() "
            "WHERE database_name = 'old_index' AND table_name = 'embeddings'"
        ).fetchone()
        if not row or not row[0]:
            return 0
        meta = dict(
            con.execute("SELECT key, value FROM old_index.meta WHERE key LIKE 'embed_%'").fetchall()
        )
        dim = int(meta.get("embed_dim") or 0)
        if not dim:
            return 0
        con.execute(f"CREATE TABLE embeddings (hash VARCHAR, vec FLOAT[{dim}])")
        con.execute(
            "INSERT INTO embeddings SELECT e.hash, e.vec FROM old_index.embeddings e "
            "WHERE e.hash IN (SELECT text_hash FROM embed_docs)"
        )
        from znt.index.store import set_meta

        set_meta(con, meta)
        return int(con.execute("SELECT count(*) FROM embeddings").fetchone()[0])
    except Exception:
        con.execute("DROP TABLE IF EXISTS embeddings")
        return 0
    finally:
        con.execute("DETACH old_index")


def prune(con: Any, gone_hashes_table: str) -> None:
    """Drop vectors whose text no symbol has any more, among the hashes in the temp table
    ``gone_hashes_table`` (the texts of the files a scan replaced)."""
    if has_embeddings(con):
        con.execute(
            f"DELETE FROM embeddings WHERE hash IN (SELECT text_hash FROM {gone_hashes_table}) "
            "AND hash NOT IN (SELECT text_hash FROM embed_docs)"
        )


# Texts per byte of source when no index tells (sympy at e950d31: 53,703 texts in 28,499,458
# bytes of indexed files), and texts per second of the local model on two CPU cores
# (docs/benchmarks/query.md: 42 texts/s) when no scan has measured it yet.
DEFAULT_TEXTS_PER_BYTE = 53_703 / 28_499_458
DEFAULT_LOCAL_RATE = 42.0


def estimate(
    index_path: Path, config: ProviderConfig | None, changed_bytes: int, rate: float | None
) -> dict[str, Any]:
    """What ``scan --dry-run`` says about embeddings: how many texts a scan would embed (the
    index's texts without a vector, plus the changed files' bytes at the index's own texts
    per byte) and, from the throughput the last scan measured (``rate``, texts/s), how long.
    Nothing is loaded or sent to a provider."""
    if config is None or config.mode == "bm25":
        why = "--no-embed" if config is None else "provider bm25"
        return {"status": "skipped", "message": why, "texts": 0, "seconds": None}
    from znt.index import store

    pending, per_byte = 0, DEFAULT_TEXTS_PER_BYTE
    if index_path.exists():
        with store.open_index(index_path, read_only=True) as con:
            name = configured_name(config)
            same = store.get_meta(con).get("embed_model") == name
            _todo, total = _missing(con, same)
            pending = len(_todo)
            row = con.execute("SELECT sum(size) FROM files").fetchone()
            indexed_bytes = int(row[0] or 0) if row else 0
            if total and indexed_bytes:
                per_byte = total / indexed_bytes
    texts = pending + round(changed_bytes * per_byte)
    measured = rate is not None
    if rate is None and config.mode == "local":
        rate = DEFAULT_LOCAL_RATE
    return {
        "status": "estimate",
        "model_key": configured_name(config),
        "texts": texts,
        "texts_per_second": rate,
        "rate_source": "last scan" if measured else ("typical" if rate else None),
        "seconds": round(texts / rate, 1) if rate else None,
    }
