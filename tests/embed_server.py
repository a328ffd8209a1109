"""A real embedding server on 127.0.0.1 for tests: Ollama's ``/api/embed`` and ``/api/tags``,
OpenAI's ``/v1/embeddings`` and ``/v1/models``, and the Gemini API's
``/v1beta/models/<m>:embedContent``, ``:batchEmbedContents`` and ``/v1beta/models`` (in pages),
with failures to order.

Vectors are deterministic (seeded by a hash of the text) and deliberately not unit length, so
a test can tell that the client normalises them. Every request is recorded (method, path,
headers, JSON body) so tests can check batching and the Authorization header.

Behaviour knobs (keyword arguments of ``EmbedServer``):

* ``dim``: vector dimension (default 8);
* ``status`` / ``status_times``: answer embed requests with this HTTP status, for the first
  ``status_times`` requests only (``None``: always);
* ``echo_auth``: put the received Authorization header into error bodies (a careless server);
* ``require_token``: answer 401 unless ``Authorization: Bearer <token>`` (Gemini routes: 400
  ``API_KEY_INVALID`` unless ``x-goog-api-key: <token>``, as Google does);
* ``sleep_s``: wait this long before answering an embed request (to provoke timeouts);
* ``wrong_dim_on``: the Nth embed request (1-based) returns vectors of ``dim + 3``;
* ``wrong_count``: return one vector fewer than asked;
* ``nan``: put a NaN into the first vector;
* ``not_json``: answer 200 with a body that is not JSON;
* ``close_times``: close the connection without an answer for the first N embed requests;
* ``stop_after``: after answering N embed requests, stop listening (a provider that goes away);
* ``redirect_to``: answer embed requests with a 307 redirect to this URL.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def vector(text: str, dim: int) -> list[float]:
    """A deterministic, non-normalised vector for ``text``."""
    out: list[float] = []
    counter = 0
    while len(out) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        out += [(b - 127.5) / 10.0 for b in digest]
        counter += 1
    return out[:dim]


class EmbedServer:
    def __init__(
        self,
        *,
        dim: int = 8,
        status: int | None = None,
        status_times: int | None = None,
        echo_auth: bool = False,
        require_token: str | None = None,
        sleep_s: float = 0.0,
        wrong_dim_on: int | None = None,
        wrong_count: bool = False,
        nan: bool = False,
        not_json: bool = False,
        close_times: int = 0,
        stop_after: int | None = None,
        redirect_to: str | None = None,
        models: tuple[str, ...] = (
            "nomic-embed-text:latest",
            "all-minilm:latest",
            "gemini-embedding-001",
        ),
    ) -> None:
        self.dim = dim
        self.status = status
        self.status_times = status_times
        self.echo_auth = echo_auth
        self.require_token = require_token
        self.sleep_s = sleep_s
        self.wrong_dim_on = wrong_dim_on
        self.wrong_count = wrong_count
        self.nan = nan
        self.not_json = not_json
        self.close_times = close_times
        self.stop_after = stop_after
        self.redirect_to = redirect_to
        self.models = models
        self.requests: list[dict[str, Any]] = []
        self.embed_requests = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._stopped = False

    # -- lifecycle --------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The Ollama base URL (``/api/...``)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """The OpenAI-compatible base URL (``/v1/...``)."""
        return f"{self.url}/v1"

    @property
    def gemini_url(self) -> str:
        """The Gemini API base URL (``/v1beta/...``)."""
        return f"{self.url}/v1beta"

    def start(self) -> EmbedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> EmbedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _stop_soon(self) -> None:
        threading.Thread(target=self.stop, daemon=True).start()

    # -- answers ----------------------------------------------------------------------------

    def _failure(self, n_request: int, auth: str) -> tuple[int, str] | None:
        """The ordered failure for the Nth embed request, if any: (status, message)."""
        if self.status is None or (self.status_times is not None and n_request > self.status_times):
            return None
        msg = f"server failure number {n_request}"
        if self.echo_auth:
            msg += f" (request had {auth})"
        return self.status, msg

    def _vectors(self, texts: list[str], n_request: int) -> list[list[float]]:
        dim = self.dim + 3 if self.wrong_dim_on == n_request else self.dim
        vectors = [vector(t, dim) for t in texts]
        if self.wrong_count and vectors:
            vectors = vectors[:-1]
        if self.nan and vectors:
            vectors[0][0] = float("nan")
        return vectors

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, doc: Any, raw: bytes | None = None) -> None:
                body = raw if raw is not None else json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _record(self, body: Any) -> None:
                with server._lock:
                    server.requests.append(
                        {
                            "method": self.command,
                            "path": self.path,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "json": body,
                        }
                    )

            def do_GET(self) -> None:
                self._record(None)
                if self.path == "/api/tags":
                    models = [{"name": m, "size": 1} for m in server.models]
                    self._send(200, {"models": models})
                elif self.path == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": m} for m in server.models]})
                elif self.path.startswith("/v1beta/models?"):
                    # Two pages: the embedding models, then one that cannot embed.
                    if "pageToken=page2" in self.path:
                        page = [
                            {
                                "name": "models/gemini-pro",
                                "supportedGenerationMethods": ["generateContent"],
                            }
                        ]
                        self._send(200, {"models": page})
                    else:
                        page = [
                            {"name": f"models/{m}", "supportedGenerationMethods": ["embedContent"]}
                            for m in server.models
                        ]
                        self._send(200, {"models": page, "nextPageToken": "page2"})
                else:
                    self._send(404, {"error": f"no route {self.path}"})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                self._record(body)
                gemini = _gemini_route(self.path)
                if self.path not in ("/api/embed", "/v1/embeddings") and gemini is None:
                    self._send(404, {"error": f"no route {self.path}"})
                    return
                with server._lock:
                    server.embed_requests += 1
                    n = server.embed_requests
                late = server.stop_after is not None and n > server.stop_after
                if n <= server.close_times or late:
                    # ``late``: a request that got in before the listener closed is not
                    # answered either: the provider is gone.
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if server.sleep_s:
                    time.sleep(server.sleep_s)
                if server.redirect_to:
                    self.send_response(307)
                    self.send_header("Location", server.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if gemini is not None:
                    self._gemini(gemini, body, n)
                    return
                auth = self.headers.get("Authorization")
                if server.require_token and auth != f"Bearer {server.require_token}":
                    msg = "Incorrect API key provided"
                    if server.echo_auth:
                        msg += f": {auth}; header was Authorization: {auth}"
                    self._send(401, {"error": {"message": msg, "type": "invalid_request_error"}})
                    return
                failure = server._failure(n, f"Authorization: {auth}")
                if failure is not None:
                    self._send(failure[0], {"error": failure[1]})
                    return
                if server.not_json:
                    self._send(200, None, raw=b"<html>Bad gateway</html>")
                    return
                if not isinstance(body, dict) or not isinstance(body.get("input"), list):
                    self._send(400, {"error": "input must be a list"})
                    return
                texts = [str(t) for t in body["input"]]
                vectors = server._vectors(texts, n)
                last = server.stop_after is not None and n >= server.stop_after
                if last:
                    # Stop listening before this answer goes out: once the client has it,
                    # its next connection is refused (closing after it raced the client).
                    server._httpd.socket.close()
                if self.path == "/api/embed":
                    self._send(200, {"model": body.get("model"), "embeddings": vectors})
                else:
                    data = [
                        {"object": "embedding", "index": i, "embedding": v}
                        for i, v in enumerate(vectors)
                    ]
                    # Out of order on purpose: clients must sort by "index".
                    self._send(200, {"object": "list", "data": data[::-1], "model": body["model"]})
                if last:  # then end the serving loop
                    self.wfile.flush()
                    server._stop_soon()

            def _google_error(self, code: int, status: str, message: str, **extra: Any) -> None:
                self._send(
                    code, {"error": {"code": code, "message": message, "status": status, **extra}}
                )

            def _gemini(self, route: tuple[str, str], body: Any, n: int) -> None:
                """``models/<model>:embedContent`` or ``:batchEmbedContents``, as Google answers."""
                model, method = route
                key = self.headers.get("x-goog-api-key")
                if server.require_token and key != server.require_token:
                    msg = "API key not valid. Please pass a valid API key."
                    if server.echo_auth:
                        msg += f" (got x-goog-api-key: {key})"
                    self._google_error(
                        400, "INVALID_ARGUMENT", msg, details=[{"reason": "API_KEY_INVALID"}]
                    )
                    return
                failure = server._failure(n, f"x-goog-api-key: {key}")
                if failure is not None:
                    self._google_error(failure[0], "UNAVAILABLE", failure[1])
                    return
                if model not in {m.split(":")[0] for m in server.models}:
                    self._google_error(404, "NOT_FOUND", f"models/{model} is not found")
                    return
                if server.not_json:
                    self._send(200, None, raw=b"<html>Bad gateway</html>")
                    return
                if method == "embedContent":
                    requests = [body] if isinstance(body, dict) else None
                else:
                    requests = body.get("requests") if isinstance(body, dict) else None
                    if isinstance(requests, list) and len(requests) > 100:
                        self._google_error(
                            400, "INVALID_ARGUMENT", "at most 100 requests can be in one batch"
                        )
                        return
                try:
                    assert isinstance(requests, list) and requests
                    texts = []
                    for r in requests:
                        assert r["model"] == f"models/{model}"
                        texts.append(str(r["content"]["parts"][0]["text"]))
                except (AssertionError, KeyError, IndexError, TypeError):
                    self._google_error(400, "INVALID_ARGUMENT", "malformed embed request")
                    return
                vectors = server._vectors(texts, n)
                if method == "embedContent":
                    self._send(200, {"embedding": {"values": vectors[0]}} if vectors else {})
                else:
                    self._send(200, {"embeddings": [{"values": v} for v in vectors]})

        return Handler


def _gemini_route(path: str) -> tuple[str, str] | None:
    """``(model, method)`` for ``/v1beta/models/<model>:<method>``, else None."""
    prefix = "/v1beta/models/"
    if not path.startswith(prefix) or ":" not in path:
        return None
    model, _, method = path[len(prefix) :].rpartition(":")
    if method not in ("embedContent", "batchEmbedContents"):
        return None
    return model, method


def dead_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
