"""``setup_url``: a one-time form on 127.0.0.1 where the *user* sets up a remote provider.

Through MCP an agent may not choose a provider that sends source text to a server, nor see
a key (DESIGN §6-§7). The original answers ``setup`` for such a mode with a ``setup_url``
(reference §4); so does znt. ``open_form`` starts a small HTTP server in this process, bound
to 127.0.0.1 on a free port, and returns ``http://127.0.0.1:<port>/setup/<token>``:

* the token is 32 random bytes (``secrets.token_urlsafe``), compared in constant time; any
  other path is a 404 that says nothing;
* the form lives ``DEFAULT_TTL_S`` (``ZNT_SETUP_URL_TTL_S``) and serves one successful
  submission: after it, or when its time is up, the listener is closed (the URL is dead:
  connection refused). A new ``setup`` call replaces an open form;
* GET only shows the form (mode, model and URL prefilled with what the agent proposed, the
  user may change them; the key field; what leaves the machine). Only a POST writes, and
  only with the ``Origin`` a browser sends for this page and the ``Host`` this server
  listens on (a page elsewhere, or DNS rebinding, cannot submit it);
* the key goes from the form to the OS keyring (``znt-keyring://znt/<mode>``) by the same
  ``configure`` as ``znt setup --token-stdin``; the managed config keeps only ``token_ref``.
  Where no keyring backend exists, the form has no key field and says how to use
  ``--token-env`` instead. The key is never logged, never echoed in a page, and never part
  of anything returned to the agent (``state`` reports what was written, not the key);
* pages are ``no-store``, ``no-referrer`` (the token is in the URL), frame-denied and under a
  CSP that allows no script.

This is the user's step: an agent that could send HTTP POSTs with forged headers could also
run ``znt setup`` in a shell, which MCP alone does not let it do.
"""

from __future__ import annotations

import hmac
import html
import os
import secrets as pysecrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from znt import config as cfg
from znt.errors import UsageError, ZntError

if TYPE_CHECKING:
    from znt.results import SetupUrlBody


DEFAULT_TTL_S = 600.0
TTL_ENV = "ZNT_SETUP_URL_TTL_S"
MAX_BODY = 16 * 1024
MAX_FAILED_POSTS = 5

_lock = threading.Lock()
_current: SetupForm | None = None


def ttl_seconds() -> float:
    raw = os.environ.get(TTL_ENV, "")
    try:
        value = float(raw) if raw else DEFAULT_TTL_S
    except ValueError:
        value = DEFAULT_TTL_S
    return min(max(value, 1.0), 3600.0)


class SetupForm:
    """One form: its listener, its token, and what became of it."""

    def __init__(
        self, mode: str, model: str | None, url: str | None, check_provider: bool, ttl: float
    ) -> None:
        from znt.secrets import keyring_backend

        self.mode = mode
        self.model = model or cfg.DEFAULT_MODELS[mode]
        self.url = url or cfg.DEFAULT_URLS[mode]
        self.check_provider = check_provider
        self.keyring = keyring_backend()
        self.token = pysecrets.token_urlsafe(32)
        self.created = time.time()
        self.expires = self.created + ttl
        self.state = "open"  # open | used | expired | closed
        self.failed_posts = 0
        self.result: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="znt-setup-form",
            daemon=True,
        )
        self._timer = threading.Timer(ttl, self._expire)
        self._timer.daemon = True

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def setup_url(self) -> str:
        return f"{self.origin}/setup/{self.token}"

    def start(self) -> SetupForm:
        self._thread.start()
        self._timer.start()
        return self

    def _expire(self) -> None:
        self.close("expired")

    def close(self, state: str = "closed") -> None:
        """Stop listening (idempotent); the state says why."""
        with self._lock:
            if self.state == "open":
                self.state = state
            else:
                return
        self._timer.cancel()
        threading.Thread(target=self._shutdown, daemon=True).start()

    def _shutdown(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def describe(self) -> SetupUrlBody:
        """What the agent may see: the URL while it is open, never a key."""
        if self.state == "open" and time.time() >= self.expires:
            self.close("expired")  # the timer may not have run yet on a busy machine
        out: SetupUrlBody = {
            "mode": self.mode,
            "model": self.model,
            "url": self.url,
            "state": self.state,
            "setup_url": self.setup_url if self.state == "open" else None,
            "expires_at": round(self.expires, 3),
            "expires_in_s": max(0, round(self.expires - time.time())),
            "single_use": True,
            "keyring_available": bool(self.keyring["available"]),
            "check_provider": self.check_provider,
        }
        if not self.keyring["available"]:
            out["keyring_note"] = _no_keyring_note(self.mode, self.keyring)
        if self.result is not None:
            out["result"] = self.result
        return out

    # -- the submission ---------------------------------------------------------------------

    def submit(self, fields: dict[str, str]) -> tuple[bool, str]:
        """Write the config (and the key to the keyring); ``(ok, message for the page)``."""
        from znt.features import setup as setup_mod

        key = fields.get("key", "").strip()
        model = fields.get("model", "").strip() or None
        url = fields.get("url", "").strip() or None
        if key and not self.keyring["available"]:
            return False, _no_keyring_note(self.mode, self.keyring)
        try:
            doc: dict[str, Any] = {
                **setup_mod.configure(
                    self.mode,
                    model=model,
                    url=url,
                    token_stdin=bool(key),
                    read_secret=lambda: key,
                    check_provider=self.check_provider,
                )
            }
        except ZntError as exc:
            from znt.secrets import redact

            return False, redact(exc.message, [key])
        written = doc["written"]
        self.result = {
            "written": written["path"],
            "mode": written["mode"],
            "model": doc["config"]["provider"]["model"],
            "url": doc["config"]["provider"]["url"],
            "token_ref": written["key_stored_in_keyring"],
            "provider_check_ok": (doc.get("provider_check") or {}).get("ok"),
            "at": round(time.time(), 3),
        }
        return True, "saved"


def _no_keyring_note(mode: str, keyring: dict[str, Any]) -> str:
    var = {"openai": "OPENAI_API_KEY", "gemini": "GEMINI_API_KEY"}.get(mode, "API_KEY")
    return (
        f"no OS keyring backend is available on this machine ({keyring.get('reason')}), so a "
        f"key cannot be stored here; keep it in an environment variable and run "
        f"`znt setup --mode {mode} --token-env {var}` in a terminal (a server that needs no "
        "key can still be saved with this form)"
    )


def open_form(
    mode: str, *, model: str | None = None, url: str | None = None, check_provider: bool = False
) -> SetupUrlBody:
    """Open a form for ``mode`` (closing any open one) and describe it."""
    global _current
    if mode not in cfg.REMOTE_MODES:
        raise UsageError(
            f"setup_url is for the providers that send text to a server "
            f"({', '.join(cfg.REMOTE_MODES)}), not {mode!r}"
        )
    ext = cfg.external_path()
    if ext is not None:
        raise UsageError(
            f"{cfg.ENV_CONFIG} is set ({ext}): znt reads that file but never writes it, so a "
            "setup form could not save anything; edit that file, or unset "
            f"{cfg.ENV_CONFIG} for `znt setup` to write {cfg.managed_path()}"
        )
    if url is not None:
        url = cfg.check_url(url, "url")
    form = SetupForm(mode, model, url, check_provider, ttl_seconds())
    with _lock:
        previous, _current = _current, form
    if previous is not None:
        previous.close("replaced")
    return form.start().describe()


def form_state() -> SetupUrlBody | None:
    """The last form of this process (open, used, expired...), or None."""
    with _lock:
        form = _current
    return form.describe() if form is not None else None


def close_form() -> None:
    with _lock:
        form = _current
    if form is not None:
        form.close()


# -- the HTTP side -----------------------------------------------------------------------------

_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
_STYLE = (
    "body{font:15px/1.45 system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em}"
    "label{display:block;margin-top:1em;font-weight:600}"
    "input{width:100%;padding:.4em;font:inherit;box-sizing:border-box}"
    "button{margin-top:1.5em;padding:.5em 1.5em;font:inherit}"
    ".note{background:#fff6d5;padding:.6em .8em;border-radius:4px}"
    ".err{background:#fde2e2;padding:.6em .8em;border-radius:4px}"
)


def _page(title: str, body: str) -> bytes:
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    ).encode()


def _form_page(
    form: SetupForm, error: str | None = None, values: dict[str, str] | None = None
) -> bytes:
    v = values or {}
    esc = html.escape
    leaves = (
        ""
        if cfg.is_loopback(v.get("url") or form.url)
        else (
            "<p class='note'>When znt embeds, the source text of this project is sent to the "
            "server at the URL below.</p>"
        )
    )
    if form.keyring["available"]:
        key_field = (
            "<label for='key'>API key (stored in the OS keyring, never in a file)</label>"
            "<input id='key' name='key' type='password' autocomplete='off' spellcheck='false'>"
            "<p>Leave it empty for a server that needs no key.</p>"
        )
    else:
        key_field = f"<p class='note'>{esc(_no_keyring_note(form.mode, form.keyring))}</p>"
    err = f"<p class='err'>{esc(error)}</p>" if error else ""
    checked = (
        "<p>The provider is tried with one short text before anything is saved.</p>"
        if form.check_provider
        else ""
    )
    body = (
        f"<p>An agent asked to set up the <b>{esc(form.mode)}</b> embedding provider for znt. "
        "Nothing is saved until you press Save. This page works once.</p>"
        f"{err}{leaves}<form method='post' action='/setup/{esc(form.token)}'>"
        f"<label for='model'>Model</label><input id='model' name='model' value='{esc(v.get('model') or form.model)}'>"
        f"<label for='url'>URL</label><input id='url' name='url' value='{esc(v.get('url') or form.url)}'>"
        f"{key_field}{checked}<button type='submit'>Save</button></form>"
    )
    return _page(f"znt setup: {form.mode}", body)


def _done_page(form: SetupForm) -> bytes:
    r = form.result or {}
    esc = html.escape
    key = (
        f"The key is in the OS keyring as <code>{esc(r['token_ref'])}</code>; the config "
        "keeps only that reference."
        if r.get("token_ref")
        else "No key was stored."
    )
    body = (
        f"<p>Saved: provider <b>{esc(str(r.get('mode')))}</b>, model "
        f"<code>{esc(str(r.get('model')))}</code>, URL <code>{esc(str(r.get('url')))}</code> "
        f"in <code>{esc(str(r.get('written')))}</code>.</p><p>{key}</p>"
        "<p>You can close this page. The agent can check the result with "
        "<code>setup_status</code>; the next scan embeds with this provider.</p>"
    )
    return _page("znt setup: saved", body)


def _handler(form: SetupForm) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "znt-setup"
        sys_version = ""
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the request line holds the token: never logged

        def _send(self, status: int, body: bytes, *, close: bool = False) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("X-Frame-Options", "DENY")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy", _CSP)
            if close:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(body)

        def _allowed(self) -> bool:
            """The right Host (no DNS rebinding) and the token; otherwise a bare 404."""
            host_ok = self.headers.get("Host") == f"127.0.0.1:{form.port}"
            path = self.path.split("?", 1)[0]
            want = f"/setup/{form.token}"
            if not host_ok or not hmac.compare_digest(path.encode(), want.encode()):
                self._send(404, _page("Not found", ""), close=True)
                return False
            if form.state != "open" or time.time() >= form.expires:
                self._send(410, _page("This setup link has expired", ""), close=True)
                return False
            return True

        def do_GET(self) -> None:
            if self._allowed():
                self._send(200, _form_page(form))

        def do_POST(self) -> None:
            if not self._allowed():
                return
            if self.headers.get("Origin") != form.origin:
                self._send(
                    403, _page("Refused", "<p>Submit the form from its own page.</p>"), close=True
                )
                return
            ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            try:
                length = int(self.headers.get("Content-Length") or "0")
            except ValueError:
                length = -1
            if ctype != "application/x-www-form-urlencoded" or not 0 < length <= MAX_BODY:
                self._send(400, _page("Bad request", ""), close=True)
                return
            raw = self.rfile.read(length)
            try:
                parsed = parse_qs(raw.decode("utf-8"), strict_parsing=False, max_num_fields=8)
            except (UnicodeDecodeError, ValueError):
                self._send(400, _page("Bad request", ""), close=True)
                return
            fields = {k: v[0] for k, v in parsed.items() if v}
            with form._lock:  # one submission at a time
                if form.state != "open":
                    self._send(410, _page("This setup link has expired", ""), close=True)
                    return
                ok, message = form.submit(fields)
                if ok:
                    form.state = "used"
                else:
                    form.failed_posts += 1
            fields.pop("key", None)
            if ok:
                self._send(200, _done_page(form), close=True)
                form._timer.cancel()
                threading.Thread(target=form._shutdown, daemon=True).start()
                return
            if form.failed_posts >= MAX_FAILED_POSTS:
                form.close("closed")
            self._send(400, _form_page(form, message, fields))

    return Handler
