"""How long a connection to the web server may wait, and how many may wait at once.

uvicorn closes a connection that stays idle after an answer (``timeout_keep_alive``), but one
that never sends a whole request header is kept for ever, and when the process runs out of file
descriptors asyncio's accept loop logs a traceback per attempt (thousands a second) and a phone
with the right link is no longer answered. Anyone who can reach the port can do that (with
``--lan``, anyone on the Wi-Fi). ``TableServer`` (``assistant.web.server``) runs uvicorn with the
protocol and the server made here; they add:

- a header deadline: the whole header of a request within ``HEADER_TIMEOUT`` of the connection
  opening or of the previous answer, or the connection is closed (a slow sender too: the deadline
  is not moved by the bytes that come);
- an idle deadline after an answer: uvicorn's keep-alive, ``IDLE_TIMEOUT``;
- a cap on connections that have not shown the link's token (``MAX_UNTRUSTED``): beyond it the
  oldest is closed, once it has had ``GRACE`` to send its request (a phone that connected during a
  flood is not closed before it could speak);
- a ceiling on all connections (``MAX_CONNECTIONS``, lowered to what the process's file limit
  leaves): beyond it the oldest connection without the token is closed at once, so accepting
  never fails for want of a descriptor;
- should accepting fail all the same (other files), one sentence in the log per ``LOG_EVERY``
  instead of a traceback per attempt, and the oldest connections without the token are closed;
- uvicorn's warnings about what a client sent (an invalid request, an upgrade) said once per
  ``LOG_EVERY`` each, not once per request.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import math
import os
import time
from collections.abc import Callable
from typing import Any, ClassVar

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds from a connection's start (or the end of the previous answer) to a whole request header.
HEADER_TIMEOUT = 5.0
#: Seconds a connection may stay idle after an answer (uvicorn's keep-alive).
IDLE_TIMEOUT = 5
#: Connections that have not (yet) shown the token; a table has a handful of phones.
MAX_UNTRUSTED = 64
#: Seconds a new connection is given to send its request before the cap may close it.
GRACE = 0.5
#: All connections at once (lowered to fit the process's file limit).
MAX_CONNECTIONS = 512
#: File descriptors kept free for everything else: the event loop, the store (and a new one).
FD_RESERVE = 16
#: Connections accepted per turn of the event loop (uvicorn's ``backlog``), and the kernel's
#: queue of connections waiting to be accepted.
ACCEPT_BATCH = 32
LISTEN_QUEUE = 2048
#: At most one sentence in the log this often while accepting fails for want of descriptors.
LOG_EVERY = 10.0
#: Connections without the token closed when accepting fails for want of descriptors.
SHED_ON_EMFILE = 16

OUT_OF_FILES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def connection_ceiling(limit: int = MAX_CONNECTIONS) -> int:
    """How many connections fit in the file descriptors this process has left (at least 4)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return limit
    if soft == resource.RLIM_INFINITY:
        return limit
    try:
        in_use = len(os.listdir("/proc/self/fd"))
    except OSError:
        in_use = 32
    return max(4, min(limit, soft - in_use - FD_RESERVE))


class ConnectionGuard:
    """The connections of one server: which have shown the token, and the deadlines and caps.

    ``trusts(query_string)`` says whether a request carries the token. Lives on the server's loop.
    """

    def __init__(self, trusts: Callable[[bytes], bool], *, max_connections: int | None = None,
                 max_untrusted: int = MAX_UNTRUSTED, header_timeout: float = HEADER_TIMEOUT,
                 grace: float = GRACE) -> None:
        self.trusts = trusts
        self.max_connections = max_connections or connection_ceiling()
        self.max_untrusted = max(1, min(max_untrusted, self.max_connections // 2))
        self.header_timeout = header_timeout
        self.grace = grace
        #: Connections without the token, oldest first, with the loop time they were opened.
        self.untrusted: dict[GuardedH11, float] = {}
        self.trusted: set[GuardedH11] = set()
        self.log = logging.getLogger("lifeguard.serve")
        self._sweep: asyncio.TimerHandle | None = None
        self._last_warning = -math.inf
        self._last_shed = -math.inf
        self._previous_handler: Any = None

    # -- the connections
    def admit(self, conn: GuardedH11) -> None:
        now = conn.loop.time()
        self.untrusted[conn] = now
        if len(self.untrusted) + len(self.trusted) > self.max_connections:
            self.shed(1)  # the oldest without the token (the newcomer, if all others showed it)
        elif len(self.untrusted) > self.max_untrusted:
            self.enforce(conn.loop)

    def trust(self, conn: GuardedH11) -> None:
        if self.untrusted.pop(conn, None) is not None:
            self.trusted.add(conn)

    def forget(self, conn: GuardedH11) -> None:
        self.untrusted.pop(conn, None)
        self.trusted.discard(conn)

    def enforce(self, loop: asyncio.AbstractEventLoop) -> None:
        """Close the oldest connections without the token beyond the cap, once they had
        ``GRACE``; comes back when the next one has had it."""
        if self._sweep is not None:
            self._sweep.cancel()
            self._sweep = None
        now = loop.time()
        while len(self.untrusted) > self.max_untrusted:
            oldest, since = next(iter(self.untrusted.items()))
            if now - since < self.grace:
                self._sweep = loop.call_at(since + self.grace, self.enforce, loop)
                return
            self.drop(oldest)

    def shed(self, count: int) -> int:
        """Close up to ``count`` of the oldest connections without the token, whatever their
        age; returns how many."""
        victims = list(self.untrusted)[:count]
        for conn in victims:
            self.drop(conn)
        return len(victims)

    def drop(self, conn: GuardedH11) -> None:
        self.forget(conn)
        conn.cancel_header_deadline()
        conn.transport.abort()  # at once: nothing owed to it, and its descriptor is freed now

    # -- the event loop
    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Say "out of file descriptors" in one sentence now and then, not in a traceback per
        accept; the loop's other errors go where they went before."""
        self._previous_handler = loop.get_exception_handler()
        loop.set_exception_handler(self.loop_exception)

    def loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        err = context.get("exception")
        if isinstance(err, OSError) and err.errno in OUT_OF_FILES \
                and "accept" in str(context.get("message", "")):
            now = loop.time()
            if now - self._last_shed >= 0.5:  # asyncio retries accepting in a second
                self._last_shed = now
                self.shed(SHED_ON_EMFILE)
            if now - self._last_warning >= LOG_EVERY:
                self._last_warning = now
                self.log.warning("Too many connections for this process's file limit (%s): "
                                 "the oldest ones without the link were closed.",
                                 err.strerror or err)
            return
        if self._last_shed > -math.inf and "_start_serving" in str(context.get("message", "")):
            # asyncio schedules a retry of accepting per failed attempt; those that come after
            # the server closed its socket find no descriptor: nothing to say
            return
        if self._previous_handler is not None:
            self._previous_handler(loop, context)
        else:
            loop.default_exception_handler(context)


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with the guard's header deadline and caps (see the module)."""

    guard: ClassVar[ConnectionGuard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self.expect_header()
        self.guard.admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.cancel_header_deadline()
        self.guard.forget(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        before = self.scope
        super().data_received(data)
        self.request_seen(before)

    def on_response_complete(self) -> None:
        before = self.scope
        super().on_response_complete()
        if self.scope is not before:  # a request sent behind the last one (pipelining)
            self.request_seen(before)
        elif not self.transport.is_closing():
            self.expect_header()

    def request_seen(self, before: Any) -> None:
        """After h11 read what came: a new request's header ends its deadline and may show
        the token."""
        if self.scope is None or self.scope is before:
            return
        self.cancel_header_deadline()
        if self.guard.trusts(self.scope.get("query_string", b"")):
            self.guard.trust(self)

    def expect_header(self) -> None:
        self.cancel_header_deadline()
        self.header_deadline = self.loop.call_later(self.guard.header_timeout, self.header_late)

    def cancel_header_deadline(self) -> None:
        if self.header_deadline is not None:
            self.header_deadline.cancel()
            self.header_deadline = None

    def header_late(self) -> None:
        self.header_deadline = None
        if self.transport.is_closing():
            return
        self.guard.forget(self)
        if not self.transport.get_write_buffer_size():
            self.transport.close()
        else:
            self.transport.abort()  # it does not read what it was sent: do not wait for it


def protocol_for(guard: ConnectionGuard) -> type[GuardedH11]:
    """The protocol class uvicorn makes one of per connection, bound to this server's guard."""
    return type("GuardedH11ForServer", (GuardedH11,), {"guard": guard})


class OnceAWhile(logging.Filter):
    """Lets each message through at most once per ``every`` seconds. uvicorn warns about every
    invalid request and every upgrade asked for, so anyone who can reach the port could fill the
    terminal with warnings."""

    def __init__(self, every: float = LOG_EVERY) -> None:
        super().__init__()
        self.every = every
        self.said: dict[str, float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key, now = str(record.msg), time.monotonic()
        if now - self.said.get(key, -math.inf) < self.every:
            return False
        if len(self.said) >= 1000:  # messages with their own text each time: forget the old
            self.said.clear()
        self.said[key] = now
        return True


#: On uvicorn's error log (which carries its warnings), once for the process.
ONCE_A_WHILE = OnceAWhile()


class GuardedServer(uvicorn.Server):
    """uvicorn's server with the guard's exception handler on its loop, and its warnings said
    once a while (``OnceAWhile``)."""

    def __init__(self, config: uvicorn.Config, guard: ConnectionGuard) -> None:
        super().__init__(config)  # the config has set up uvicorn's loggers by now
        self.guard = guard
        log = logging.getLogger("uvicorn.error")
        if ONCE_A_WHILE not in log.filters:
            log.addFilter(ONCE_A_WHILE)

    async def startup(self, sockets: Any = None) -> None:
        self.guard.attach(asyncio.get_running_loop())
        await super().startup(sockets=sockets)
        # asyncio accepts at most ``backlog`` connections per turn of the loop and asks the
        # kernel for a queue as long: a short turn (ACCEPT_BATCH, uvicorn's ``backlog``) keeps
        # the pages' events flowing during a flood of connections, a long queue keeps a phone's
        # connection from being dropped (and tried again a second later) when the flood fills it.
        for sock in sockets or ():
            sock.listen(LISTEN_QUEUE)
