"""The web server of ``lifeguard serve`` and of the table's "phones" key: read-only, one token.

``TableServer`` binds its socket first (so a port in use is a sentence, not a traceback), then
runs a Starlette app on uvicorn, either in the calling thread (``run``: the command line, Ctrl+C
stops it) or on a thread of its own (``start``/``stop``: the table, whose UI loop is never
blocked). The app answers GET only, and only with the start's random token in the query string
(``?t=``, compared in constant time); anything else is 404, a short page saying to scan the
code at the table (405 for another method with the token). Every answer carries a
Content-Security-Policy that allows the page's own script and style only, and no CORS header,
and nothing answers with a redirect. A watch task polls the
store (``TableWatch.poll`` off the event loop, every ``poll_interval`` seconds; it follows the file
at the store's path) and sends each change to every open ``/events`` stream. Connections are
bounded by ``assistant.web.guard``: a deadline for each request's header, an idle deadline, a cap
on connections that have not shown the token and a ceiling under the process's file limit.

Routes, each with ``?t=TOKEN``: ``/`` the page, ``/table.css``, ``/table.js``, ``/state.json`` (the
shape of ``lifeguard status --json`` plus ``game``, ``announcements``, ``sheet`` and ``points``)
and ``/events`` (server-sent events: first the state, then one event per accepted command, undo
or redo, each ``{"kind", "game", "command", "said", "version", "state"}``; ``&since=N``, the
number the page was served with, leaves out the first state while it is still the same).
Every answer but the stream is gzipped for a client that accepts it; the style sheet and the
script are cached (ETag, Cache-Control), everything else is ``no-store``.

Every word the page, its script and the refusals show is in the table's language (one switch,
``assistant.i18n``): the page is filled in from ``assistant.web.messages`` (its words, its
``lang``, and the script's messages as a data attribute) once per language asked in; the script
and the style sheet hold no words, so they are the same in every language. The state stays the
engine's language-neutral data (names, canonical commands, animals).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import html
import json
import logging
import secrets
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from assistant.colours import ANIMAL_COLOURS
from assistant.i18n import N_, _, current_language
from assistant.i18n import format as i18n_format
from assistant.store.db import StoreError
from assistant.web.messages import fill_page, no_link_page, page_messages
from assistant.web.table import Change, TableWatch

if TYPE_CHECKING:  # starlette is imported when serving starts, not with the CLI
    from starlette.requests import Request
    from starlette.responses import Response

DEFAULT_PORT = 8765
#: How often the store is asked whether anything was committed (one cheap PRAGMA).
POLL_INTERVAL = 0.1
#: A comment line on every open stream this often, so idle connections stay open through Wi-Fi
#: power saving and proxies, and a dead phone is noticed.
PING_INTERVAL = 15.0
#: At most this many pages follow the events at once (a table has a handful of phones).
MAX_STREAMS = 200
#: A stream whose client reads this far behind is dropped (its page reconnects and catches up).
QUEUE_LIMIT = 256

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
       "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # the token is in the address: never pass it on
]
#: Every answer is not to be stored (the state, the page holding it, refusals) unless it says
#: otherwise: the style sheet and the script, which never change under one token.
NO_STORE = (b"cache-control", b"no-store")
#: The page's own files: the same for as long as the token (a restart gives a new address), so
#: a phone keeps them, and asks again with their ETag (a 304, no body) once the day is over.
STATIC_CACHE = "private, max-age=86400, immutable"
#: Compressed when the client accepts it and the answer is at least this big (the event stream
#: never: each event must arrive when it is sent).
GZIP_MIN_SIZE = 500
#: Said by ``lifeguard serve --lan`` under the link (translate it with ``_`` where it is shown).
LAN_WARNING = N_("Anyone on this network who has the link can watch the game (nothing can be "
                 "changed through it); the link changes every time the server starts.")


class ServeError(Exception):
    """The server cannot start; the message is a sentence for a person."""


def new_token() -> str:
    """A fresh random token for one start of the server (96 bits, URL-safe)."""
    return secrets.token_urlsafe(12)


def lan_address() -> str:
    """This machine's address on the local network: the one it would use to reach beyond it.

    Connecting a UDP socket sends nothing; it only asks the kernel which address it would use.
    """
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere
        address: str = probe.getsockname()[0]
    except OSError:
        address = ""
    finally:
        probe.close()
    if not address or address.startswith("127.") or address == "0.0.0.0":
        raise ServeError(_("This computer is on no local network, so phones cannot reach it: "
                           "connect it to the Wi-Fi the phones use, or serve on this computer "
                           "only (without --lan)."))
    return address


def json_bytes(data: Any) -> bytes:
    """JSON that is also safe to read as HTML (no raw <, > or &): names are user input."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode()


# ---------------------------------------------------------------------------- the page files
def page_file(name: str) -> str:
    return resources.files("assistant.web").joinpath("page", name).read_text(encoding="utf-8")


class LocalPage:
    """``index.html`` for one token, in each language it has been asked in (the table's language
    is one switch, but the table may change it while serving: a new page is then in the new one).
    """

    def __init__(self, token: str) -> None:
        self.template = page_file("index.html").replace("{token}", token)
        self.pages: dict[str, str] = {}

    def text(self) -> str:
        language = current_language()
        page = self.pages.get(language)
        if page is None:
            messages = json.dumps(page_messages(), ensure_ascii=False, separators=(",", ":"))
            page = fill_page(self.template).replace("{messages}", html.escape(messages))
            self.pages[language] = page
        return page


def colour_rules() -> str:
    """The cards' colours as CSS, from the one table the terminal uses too."""
    return "\n".join(
        f".card.{animal.value} {{ background: {bg}; color: {fg}; }}"
        for animal, (bg, fg) in ANIMAL_COLOURS.items()
    ) + "\n"


# ---------------------------------------------------------------------------- streams
class Hub:
    """The open ``/events`` streams, each a queue on the server's loop, and the latest state."""

    def __init__(self) -> None:
        self.streams: set[asyncio.Queue[bytes | None]] = set()
        self.version = 0
        #: Counts the states the hub has held: a page tells it which one it was served with.
        self.serial = 0
        self.state: dict[str, Any] | None = None
        self.state_event = b""
        self.closed = False

    def set_state(self, state: dict[str, Any]) -> None:
        self.state = state
        self.serial += 1
        self.state_event = sse({"kind": "state", "version": self.version, "state": state},
                               self.version)

    def subscribe(self, since: int | None = None) -> asyncio.Queue[bytes | None] | None:
        """A new stream; it starts with the whole state unless the page already has it (it was
        served with state ``since`` and the hub still holds that one)."""
        if len(self.streams) >= MAX_STREAMS:
            return None
        queue: asyncio.Queue[bytes | None] = asyncio.Queue(QUEUE_LIMIT)
        if since != self.serial:
            queue.put_nowait(self.state_event)
        if self.closed:
            queue.put_nowait(None)
        self.streams.add(queue)
        return queue

    def publish(self, changes: list[Change], state: dict[str, Any]) -> None:
        for change in changes:
            self.version += 1
            self.send(sse({**change.to_json(), "version": self.version, "state": state},
                          self.version))
        self.set_state(state)

    def publish_state(self, state: dict[str, Any]) -> None:
        """A new state that no command explains: sent whole, as a stream's first event is."""
        self.version += 1
        self.set_state(state)
        self.send(self.state_event)

    def send(self, event: bytes) -> None:
        for queue in list(self.streams):
            try:
                queue.put_nowait(event)
            except asyncio.QueueFull:  # a client that stopped reading: let its page reconnect
                self.streams.discard(queue)
                with contextlib.suppress(asyncio.QueueFull):
                    queue.get_nowait()
                    queue.put_nowait(None)

    def close(self) -> None:
        self.closed = True
        for queue in self.streams:
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(None)


def sse(data: dict[str, Any], event_id: int) -> bytes:
    return b"id: %d\ndata: " % event_id + json_bytes(data) + b"\n\n"


# ---------------------------------------------------------------------------- the app
async def follow_store(watch: TableWatch, hub: Hub, poll_interval: float,
                       should_exit: Callable[[], bool]) -> None:
    """Polls the store and publishes what changed, until the server stops."""
    log = logging.getLogger("lifeguard.serve")
    problem = ""
    while not should_exit():
        try:
            changes = await asyncio.to_thread(watch.poll)
            problem = ""
        except StoreError as err:  # said once, then tried again: the file may come back
            if str(err) != problem:
                log.warning("%s", err)
            problem, changes = str(err), []
        if changes:
            hub.publish(changes, watch.state)
        elif watch.state is not hub.state:
            # No command, a new state: a game marked finished, a store moved aside or replaced
            hub.publish_state(watch.state)
        await asyncio.sleep(poll_interval)
    hub.close()


async def event_stream(hub: Hub, queue: asyncio.Queue[bytes | None]) -> AsyncIterator[bytes]:
    """One page's server-sent events: what the hub publishes, a ping when all is quiet."""
    try:
        yield b"retry: 1000\n\n"
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), PING_INTERVAL)
            except TimeoutError:
                yield b": ping\n\n"
                continue
            if item is None:
                return
            yield item
    finally:
        hub.streams.discard(queue)


def build_app(watch: TableWatch, token: str, poll_interval: float = POLL_INTERVAL,
              should_exit: Callable[[], bool] = lambda: False) -> Any:
    """The Starlette app behind the token gate. ``watch`` has been polled once already."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, Response, StreamingResponse
    from starlette.routing import Route

    hub = Hub()
    hub.set_state(watch.state)
    index = LocalPage(token)
    script = page_file("table.js")
    style = page_file("table.css") + colour_rules()

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        task = asyncio.create_task(follow_store(watch, hub, poll_interval, should_exit))
        try:
            yield
        finally:
            hub.close()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def page(request: Request) -> Response:
        # The state goes in as a JSON data block (never run; no <, > or & in it), so the page
        # draws at once; everything after comes from /events, which it asks for from the
        # state it has (``since``), so the stream does not send the same state again.
        return HTMLResponse(index.text().replace("{serial}", str(hub.serial))
                            .replace("{state}", json_bytes(hub.state).decode()))

    async def css(request: Request) -> Response:
        return static_file(request, style, "text/css")

    async def js(request: Request) -> Response:
        return static_file(request, script, "text/javascript")

    async def state(request: Request) -> Response:
        return Response(json_bytes(watch.state), media_type="application/json")

    async def events(request: Request) -> Response:
        queue = hub.subscribe(served_serial(request.query_params.get("since")))
        if queue is None:
            return Response(_("Too many screens are following this game."), status_code=503,
                            media_type="text/plain")
        return StreamingResponse(event_stream(hub, queue), media_type="text/event-stream",
                                 headers={"X-Accel-Buffering": "no"})

    routes = [
        Route("/", page), Route("/table.css", css), Route("/table.js", js),
        Route("/state.json", state), Route("/events", events),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    # No redirects at all: Starlette's answer to "/state.json/" is a redirect built from the
    # request's Host header, with the token in it (a link to anywhere, carrying the token).
    app.router.redirect_slashes = False
    app.state.hub = hub
    return TokenGate(compressed(app), token)


# ---------------------------------------------------------------------------- transfer
def compressed(app: Any) -> Any:
    """gzip for every answer a client accepts it for (``Vary: Accept-Encoding``), except the
    event stream (Starlette's middleware leaves ``text/event-stream`` as it is)."""
    from starlette.middleware.gzip import GZipMiddleware

    return GZipMiddleware(app, minimum_size=GZIP_MIN_SIZE)


def entity_tag(body: str) -> str:
    """A weak ETag for a page file (weak: the same file is sent compressed or not)."""
    import hashlib

    return f'W/"{hashlib.sha256(body.encode()).hexdigest()[:20]}"'


def static_file(request: Request, body: str, media_type: str) -> Response:
    """A page file with its ETag and cache time; 304 (no body) when the client has it."""
    from starlette.responses import Response

    tag = entity_tag(body)
    headers = {"ETag": tag, "Cache-Control": STATIC_CACHE}
    asked = request.headers.get("if-none-match", "")
    if tag in (t.strip() for t in asked.split(",")) or asked.strip() == "*":
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def served_serial(since: str | None) -> int | None:
    """The ``since`` of ``/events``: the state the page was served with (None: unknown)."""
    return int(since) if since is not None and since.isdigit() and len(since) < 19 else None


class TokenGate:
    """Plain ASGI in front of the app: the token or 404, GET (and HEAD) or 405, and the
    security headers on every answer, refusals included."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[dict[str, Any]]],
                       send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": with_security_headers(message.get("headers", []))}
            await send(message)

        if not has_token(scope.get("query_string", b""), self.token):
            await plain(send_with_headers, 404, no_link_page(),
                        content_type=b"text/html; charset=utf-8")
        elif scope["method"] not in ("GET", "HEAD"):
            await plain(send_with_headers, 405, _("This page can only be read."),
                        [(b"allow", b"GET, HEAD")])
        else:
            await self.app(scope, receive, send_with_headers)


def has_token(query_string: bytes, token: bytes) -> bool:
    """Whether a request's query string carries the token (``t=``), compared in constant time.
    The token gate and the connection guard (``assistant.web.guard``) both ask this."""
    query = parse_qs(query_string.decode("latin-1"))
    given = (query.get("t") or [""])[0].encode("utf-8", "surrogateescape")
    return secrets.compare_digest(given, token)


def with_security_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """An answer's headers with the security headers, and ``no-store`` unless it has its own
    cache time (the page's files)."""
    cached = any(name.lower() == b"cache-control" for name, _ in headers)
    return [*headers, *SECURITY_HEADERS, *([] if cached else [NO_STORE])]


async def plain(send: Callable[[dict[str, Any]], Awaitable[None]], status: int, text: str,
                headers: list[tuple[bytes, bytes]] | None = None,
                content_type: bytes = b"text/plain; charset=utf-8") -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type),
                            (b"content-length", str(len(body)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


# ---------------------------------------------------------------------------- the server
class TableServer:
    """One start of the server: its token, socket and (in the table) thread.

    ``lan``: bind to this machine's address on the local network instead of 127.0.0.1.
    ``quiet``: uvicorn logs nothing to the terminal (the table's screen is the terminal).
    """

    def __init__(self, directory: str | Path | None = None, *, port: int = DEFAULT_PORT,
                 lan: bool = False, quiet: bool = False,
                 poll_interval: float = POLL_INTERVAL) -> None:
        self.directory = directory
        self.port = port
        self.lan = lan
        self.quiet = quiet
        self.poll_interval = poll_interval
        self.token = new_token()
        self.host = "127.0.0.1"
        self.watch = TableWatch(directory)
        self._server: Any = None
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None
        self.guard: Any = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/?t={self.token}"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def prepare(self) -> None:
        """Read the store once and bind the socket; raises ``ServeError`` with a sentence."""
        try:
            self.watch.poll()
        except StoreError as err:
            raise ServeError(str(err)) from None
        self.host = lan_address() if self.lan else "127.0.0.1"
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
            sock.listen(128)
        except OSError as err:
            sock.close()
            if err.errno == errno.EADDRINUSE:
                raise ServeError(i18n_format(
                    _("Port {port} is already in use on {host}: stop the other program, or "
                      "choose another port (--port, or port under [serve] in the settings)."),
                    port=self.port, host=self.host)) from None
            raise ServeError(i18n_format(
                _("Cannot listen on {host} port {port} ({reason}): choose another port."),
                host=self.host, port=self.port, reason=err.strerror or err)) from None
        self.port = sock.getsockname()[1]
        self._socket = sock
        self._server = self._make_server()

    def _make_server(self) -> Any:
        import uvicorn

        from assistant.web.guard import GuardedServer

        app = build_app(self.watch, self.token, self.poll_interval,
                        should_exit=lambda: bool(self._server and self._server.should_exit))
        options: dict[str, Any] = {
            "log_level": "warning", "access_log": False, "lifespan": "on",
            "ws": "none", "loop": "asyncio", "timeout_graceful_shutdown": 2,
            "server_header": False, **self._connection_options(),
        }
        if self.quiet:
            options["log_config"] = None
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "lifeguard.serve"):
                logger = logging.getLogger(name)
                logger.propagate = False
                if not logger.handlers:
                    logger.addHandler(logging.NullHandler())
        return GuardedServer(uvicorn.Config(app, **options), self.guard)

    def _connection_options(self) -> dict[str, Any]:
        """uvicorn's options for connections: h11 with the guard's deadlines and caps
        (``assistant.web.guard``); made after the socket and the store are open, so the cap on
        connections counts the file descriptors they use."""
        from assistant.web.guard import ACCEPT_BATCH, IDLE_TIMEOUT, ConnectionGuard, protocol_for

        token = self.token.encode()
        self.guard = ConnectionGuard(lambda query: has_token(query, token))
        return {"http": protocol_for(self.guard), "timeout_keep_alive": IDLE_TIMEOUT,
                "backlog": ACCEPT_BATCH}

    def run(self) -> None:
        """Serve in this thread until stopped (Ctrl+C); ``prepare`` first."""
        assert self._server is not None and self._socket is not None, "prepare() first"
        try:
            self._server.run(sockets=[self._socket])
        finally:
            self._close()

    def start(self, timeout: float = 10.0) -> None:
        """``prepare``, then serve on a thread of its own; returns once it answers."""
        if self._server is None:
            self.prepare()

        def serve() -> None:
            try:
                self.run()
            except BaseException as err:  # SystemExit from a failed start included
                self._failure = err

        self._thread = threading.Thread(target=serve, name="lifeguard-serve", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ServeError(i18n_format(_("The web server did not start ({reason})."),
                                             reason=self._failure or _("timed out")))
            time.sleep(0.01)

    def stop(self, timeout: float = 5.0) -> None:
        """Close every stream, stop serving and wait for the thread (at most ``timeout``)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout)
            self._thread = None
        self._close()

    def _close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        self.watch.close()
