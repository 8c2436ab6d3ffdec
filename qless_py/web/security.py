"""The one gate every request of the dashboard passes: basic auth, read-only mode, the
same-origin and CSRF checks of every action, and the headers every response carries.

Actions are POSTs. A POST gets through only when the browser says it comes from this same
site (``Sec-Fetch-Site``, else ``Origin``; a client that sends neither is not a browser, so
no other site can drive it) and carries the CSRF token of its cookie. The body is read and
parsed here, once, so a refused action never reaches a handler and writes nothing.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSRF_COOKIE = "qlpy_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
MAX_BODY = 256 * 1024
_SEED = re.compile(r"[A-Za-z0-9_-]{43}")

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]


@dataclass(frozen=True)
class BasicAuth:
    """HTTP basic credentials; compared in constant time."""

    username: str
    password: str

    def __post_init__(self) -> None:
        if not self.username or not self.password or ":" in self.username:
            raise ValueError("basic auth needs a user name without ':' and a password")

    @classmethod
    def parse(cls, text: str) -> BasicAuth:
        """``user:password`` (the first line of a file, or an environment variable)."""
        line = text.strip().splitlines()[0] if text.strip() else ""
        user, sep, password = line.partition(":")
        if not sep:
            raise ValueError("credentials must read 'user:password'")
        return cls(user, password)

    def allows(self, header: str | None) -> bool:
        if not header or not header.lower().startswith("basic "):
            return False
        try:
            given = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return False
        user, _, password = given.partition(":")
        ok_user = hmac.compare_digest(user.encode(), self.username.encode())
        ok_password = hmac.compare_digest(password.encode(), self.password.encode())
        return ok_user and ok_password


def redact_url(url: str) -> str:
    """``url`` with any password (``user:pass@`` or ``?password=``) shown as ``***``."""
    url = re.sub(r"^([a-z]+://[^:/@?#]*):[^/?#]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url)


def url_secrets(url: str) -> list[str]:
    """The password of ``url`` as written in it and decoded (what a text might contain)."""
    password = url_password(url)
    if password is None:
        return []
    return sorted({password, quote(password, safe=""), *re.findall(r":([^/?#]*)@", url)[:1],
                   *re.findall(r"[?&]password=([^&#]*)", url)}, key=len, reverse=True)


def url_password(url: str) -> str | None:
    """The password in ``url``, if any (so that error texts can be cleaned of it)."""
    parts = urlsplit(url)
    if parts.password:
        return unquote(parts.password)
    given = dict(parse_qsl(parts.query)).get("password")
    return given or None


def csrf_token(secret: bytes, seed: str) -> str:
    return hmac.new(secret, seed.encode(), hashlib.sha256).hexdigest()


class Gate:
    """ASGI middleware; see the module docstring. ``request.state.csrf`` is the token pages
    put in their forms, ``request.state.form`` a POST's fields (``dict[str, str]``)."""

    def __init__(self, app: ASGIApp, *, read_only: bool, auth: BasicAuth | None,
                 secret: bytes) -> None:
        self.app = app
        self.read_only = read_only
        self.auth = auth
        self.secret = secret

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = _headers(scope)
        seed = _cookie(headers.get("cookie", ""), CSRF_COOKIE)
        new_seed = None
        if seed is None or not _SEED.fullmatch(seed):
            seed = new_seed = secrets.token_urlsafe(32)
        send = self._decorated(send, scope, started, new_seed)
        if self.auth is not None and not self.auth.allows(headers.get("authorization")):
            await _refuse(send, headers, 401, "authentication required",
                          [(b"www-authenticate", b'Basic realm="qless", charset="UTF-8"')])
            return
        state = scope.setdefault("state", {})
        state["csrf"] = csrf_token(self.secret, seed)
        state["read_only"] = self.read_only
        if scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _refuse(send, headers, *refusal)
            return
        body = await _read_body(receive)
        if body is None:
            await _refuse(send, headers, 413, "request body too large")
            return
        form = _parse_form(body, headers.get("content-type", ""))
        if form is None:
            await _refuse(send, headers, 400, "the request body is not a form or a JSON object")
            return
        in_form = form.pop(CSRF_FIELD, "")
        given = headers.get(CSRF_HEADER) or in_form
        if not hmac.compare_digest(given.encode(), state["csrf"].encode()):
            await _refuse(send, headers, 403, "missing or wrong CSRF token; reload the page")
            return
        state["form"] = form
        await self.app(scope, _replay(body, receive), send)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        if scope["method"] != "POST":
            return 405, "only GET, HEAD and POST are served"
        if self.read_only:
            return 403, "this dashboard is read-only"
        if not _same_origin(headers):
            return 403, "cross-site request refused"
        return None

    def _decorated(self, send: Send, scope: Scope, started: float,
                   new_seed: str | None) -> Send:
        async def decorated(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = list(SECURITY_HEADERS)
                millis = (time.perf_counter() - started) * 1000
                extra.append((b"server-timing", f"app;dur={millis:.2f}".encode()))
                if not scope["path"].startswith(scope.get("root_path", "") + "/static/"):
                    extra.append((b"cache-control", b"no-store"))
                if new_seed is not None:
                    extra.append((b"set-cookie", _seed_cookie(scope, new_seed)))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        return decorated


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _cookie(header: str, name: str) -> str | None:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except Exception:  # a malformed cookie header is as good as none
        return None
    morsel = jar.get(name)
    return None if morsel is None else morsel.value


def _seed_cookie(scope: Scope, seed: str) -> bytes:
    path = scope.get("root_path", "") or "/"
    secure = "; Secure" if scope.get("scheme") == "https" else ""
    return f"{CSRF_COOKIE}={seed}; Path={path}; HttpOnly; SameSite=Strict{secure}".encode()


def _same_origin(headers: dict[str, str]) -> bool:
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    origin = headers.get("origin")
    if origin is not None:
        return origin != "null" and urlsplit(origin).netloc == headers.get("host")
    return True  # no browser sends neither: the token alone decides


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _parse_form(body: bytes, content_type: str) -> dict[str, str] | None:
    """Fields of a urlencoded form or a flat JSON object (values as text), else None."""
    kind = content_type.split(";")[0].strip().lower()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.strip():
        return {}
    if kind == "application/json":
        try:
            raw = json.loads(text)
        except json.JSONDecodeError:
            return None
        if not isinstance(raw, dict):
            return None
        return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in raw.items()}
    if kind in ("application/x-www-form-urlencoded", ""):
        try:
            return dict(parse_qsl(text, keep_blank_values=True, max_num_fields=100))
        except ValueError:
            return None
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def _refuse(send: Send, headers: dict[str, str], status: int, message: str,
                  extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """One readable line, as JSON for API clients and as text for browsers."""
    if "text/html" in headers.get("accept", ""):
        body, kind = f"{status}: {message}\n".encode(), b"text/plain; charset=utf-8"
    else:
        body, kind = json.dumps({"error": message}).encode(), b"application/json"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind),
                            (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})
