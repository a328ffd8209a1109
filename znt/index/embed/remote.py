"""Embeddings from a server: Ollama's ``/api/embed`` or any OpenAI-compatible ``/embeddings``
(and, through the subclass in ``gemini.py``, the Gemini embedding API).

Plain ``urllib`` (no new dependency). Texts go in batches bounded by count and by UTF-8
bytes; a text longer than the byte bound is cut to fit rather than dropped. Connection
resets, HTTP 429 and 5xx are retried a bounded number of times; everything else becomes a
``ProviderError`` that names the provider, the URL and the model, with any server text
redacted so that a key echoed back by a server is never shown. Redirects are refused: a
redirect would carry the Authorization header to an address the user never configured.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from znt import __version__
from znt.config import ProviderConfig, ProviderError
from znt.index.embed.provider import TextKind

if TYPE_CHECKING:
    import numpy as np

_RETRY_STATUS = {429, 500, 502, 503, 504}
_MAX_BACKOFF_S = 5.0
_EXCERPT_CHARS = 200
_MAX_BODY_BYTES = 512 * 1024 * 1024
_LABELS = {"ollama": "Ollama", "openai": "the OpenAI-compatible endpoint", "gemini": "Gemini"}
_ERROR_BODY_BYTES = 64 * 1024  # of an error answer, read and redacted whole, then cut


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(
        self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        raise ProviderError(
            f"{req.full_url} redirected (HTTP {code}) to another address; znt does not follow "
            "redirects (they would carry the key elsewhere): set the final URL with "
            "`znt setup --url`"
        )


def truncate_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, on a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", "ignore")


def batches(texts: Sequence[str], max_count: int, max_bytes: int) -> Iterator[list[str]]:
    """Consecutive batches of at most ``max_count`` texts and ``max_bytes`` UTF-8 bytes."""
    batch: list[str] = []
    size = 0
    for text in texts:
        text = truncate_utf8(text, max_bytes)
        n = len(text.encode("utf-8"))
        if batch and (len(batch) >= max_count or size + n > max_bytes):
            yield batch
            batch, size = [], 0
        batch.append(text)
        size += n
    if batch:
        yield batch


class RemoteEmbedder:
    """An ``Embedder`` backed by an Ollama or OpenAI-compatible HTTP endpoint.

    The HTTP plumbing (retries, timeouts, redirects refused, redaction), the batching and the
    checks on the vectors (count, one dimension, finite, normalised) live here; a subclass
    for another wire format overrides ``_embed_batch``, ``_auth_headers``, ``_hint`` and
    ``list_models`` only."""

    modes: tuple[str, ...] = ("ollama", "openai")
    max_batch_count: int | None = None  # the server's own cap on texts per request, if any

    def __init__(
        self, config: ProviderConfig, *, retries: int = 2, backoff_s: float = 0.25
    ) -> None:
        if config.mode not in self.modes:
            raise ProviderError(
                f"{type(self).__name__} serves {' and '.join(self.modes)}, not {config.mode!r}"
            )
        if not config.model:
            raise ProviderError(
                f"no embedding model configured for provider {config.mode}; "
                f"run `znt setup --mode {config.mode} --model NAME`"
            )
        from znt.config import DEFAULT_URLS, check_url

        self.config = config
        self.provider: str = config.mode
        self.model: str = config.model
        self.model_id = f"{config.mode}:{config.model}"
        self.url = check_url(
            config.url or DEFAULT_URLS[config.mode], allow_private=config.allow_private_url
        )
        self._resolved = False
        self.dim: int | None = None
        self.retries = max(0, retries)
        self.backoff_s = max(0.0, backoff_s)
        self.label = _LABELS.get(config.mode, config.mode)
        self._token: str | None = None
        self._token_read = False
        self._opener = self._build_opener()

    def __repr__(self) -> str:  # never shows the key
        return f"RemoteEmbedder({self.model_id!r}, url={self.url!r})"

    # -- HTTP -----------------------------------------------------------------------------

    def _build_opener(self) -> urllib.request.OpenerDirector:
        from znt.config import is_loopback

        handlers: list[Any] = [_NoRedirect()]
        if is_loopback(self.url):
            handlers.append(urllib.request.ProxyHandler({}))  # never send local traffic to a proxy
        return urllib.request.build_opener(*handlers)

    def _check_resolved(self) -> None:
        """Once per embedder: the host's addresses are allowed too (znt/urlpolicy.py), so a
        name cannot stand in for a metadata or private address."""
        if self._resolved:
            return
        from urllib.parse import urlsplit

        from znt.urlpolicy import RefusedURL, check_resolved

        parts = urlsplit(self.url)
        try:
            check_resolved(
                parts.hostname or "", parts.port, allow_private=self.config.allow_private_url
            )
        except RefusedURL as exc:
            raise ProviderError(
                f"{self.label} at {self.url} refused: {exc}", url=self.url
            ) from None
        self._resolved = True

    def _key(self) -> str | None:
        if not self._token_read:
            from znt.secrets import resolve_token

            self._token = resolve_token(self.config)
            self._token_read = True
        return self._token

    def _redact(self, text: str) -> str:
        from znt.redact import redact

        return redact(text, [self._token])

    def _excerpt(self, body: bytes) -> str:
        """What the server said, redacted as a whole before anything is cut (a key that
        straddled a cut would otherwise survive as a piece)."""
        text = self._redact(body[:_ERROR_BODY_BYTES].decode("utf-8", "replace"))
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and "error" in doc:
            err = doc["error"]
            text = str(err.get("message", err)) if isinstance(err, dict) else str(err)
        text = " ".join(self._redact(text).split())
        return text[:_EXCERPT_CHARS] + ("..." if len(text) > _EXCERPT_CHARS else "")

    def _request(self, method: str, path: str, payload: dict[str, Any] | None) -> Any:
        """One JSON request with bounded retries; returns the decoded JSON answer."""
        url = self.url + path
        headers = {"Accept": "application/json", "User-Agent": f"znt/{__version__}"}
        data = None
        if payload is not None:
            data = json.dumps(payload).encode("utf-8")
            headers["Content-Type"] = "application/json"
        self._check_resolved()
        key = self._key()
        if key:
            headers.update(self._auth_headers(key))
        attempt = 0
        while True:
            retry_after: float | None = None
            try:
                req = urllib.request.Request(url, data=data, headers=headers, method=method)
                with self._opener.open(req, timeout=self.config.timeout_s) as resp:
                    body = resp.read(_MAX_BODY_BYTES)
                break
            except urllib.error.HTTPError as exc:
                try:
                    err_body = exc.read(_ERROR_BODY_BYTES)
                except (OSError, http.client.HTTPException):
                    err_body = b""
                if exc.code not in _RETRY_STATUS or attempt >= self.retries:
                    raise self._http_error(url, exc.code, exc.reason, err_body) from None
                retry_after = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
            except ProviderError:
                raise
            except TimeoutError:
                raise self._timeout(url) from None
            except urllib.error.URLError as exc:
                reason = exc.reason
                if isinstance(reason, TimeoutError):
                    raise self._timeout(url) from None
                if isinstance(reason, ConnectionRefusedError):
                    raise ProviderError(
                        f"cannot reach {self.label} at {self.url}: connection refused "
                        "(is the server running? check embedding.url)",
                        url=self.url,
                    ) from None
                if isinstance(reason, socket.gaierror):
                    raise ProviderError(
                        f"cannot reach {self.label} at {self.url}: unknown host", url=self.url
                    ) from None
                if not isinstance(reason, ConnectionError) or attempt >= self.retries:
                    raise ProviderError(
                        f"cannot reach {self.label} at {self.url}: {self._redact(str(reason))}",
                        url=self.url,
                    ) from None
            except (ConnectionError, http.client.HTTPException) as exc:
                if attempt >= self.retries:
                    what = (
                        "closed the connection without an answer"
                        if isinstance(exc, (http.client.RemoteDisconnected, ConnectionResetError))
                        else f"broke off the answer ({type(exc).__name__})"
                    )
                    raise ProviderError(
                        f"{self.label} at {self.url} {what} "
                        f"(after {attempt + 1} attempt{'s' if attempt else ''})",
                        url=self.url,
                    ) from None
            attempt += 1
            delay = min(self.backoff_s * (2 ** (attempt - 1)), _MAX_BACKOFF_S)
            if retry_after is not None:
                delay = min(max(delay, retry_after), _MAX_BACKOFF_S)
            time.sleep(delay)
        try:
            return json.loads(body)
        except ValueError:
            raise ProviderError(
                f"{self.label} at {url} sent an answer that is not JSON: {self._excerpt(body)!r}",
                url=self.url,
            ) from None

    def _auth_headers(self, key: str) -> dict[str, str]:
        """The headers that carry the key (never part of the URL, where logs would keep it)."""
        return {"Authorization": f"Bearer {key}"}

    def _timeout(self, url: str) -> ProviderError:
        return ProviderError(
            f"{self.label} at {url} did not answer within {self.config.timeout_s:g}s "
            "(embedding.timeout_seconds)",
            url=self.url,
        )

    def _hint(self, code: int, body: bytes) -> str:
        """What to check for an HTTP error ``code`` (with the server's ``body``), or ''."""
        if code in (401, 403):
            return " (check the key: embedding.token_env / token_ref)"
        if code == 404 and self.provider == "ollama":
            return f" (is the model pulled? `ollama pull {self.model}`)"
        if code == 404:
            return " (check embedding.url: it should end before /embeddings, e.g. .../v1)"
        return ""

    def _http_error(self, url: str, code: int, reason: str, body: bytes) -> ProviderError:
        hint = self._hint(code, body)
        excerpt = self._excerpt(body)
        reason = " ".join(self._redact(str(reason or "")).split())[:_EXCERPT_CHARS]
        return ProviderError(
            f"{self.label} at {url} answered HTTP {code} {reason}{hint}"
            + (f": {excerpt}" if excerpt else ""),
            url=self.url,
            status=code,
        )

    # -- embeddings -----------------------------------------------------------------------

    def _embed_batch(self, batch: list[str], kind: TextKind) -> list[Any]:
        """The raw vectors for one batch, in the order of ``batch``."""
        if self.provider == "ollama":
            doc = self._request("POST", "/api/embed", {"model": self.model, "input": batch})
            vectors = doc.get("embeddings") if isinstance(doc, dict) else None
            if not isinstance(vectors, list):
                raise self._malformed("no 'embeddings' list")
            return vectors
        doc = self._request("POST", "/embeddings", {"model": self.model, "input": batch})
        data = doc.get("data") if isinstance(doc, dict) else None
        if not isinstance(data, list) or not all(
            isinstance(d, dict) and "embedding" in d for d in data
        ):
            raise self._malformed("no 'data' list of {embedding, index} objects")
        if all(isinstance(d.get("index"), int) for d in data):
            if sorted(d["index"] for d in data) != list(range(len(data))):
                raise self._malformed("the 'index' fields are not 0..n-1")
            data = sorted(data, key=lambda d: d["index"])
        return [d["embedding"] for d in data]

    def _malformed(self, what: str) -> ProviderError:
        return ProviderError(
            f"{self.label} at {self.url} sent an unexpected answer for model {self.model}: {what}",
            url=self.url,
        )

    def embed(self, texts: Sequence[str], kind: TextKind = "document") -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in order."""
        import numpy as np

        rows: list[np.ndarray] = []
        count = self.config.batch_size
        if self.max_batch_count is not None:
            count = min(count, self.max_batch_count)
        for batch in batches(texts, count, self.config.max_batch_bytes):
            vectors = self._embed_batch(batch, kind)
            if len(vectors) != len(batch):
                raise ProviderError(
                    f"{self.label} at {self.url} returned {len(vectors)} vectors for "
                    f"{len(batch)} texts (model {self.model})",
                    url=self.url,
                )
            try:
                arr = np.asarray(vectors, dtype=np.float64)
            except (TypeError, ValueError):
                raise self._malformed(
                    "vectors of different lengths or non-numbers in one answer"
                ) from None
            if arr.ndim != 2 or arr.shape[1] == 0:
                raise self._malformed(f"vectors of shape {arr.shape}, expected (n, dim)")
            if self.dim is None:
                self.dim = int(arr.shape[1])
            elif arr.shape[1] != self.dim:
                raise ProviderError(
                    f"dimension mismatch: {self.label} at {self.url} returned vectors of "
                    f"dimension {arr.shape[1]} after {self.dim} (model {self.model})",
                    url=self.url,
                )
            if not np.isfinite(arr).all():
                raise ProviderError(
                    f"{self.label} at {self.url} returned non-finite values (NaN or inf) "
                    f"for model {self.model}",
                    url=self.url,
                )
            norms = np.linalg.norm(arr, axis=1, keepdims=True)
            norms[norms == 0] = 1.0  # an all-zero vector stays zero rather than becoming NaN
            rows.append((arr / norms).astype(np.float32))
        if not rows:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        return np.concatenate(rows, axis=0)

    def list_models(self) -> list[str]:
        """Model names the server offers (Ollama ``/api/tags``, OpenAI ``/models``)."""
        if self.provider == "ollama":
            doc = self._request("GET", "/api/tags", None)
            models = doc.get("models") if isinstance(doc, dict) else None
            if not isinstance(models, list):
                raise self._malformed("no 'models' list in /api/tags")
            return [str(m.get("name")) for m in models if isinstance(m, dict) and m.get("name")]
        doc = self._request("GET", "/models", None)
        data = doc.get("data") if isinstance(doc, dict) else None
        if not isinstance(data, list):
            raise self._malformed("no 'data' list in /models")
        return [str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id")]


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
