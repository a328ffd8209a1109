"""Embeddings from the Gemini API: ``models/<m>:embedContent`` and ``:batchEmbedContents``.

The same client as the Ollama and OpenAI-compatible providers (``remote.py``: retries,
timeouts, refused redirects, redaction, batching by count and bytes, one dimension per run,
normalised float32 rows); only the wire format differs:

* the key travels in the ``x-goog-api-key`` header, never in the URL (Google also accepts
  ``?key=``, but a URL ends up in proxy logs and error messages);
* one text goes to ``:embedContent`` (a search query), several to ``:batchEmbedContents``,
  which takes at most 100 requests, so batches are capped there whatever
  ``embedding.batch_size`` says;
* documents are embedded with ``taskType: RETRIEVAL_DOCUMENT`` and queries with
  ``CODE_RETRIEVAL_QUERY``, the task Google defines for "a natural-language query that
  retrieves code blocks embedded as documents" — what ``znt search`` does;
* Gemini answers a wrong key with HTTP 400 ``API_KEY_INVALID`` (not 401), so the key hint
  follows the body as well as the status.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from znt.config import DEFAULT_GEMINI_MODEL, DEFAULT_GEMINI_URL, ProviderConfig, ProviderError
from znt.index.embed.provider import TextKind
from znt.index.embed.remote import RemoteEmbedder

MAX_BATCH = 100  # batchEmbedContents refuses more requests than this in one call
_TASKS: dict[str, str] = {"document": "RETRIEVAL_DOCUMENT", "query": "CODE_RETRIEVAL_QUERY"}
_MODEL_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
_MAX_MODEL_PAGES = 10


class GeminiEmbedder(RemoteEmbedder):
    """An ``Embedder`` backed by the Gemini embedding API (or a server that speaks it)."""

    modes = ("gemini",)
    max_batch_count = MAX_BATCH

    def __init__(
        self, config: ProviderConfig, *, retries: int = 2, backoff_s: float = 0.25
    ) -> None:
        super().__init__(config, retries=retries, backoff_s=backoff_s)
        name = self.model.removeprefix("models/")
        if not _MODEL_NAME.match(name):
            raise ProviderError(
                f"the Gemini model name {self.model!r} is not a model id "
                f"(letters, digits, '.', '_', '-'; for example {DEFAULT_GEMINI_MODEL})"
            )
        self._resource = f"models/{name}"
        self._path = "/models/" + quote(name, safe="")

    def _auth_headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    def _hint(self, code: int, body: bytes) -> str:
        text = body[:4096].decode("utf-8", "replace")
        if code in (401, 403) or "API_KEY_INVALID" in text or "API key not valid" in text:
            return " (check the key: embedding.token_env / token_ref)"
        if code == 404:
            return (
                f" (is {self.model} a Gemini embedding model? for example "
                f"{DEFAULT_GEMINI_MODEL}; check embedding.url, e.g. {DEFAULT_GEMINI_URL})"
            )
        return ""

    def _one_request(self, text: str, kind: TextKind) -> dict[str, Any]:
        return {
            "model": self._resource,
            "content": {"parts": [{"text": text}]},
            "taskType": _TASKS[kind],
        }

    def _embed_batch(self, batch: list[str], kind: TextKind) -> list[Any]:
        if len(batch) == 1:
            doc = self._request(
                "POST", f"{self._path}:embedContent", self._one_request(batch[0], kind)
            )
            emb = doc.get("embedding") if isinstance(doc, dict) else None
            if not isinstance(emb, dict) or not isinstance(emb.get("values"), list):
                raise self._malformed("no 'embedding': {'values': [...]} object")
            return [emb["values"]]
        payload = {"requests": [self._one_request(t, kind) for t in batch]}
        doc = self._request("POST", f"{self._path}:batchEmbedContents", payload)
        embeddings = doc.get("embeddings") if isinstance(doc, dict) else None
        if not isinstance(embeddings, list) or not all(
            isinstance(e, dict) and isinstance(e.get("values"), list) for e in embeddings
        ):
            raise self._malformed("no 'embeddings' list of {'values': [...]} objects")
        return [e["values"] for e in embeddings]

    def list_models(self) -> list[str]:
        """The models that can embed (``supportedGenerationMethods`` has ``embedContent``),
        without the ``models/`` prefix, over at most a few pages of ``GET /models``."""
        names: list[str] = []
        token = ""
        for _ in range(_MAX_MODEL_PAGES):
            path = "/models?pageSize=1000" + (
                f"&pageToken={quote(token, safe='')}" if token else ""
            )
            doc = self._request("GET", path, None)
            models = doc.get("models") if isinstance(doc, dict) else None
            if not isinstance(models, list):
                raise self._malformed("no 'models' list in /models")
            for m in models:
                if not isinstance(m, dict) or not isinstance(m.get("name"), str):
                    continue
                methods = m.get("supportedGenerationMethods")
                if isinstance(methods, list) and "embedContent" not in methods:
                    continue
                names.append(m["name"].removeprefix("models/"))
            token = doc.get("nextPageToken") or ""
            if not isinstance(token, str) or not token:
                break
        return names
